// The provisional state of every externally-initiated trace in flight, keyed by its normalised external
// message hash, moved only upwards and handed to in-process observers (docs/FINALITY.md). It lives in
// memory beside the follower, never in the durable event log: the log keeps finalized history only.
import { Cell } from '@ton/core';
import type { FinalizedBlock, HashHex, TransactionModel } from '../../chain/model.js';
import { normalizedHashOfMessage, normalizedHashOfModel } from '../../chain/message-boc.js';
import type { DroppedMessage, NonFinalBlock } from '../../chain/source.js';
import type { FinalityMetrics } from './metrics.js';
import {
  LEVEL_RANK,
  type ConfirmedEvent,
  type FinalityLevel,
  type FinalizedEvent,
  type InvalidatedEvent,
  type InvalidationReason,
  type PendingEvent,
  type PendingReport,
  type ProvisionalEvent,
  type TraceState,
} from './types.js';

/** A trace still pending or confirmed after this long is invalidated as `expired` (default). */
export const DEFAULT_PROVISIONAL_MAX_AGE_MS = 300_000;

export interface FinalityTrackerOptions {
  /** Bound on a trace's provisional life: past it, `invalidated` with reason `expired`. */
  maxAgeMs?: number;
  now?: () => number;
  metrics?: FinalityMetrics;
  /** An observer threw: reported, never stops the others. */
  onObserverError?: (err: unknown) => void;
}

interface Entry {
  state: TraceState;
  firstSeenAt: number;
  /** When it became finalized or invalidated (kept that long again so late reports cannot move it). */
  endedAt: number | null;
  /** The newest event: what a resuming observer is sent for a trace in flight. */
  last: ProvisionalEvent;
  /** The non-final block of its `confirmed` event, to notice when another block wins that place. */
  confirmedIn: { key: string; rootHash: HashHex } | null;
}

export type FinalityObserver = (event: ProvisionalEvent) => void;

export class FinalityTracker {
  private readonly entries = new Map<HashHex, Entry>();
  /** Message hash as the source saw it → trace, so a source's drop report finds its trace. */
  private readonly byMessage = new Map<HashHex, HashHex>();
  private readonly observers = new Set<FinalityObserver>();
  /** Traces pending and confirmed now (kept on each move, for the gauge). */
  private readonly counts = { pending: 0, confirmed: 0 };
  private readonly now: () => number;
  readonly maxAgeMs: number;

  constructor(private readonly options: FinalityTrackerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_PROVISIONAL_MAX_AGE_MS;
    if (!Number.isFinite(this.maxAgeMs) || this.maxAgeMs <= 0) throw new RangeError(`maxAgeMs must be positive, got ${this.maxAgeMs}`);
  }

  /** Calls `observer` with every event from now on. Returns an unsubscribe function. */
  subscribe(observer: FinalityObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** The current event of every trace still pending or confirmed, oldest first (what a resuming client is re-sent). */
  inFlight(): ProvisionalEvent[] {
    return [...this.entries.values()].filter((e) => e.endedAt === null).map((e) => e.last);
  }

  /** The state a trace has reached, or null when the tracker does not know it (never seen, or forgotten). */
  stateOf(trace: HashHex): TraceState | null {
    return this.entries.get(trace)?.state ?? null;
  }

  /**
   * The pending level's entry point, for every pending source (the chain source's mempool, the overlay):
   * an external message seen before any block holds it. Emitted once per trace; later reports are ignored.
   */
  pending(report: PendingReport): PendingEvent | null {
    let cell: Cell;
    try {
      cell = Cell.fromBase64(report.boc);
    } catch {
      this.options.metrics?.ignored.inc({ why: 'unreadable' });
      return null;
    }
    const trace = normalizedHashOfMessage(cell);
    if (trace === null) {
      this.options.metrics?.ignored.inc({ why: 'not_external' });
      return null;
    }
    const messageHash = cell.hash().toString('hex');
    this.byMessage.set(messageHash, trace);
    if (this.entries.has(trace)) {
      this.options.metrics?.ignored.inc({ why: 'not_higher' });
      return null;
    }
    const account = destinationOf(cell);
    const event: PendingEvent = {
      finality: 'pending',
      trace,
      messageHash,
      account,
      at: this.now(),
      origin: report.origin,
      involvedAccounts: report.involvedAccounts?.slice() ?? null,
      opcodes: report.opcodes?.slice() ?? [],
    };
    this.entries.set(trace, { state: 'pending', firstSeenAt: event.at, endedAt: null, last: event, confirmedIn: null });
    this.move(null, 'pending');
    this.emit(event, null);
    return event;
  }

  /** A shard block not committed yet: each externally-initiated trace it starts becomes `confirmed`. */
  nonFinalBlock(block: NonFinalBlock): ConfirmedEvent[] {
    const events: ConfirmedEvent[] = [];
    const key = blockKey(block.id);
    for (const tx of block.transactions) {
      const trace = traceOf(tx);
      if (trace === null) continue;
      const entry = this.entries.get(trace);
      if (entry && LEVEL_RANK[entry.state] >= LEVEL_RANK.confirmed) {
        this.options.metrics?.ignored.inc({ why: 'not_higher' });
        continue;
      }
      const event: ConfirmedEvent = {
        finality: 'confirmed',
        trace,
        messageHash: tx.inMessage!.hash,
        account: tx.account,
        at: this.now(),
        block: { ...block.id },
        signed: block.signed,
        transaction: tx,
      };
      const confirmedIn = { key, rootHash: block.id.rootHash };
      this.move(entry?.state ?? null, 'confirmed');
      if (entry) Object.assign(entry, { state: 'confirmed', last: event, confirmedIn });
      else this.entries.set(trace, { state: 'confirmed', firstSeenAt: event.at, endedAt: null, last: event, confirmedIn });
      this.emit(event, entry ? event.at - entry.firstSeenAt : null);
      events.push(event);
    }
    return events;
  }

  /**
   * A masterchain block committed (called after the follower's append): each externally-initiated trace
   * it starts becomes `finalized`; a confirmed trace whose block lost its place to another becomes
   * `invalidated` (`candidate_lost`).
   */
  finalizedBlock(block: FinalizedBlock): void {
    // nothing in flight and nobody listening: the finalized path pays nothing for this
    if (this.entries.size === 0 && this.observers.size === 0) return;
    const finalizedHere = new Set<HashHex>();
    for (const tx of block.transactions) {
      const trace = traceOf(tx);
      if (trace === null) continue;
      finalizedHere.add(trace);
      const entry = this.entries.get(trace);
      if (entry && entry.endedAt !== null) {
        this.options.metrics?.ignored.inc({ why: 'not_higher' });
        continue;
      }
      const event: FinalizedEvent = {
        finality: 'finalized',
        trace,
        messageHash: tx.inMessage!.hash,
        account: tx.account,
        at: this.now(),
        mcSeqno: block.masterchain.seqno,
        transaction: tx,
      };
      this.end(trace, entry, event);
    }
    const committed = new Map(block.shards.map((s) => [blockKey(s), s.rootHash]));
    for (const [trace, entry] of this.entries) {
      if (entry.state !== 'confirmed' || entry.confirmedIn === null || finalizedHere.has(trace)) continue;
      const winner = committed.get(entry.confirmedIn.key);
      if (winner === undefined || winner === entry.confirmedIn.rootHash) continue;
      this.invalidate(trace, 'candidate_lost', `masterchain block ${block.masterchain.seqno} committed block ${entry.confirmedIn.key} with root hash ${winner}, not ${entry.confirmedIn.rootHash}`);
    }
  }

  /** A source dropped an external message without a transaction: its trace will not happen. */
  dropped(message: DroppedMessage): void {
    let trace = this.byMessage.get(message.hash) ?? null;
    if (trace === null) {
      try {
        trace = normalizedHashOfMessage(Cell.fromBase64(message.boc));
      } catch {
        trace = null;
      }
    }
    if (trace !== null) this.invalidate(trace, 'rejected', message.reason);
  }

  /** Invalidates a trace that is pending or confirmed; a finalized or already invalidated one stays as it is. */
  invalidate(trace: HashHex, reason: InvalidationReason, detail: string): InvalidatedEvent | null {
    const entry = this.entries.get(trace);
    if (!entry || entry.endedAt !== null) return null;
    const event: InvalidatedEvent = {
      finality: 'invalidated',
      trace,
      messageHash: entry.last.messageHash,
      account: entry.last.account,
      at: this.now(),
      from: entry.state as FinalityLevel,
      reason,
      detail,
    };
    this.end(trace, entry, event);
    this.options.metrics?.invalidated(reason);
    return event;
  }

  /**
   * Invalidates (`expired`) every trace in flight for longer than the bound, and forgets ended traces a
   * bound after they ended. Called on a timer by whoever owns the tracker (finality feed).
   */
  sweep(): void {
    const now = this.now();
    for (const [trace, entry] of this.entries) {
      if (entry.endedAt === null && now - entry.firstSeenAt >= this.maxAgeMs) {
        this.invalidate(trace, 'expired', `neither finalized nor invalidated within ${Math.round(this.maxAgeMs / 1000)} s`);
      } else if (entry.endedAt !== null && now - entry.endedAt >= this.maxAgeMs) {
        this.entries.delete(trace);
        this.byMessage.delete(entry.last.messageHash);
      }
    }
    this.options.metrics?.setInFlight(this.counts.pending, this.counts.confirmed);
  }

  private end(trace: HashHex, entry: Entry | undefined, event: FinalizedEvent | InvalidatedEvent): void {
    const state: TraceState = event.finality;
    this.move(entry?.state ?? null, state);
    if (entry) Object.assign(entry, { state, last: event, endedAt: event.at, confirmedIn: null });
    else this.entries.set(trace, { state, firstSeenAt: event.at, endedAt: event.at, last: event, confirmedIn: null });
    this.emit(event, entry ? event.at - entry.firstSeenAt : null);
  }

  private emit(event: ProvisionalEvent, sinceFirstSeenMs: number | null): void {
    this.options.metrics?.emitted(event.finality, sinceFirstSeenMs);
    this.options.metrics?.setInFlight(this.counts.pending, this.counts.confirmed);
    for (const observer of this.observers) {
      try {
        observer(event);
      } catch (err) {
        this.options.onObserverError?.(err);
      }
    }
  }

  private move(from: TraceState | null, to: TraceState): void {
    if (from === 'pending' || from === 'confirmed') this.counts[from]--;
    if (to === 'pending' || to === 'confirmed') this.counts[to]++;
  }
}

/** The trace a transaction starts: its inbound external message's normalised hash, else null. */
function traceOf(tx: TransactionModel): HashHex | null {
  if (!tx.inMessage) return null;
  try {
    return normalizedHashOfModel(tx.inMessage);
  } catch {
    // a body the source could not give as a BoC (synthetic chains): not a trace this tracker can key
    return null;
  }
}

function blockKey(id: { workchain: number; shard: string; seqno: number }): string {
  return `${id.workchain}:${id.shard}:${id.seqno}`;
}

function destinationOf(message: Cell): string {
  const s = message.beginParse();
  s.loadUint(2); // ext_in_msg_info$10
  s.loadAddressAny(); // src
  return s.loadAddress().toRawString();
}
