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
  MAX_PROVISIONAL_TRANSACTIONS,
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
  /** Its pending emulation, handed on with `confirmed` (the rest of the trace as expected). */
  emulation?: { transactions: TransactionModel[]; truncated: boolean } | null;
  /** While confirmed: its transactions collected from non-final blocks and the messages they created. */
  collected?: Collected | null;
}

interface Collected {
  transactions: TransactionModel[];
  truncated: boolean;
  /** Hashes of the internal messages its transactions created (keys of `FinalityTracker.byCreated`). */
  created: HashHex[];
}

export type FinalityObserver = (event: ProvisionalEvent) => void;
/** Also told the state the trace had before (null: the tracker had not seen it). */
export type DerivedObserver = (event: ProvisionalEvent, from: TraceState | null) => void;

export class FinalityTracker {
  private readonly entries = new Map<HashHex, Entry>();
  /** Message hash as the source saw it → trace, so a source's drop report finds its trace. */
  private readonly byMessage = new Map<HashHex, HashHex>();
  /** Internal message created by a confirmed trace's transaction → that trace (its consumer joins the trace). */
  private readonly byCreated = new Map<HashHex, HashHex>();
  private readonly observers = new Set<FinalityObserver>();
  /** Observers of the events this tracker derived itself (not mirrored from another node): the cluster relay. */
  private readonly derivedObservers = new Set<DerivedObserver>();
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

  /** Calls `observer` with every event this tracker derives from its own inputs, not those `mirror` applies. */
  subscribeDerived(observer: DerivedObserver): () => void {
    this.derivedObservers.add(observer);
    return () => this.derivedObservers.delete(observer);
  }

  /**
   * The current event of every trace still pending or confirmed, oldest first: what a resuming client is
   * re-sent (a `pending` event carries the emulated trace, a `confirmed` one the transactions collected so
   * far and the emulation). On a cluster member it includes the traces mirrored from the leader. Each call counts
   * its traces as re-sent unless `count` is false (health checks).
   */
  inFlight(options: { count?: boolean } = {}): ProvisionalEvent[] {
    const events = [...this.entries.values()].filter((e) => e.endedAt === null).map((e) => e.last);
    if (options.count !== false && events.length > 0) this.options.metrics?.resent.inc(events.length);
    return events;
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
    const emulated = report.transactions ?? [];
    const event: PendingEvent = {
      finality: 'pending',
      trace,
      messageHash,
      account,
      at: this.now(),
      origin: report.origin,
      boc: report.boc,
      involvedAccounts: report.involvedAccounts?.slice() ?? null,
      opcodes: report.opcodes?.slice() ?? [],
      transactions: emulated.slice(0, MAX_PROVISIONAL_TRANSACTIONS),
      truncated: (report.truncated ?? false) || emulated.length > MAX_PROVISIONAL_TRANSACTIONS,
    };
    const emulation = event.transactions.length > 0 ? { transactions: event.transactions, truncated: event.truncated } : null;
    this.entries.set(trace, { state: 'pending', firstSeenAt: event.at, endedAt: null, last: event, confirmedIn: null, emulation });
    this.move(null, 'pending');
    this.emit(event, null);
    return event;
  }

  /**
   * A shard block not committed yet: each externally-initiated trace it starts becomes `confirmed`; a
   * transaction whose inbound message a confirmed trace's transaction created joins that trace, which is
   * re-emitted `confirmed` with the longer list once per block (the level does not move).
   */
  nonFinalBlock(block: NonFinalBlock): ConfirmedEvent[] {
    const key = blockKey(block.id);
    const started = new Map<HashHex, { tx: TransactionModel; entry: Entry | undefined; collected: Collected }>();
    const grown = new Set<HashHex>();
    for (const tx of block.transactions) {
      const trace = traceOf(tx);
      if (trace === null) {
        // its creator's trace, when that trace is confirmed and collecting (lt order: the creator came first)
        const joined = tx.inMessage ? this.byCreated.get(tx.inMessage.hash) : undefined;
        const collected = joined === undefined ? undefined : (started.get(joined)?.collected ?? this.entries.get(joined)?.collected);
        if (joined === undefined || !collected) continue;
        if (!this.collect(joined, collected, tx)) continue;
        if (!started.has(joined)) grown.add(joined);
        continue;
      }
      const entry = this.entries.get(trace);
      if (started.has(trace) || (entry && LEVEL_RANK[entry.state] >= LEVEL_RANK.confirmed)) {
        this.options.metrics?.ignored.inc({ why: 'not_higher' });
        continue;
      }
      const collected: Collected = { transactions: [], truncated: false, created: [] };
      this.collect(trace, collected, tx);
      started.set(trace, { tx, entry, collected });
    }
    const events: ConfirmedEvent[] = [];
    for (const [trace, { tx, entry, collected }] of started) {
      const event: ConfirmedEvent = {
        finality: 'confirmed',
        trace,
        messageHash: tx.inMessage!.hash,
        account: tx.account,
        at: this.now(),
        block: { ...block.id },
        signed: block.signed,
        transaction: tx,
        transactions: collected.transactions.slice(),
        truncated: collected.truncated,
        emulated: entry?.emulation ?? null,
      };
      const confirmedIn = { key, rootHash: block.id.rootHash };
      this.move(entry?.state ?? null, 'confirmed');
      if (entry) Object.assign(entry, { state: 'confirmed', last: event, confirmedIn, collected });
      else this.entries.set(trace, { state: 'confirmed', firstSeenAt: event.at, endedAt: null, last: event, confirmedIn, collected });
      this.emit(event, entry ? event.at - entry.firstSeenAt : null, false, entry?.state ?? null);
      events.push(event);
    }
    for (const trace of grown) {
      const entry = this.entries.get(trace)!;
      const event: ConfirmedEvent = { ...(entry.last as ConfirmedEvent), at: this.now(), transactions: entry.collected!.transactions.slice(), truncated: entry.collected!.truncated };
      entry.last = event;
      // the same level again: not a transition for the latency metrics
      this.emit(event, null, false, 'confirmed', false);
      events.push(event);
    }
    return events;
  }

  /** Adds `tx` to a confirmed trace's transactions (bounded); false when it was past the bound. */
  private collect(trace: HashHex, collected: Collected, tx: TransactionModel): boolean {
    if (collected.transactions.length >= MAX_PROVISIONAL_TRANSACTIONS) {
      if (collected.truncated) return false;
      collected.truncated = true;
      return true;
    }
    collected.transactions.push(tx);
    for (const m of tx.outMessages) {
      if (m.type !== 'internal') continue;
      this.byCreated.set(m.hash, trace);
      collected.created.push(m.hash);
    }
    return true;
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
      const trace = this.finalizeTrace(tx, block.masterchain.seqno);
      if (trace !== null) finalizedHere.add(trace);
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
   * An event another node's tracker derived (the cluster leader's, relayed through the store): applied
   * with the same rules as this tracker's own — only upwards, once per level — and handed to this node's
   * observers, never back to `subscribeDerived`. Returns whether it moved the trace.
   */
  mirror(event: ProvisionalEvent): boolean {
    const entry = this.entries.get(event.trace);
    if (entry && entry.endedAt === null && event.finality === 'confirmed' && entry.state === 'confirmed' && event.transactions.length > (entry.last as ConfirmedEvent).transactions.length) {
      // the leader's trace grew at the same level
      entry.last = event;
      this.emit(event, null, true, 'confirmed', false);
      return true;
    }
    if (entry && (entry.endedAt !== null || LEVEL_RANK[entry.state] >= LEVEL_RANK[event.finality])) {
      this.options.metrics?.ignored.inc({ why: 'not_higher' });
      return false;
    }
    this.byMessage.set(event.messageHash, event.trace);
    // the bound counts from when this node first heard of the trace (clocks of nodes may differ)
    const firstSeenAt = entry?.firstSeenAt ?? Math.min(event.at, this.now());
    if (event.finality === 'finalized' || event.finality === 'invalidated') {
      this.end(event.trace, entry, event, true);
      if (event.finality === 'invalidated') this.options.metrics?.invalidated(event.reason);
      return true;
    }
    const confirmedIn = event.finality === 'confirmed' ? { key: blockKey(event.block), rootHash: event.block.rootHash } : null;
    const emulation = event.finality === 'pending' && event.transactions.length > 0 ? { transactions: event.transactions, truncated: event.truncated } : (entry?.emulation ?? null);
    this.move(entry?.state ?? null, event.finality);
    if (entry) Object.assign(entry, { state: event.finality, last: event, confirmedIn, emulation });
    else this.entries.set(event.trace, { state: event.finality, firstSeenAt, endedAt: null, last: event, confirmedIn, emulation });
    this.emit(event, entry ? this.now() - entry.firstSeenAt : null, true);
    return true;
  }

  /**
   * Finalized transactions read from the event log rather than from the follower (a cluster member, which
   * does not follow the chain itself): each trace they start becomes `finalized`, as `finalizedBlock` does.
   */
  finalizedTransactions(mcSeqno: number, transactions: readonly TransactionModel[]): void {
    if (this.entries.size === 0 && this.observers.size === 0) return;
    for (const tx of transactions) this.finalizeTrace(tx, mcSeqno);
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

  /** The trace `tx` starts becomes finalized (unless it ended already); returns the trace, or null when none. */
  private finalizeTrace(tx: TransactionModel, mcSeqno: number): HashHex | null {
    const trace = traceOf(tx);
    if (trace === null) return null;
    const entry = this.entries.get(trace);
    if (entry && entry.endedAt !== null) {
      this.options.metrics?.ignored.inc({ why: 'not_higher' });
      return trace;
    }
    const event: FinalizedEvent = { finality: 'finalized', trace, messageHash: tx.inMessage!.hash, account: tx.account, at: this.now(), mcSeqno, transaction: tx };
    this.end(trace, entry, event);
    return trace;
  }

  private end(trace: HashHex, entry: Entry | undefined, event: FinalizedEvent | InvalidatedEvent, mirrored = false): void {
    const state: TraceState = event.finality;
    const endedAt = this.now();
    const from = entry?.state ?? null;
    this.move(from, state);
    // an ended trace collects nothing more: its created messages and emulation are let go
    for (const m of entry?.collected?.created ?? []) if (this.byCreated.get(m) === trace) this.byCreated.delete(m);
    if (entry) Object.assign(entry, { state, last: event, endedAt, confirmedIn: null, collected: null, emulation: null });
    else this.entries.set(trace, { state, firstSeenAt: endedAt, endedAt, last: event, confirmedIn: null });
    this.emit(event, entry ? endedAt - entry.firstSeenAt : null, mirrored, from);
  }

  private emit(event: ProvisionalEvent, sinceFirstSeenMs: number | null, mirrored = false, from: TraceState | null = null, transition = true): void {
    if (transition) this.options.metrics?.emitted(event.finality, sinceFirstSeenMs);
    this.options.metrics?.setInFlight(this.counts.pending, this.counts.confirmed);
    const tell = (observer: () => void) => {
      try {
        observer();
      } catch (err) {
        this.options.onObserverError?.(err);
      }
    };
    for (const observer of this.observers) tell(() => observer(event));
    if (!mirrored) for (const observer of this.derivedObservers) tell(() => observer(event, from));
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
