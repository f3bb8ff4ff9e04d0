// The finality levels of a trace and the provisional events that report them (docs/FINALITY.md).
// A trace is keyed by its normalised external message hash (TEP-467) and only moves up:
// pending → confirmed → finalized, or from pending/confirmed to invalidated; any level may be skipped.
import type { AccountId, BlockId, HashHex, TransactionModel } from '../../chain/model.js';

export type FinalityLevel = 'pending' | 'confirmed' | 'finalized';
export type TraceState = FinalityLevel | 'invalidated';

/**
 * Why a trace will not happen: `rejected` — its message left the mempool without a transaction (a
 * wallet's seqno used by another message, `valid_until` passed, refused on execution); `candidate_lost` —
 * the masterchain committed another block for the shard and seqno of its confirmed block; `expired` —
 * neither finalized nor invalidated within the tracker's bound.
 */
export type InvalidationReason = 'rejected' | 'candidate_lost' | 'expired';

export const LEVEL_RANK: Record<TraceState, number> = { pending: 0, confirmed: 1, finalized: 2, invalidated: 2 };

interface EventBase {
  /** The trace's normalised external message hash. */
  trace: HashHex;
  /** Hash of the external message as this source saw it. */
  messageHash: HashHex;
  /** The external message's destination: the account that starts the trace. */
  account: AccountId;
  /** When the tracker emitted it (ms, the tracker's clock). */
  at: number;
}

export interface PendingEvent extends EventBase {
  finality: 'pending';
  /** Which pending source reported it first (`mempool`, later `overlay`). */
  origin: string;
  /** The external message as reported (standard base64 BoC): what its wallet signed, out messages included. */
  boc: string;
  /** Accounts of the emulated trace, sorted; null when the source could not emulate. */
  involvedAccounts: AccountId[] | null;
  opcodes: number[];
}

export interface ConfirmedEvent extends EventBase {
  finality: 'confirmed';
  /** The non-final shard block that holds the trace's first transaction. */
  block: BlockId;
  signed: boolean;
  transaction: TransactionModel;
}

export interface FinalizedEvent extends EventBase {
  finality: 'finalized';
  mcSeqno: number;
  transaction: TransactionModel;
}

export interface InvalidatedEvent extends EventBase {
  finality: 'invalidated';
  /** The level the trace had reached. */
  from: FinalityLevel;
  reason: InvalidationReason;
  detail: string;
}

export type ProvisionalEvent = PendingEvent | ConfirmedEvent | FinalizedEvent | InvalidatedEvent;

/** What a pending source hands the tracker: one external message, emulated once where it was admitted. */
export interface PendingReport {
  /** The external-in Message BoC (standard base64). */
  boc: string;
  origin: string;
  involvedAccounts?: AccountId[] | null;
  opcodes?: number[];
}
