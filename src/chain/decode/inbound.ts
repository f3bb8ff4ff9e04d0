// What happened to the value of the inbound internal message (model.ts InboundOutcome, compat.md §7).
import type { AccountStatus, ActionPhase, BouncePhase, ComputePhase, InboundOutcome, MessageModel } from '../model.js';

export interface InboundFacts {
  kind: 'generic' | 'tick-tock' | 'storage' | 'split-merge' | 'other';
  inMessage: MessageModel | null;
  origStatus: AccountStatus;
  computePhase: ComputePhase | null;
  actionPhase: ActionPhase | null;
  bouncePhase: BouncePhase | null;
}

export function classifyInbound(t: InboundFacts): InboundOutcome {
  if (t.kind !== 'generic' || !t.inMessage || t.inMessage.type !== 'internal') return 'none';
  // Only a bounce phase that produced the bounce message returned the value.
  if (t.bouncePhase?.type === 'ok') return 'bounced';
  const compute = t.computePhase;
  if (!compute || compute.type === 'skipped') {
    // A non-bounceable transfer to an account with no code is credited although compute is skipped.
    const uninitialised = t.origStatus === 'uninit' || t.origStatus === 'nonexist';
    if (compute?.reason === 'no-state' && uninitialised && !t.inMessage.bounce) return 'credited';
    return 'failed';
  }
  if (!compute.success) return 'failed';
  if (t.actionPhase && !t.actionPhase.success) return 'failed';
  return 'credited';
}
