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

/**
 * Most transactions one provisional event carries (a pending event's emulated trace, a confirmed event's
 * transactions from non-final blocks): past it the list is cut and the event says `truncated`.
 */
export const MAX_PROVISIONAL_TRANSACTIONS = 256;

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
  /** The emulated trace's transactions in execution order (not on chain), at most MAX_PROVISIONAL_TRANSACTIONS; empty when not emulated. */
  transactions: TransactionModel[];
  /** The emulation stopped at its source's limit, or the list was cut at MAX_PROVISIONAL_TRANSACTIONS. */
  truncated: boolean;
}

export interface ConfirmedEvent extends EventBase {
  finality: 'confirmed';
  /** The non-final shard block that holds the trace's first transaction. */
  block: BlockId;
  signed: boolean;
  /** The trace's first transaction (the one in `block`). */
  transaction: TransactionModel;
  /**
   * The trace's transactions the non-final blocks seen hold, in lt order: the first one and each whose
   * inbound message a transaction of the trace created. A later non-final block that adds to it re-emits
   * `confirmed` with the longer list (at most MAX_PROVISIONAL_TRANSACTIONS).
   */
  transactions: TransactionModel[];
  /** Transactions past MAX_PROVISIONAL_TRANSACTIONS were not collected. */
  truncated: boolean;
  /** The trace's pending emulation when the tracker had one (what the rest of the trace is expected to be), else null. */
  emulated: { transactions: TransactionModel[]; truncated: boolean } | null;
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
  /** The emulated trace's transactions in execution order, when the source emulated it. */
  transactions?: TransactionModel[];
  /** The source's emulation stopped at its limit before the trace ended. */
  truncated?: boolean;
}

/**
 * An event as an older version relayed it (no `transactions` lists) made current: a pending event without
 * transactions, a confirmed one with its first transaction alone (rows of `finality_events` outlive upgrades).
 */
export function currentEvent(event: ProvisionalEvent): ProvisionalEvent {
  if (event.finality === 'pending' && !Array.isArray(event.transactions)) return { ...event, transactions: [], truncated: false };
  if (event.finality === 'confirmed' && !Array.isArray(event.transactions)) return { ...event, transactions: [event.transaction], truncated: false, emulated: null };
  return event;
}
