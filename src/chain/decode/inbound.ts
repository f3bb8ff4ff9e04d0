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
    // Compute skipped for no code (an uninitialised account) or too little value to buy gas (a
    // 1-nanoton notification) still credits the value when nothing bounced: compat.md §7.
    if (compute?.reason === 'no-state' || compute?.reason === 'no-gas') return 'credited';
    return 'failed';
  }
  if (!compute.success) return 'failed';
  if (t.actionPhase && !t.actionPhase.success) return 'failed';
  return 'credited';
}
