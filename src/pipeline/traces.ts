// Assembles traces: every transaction caused by one root message. A trace is complete when every
// internal message its transactions created has been consumed by a transaction. Traces span
// blocks, so the state of unfinished traces is persisted with each block (traces_in_flight).
import v8 from 'node:v8';
import type { AccountId, HashHex, TraceModel, TransactionModel } from '../chain/model.js';

export interface TraceState {
  root: HashHex;
  startMcSeqno: number;
  accounts: Set<AccountId>;
  transactions: HashHex[];
  /** Opcodes of its transactions' inbound messages (the trace's `operations`). */
  opcodes: Set<number>;
  /** Internal messages created by the trace and not consumed yet. */
  pending: Set<HashHex>;
}

export interface StoredTrace {
  root: HashHex;
  startMcSeqno: number;
  state: Uint8Array;
}

export interface BlockTraceResult {
  /** Traces that completed in this block, in completion order. */
  completed: TraceModel[];
  /** Unfinished traces this block touched (to upsert). */
  changed: TraceState[];
  /** Roots of traces that finished or were dropped (to delete). */
  removed: HashHex[];
}

export class TraceTracker {
  private readonly traces = new Map<HashHex, TraceState>();
  private readonly byMessage = new Map<HashHex, TraceState>();

  /**
   * @param maxAgeBlocks an unfinished trace older than this many masterchain blocks is emitted as
   *   it stands (its missing messages never arrived), so state stays bounded.
   */
  constructor(private readonly maxAgeBlocks = 10_000) {}

  get inFlight(): number {
    return this.traces.size;
  }

  load(stored: StoredTrace[]): void {
    this.traces.clear();
    this.byMessage.clear();
    for (const row of stored) {
      const raw = v8.deserialize(row.state) as { accounts: AccountId[]; transactions: HashHex[]; opcodes?: number[]; pending: HashHex[] };
      const trace: TraceState = {
        root: row.root,
        startMcSeqno: row.startMcSeqno,
        accounts: new Set(raw.accounts),
        transactions: raw.transactions,
        opcodes: new Set(raw.opcodes),
        pending: new Set(raw.pending),
      };
      this.traces.set(trace.root, trace);
      for (const m of trace.pending) this.byMessage.set(m, trace);
    }
  }

  static serialize(trace: TraceState): Uint8Array {
    return v8.serialize({ accounts: [...trace.accounts], transactions: trace.transactions, opcodes: [...trace.opcodes], pending: [...trace.pending] });
  }

  /** Feeds one masterchain block's transactions (any order; they are linked in lt order). */
  applyBlock(mcSeqno: number, transactions: readonly TransactionModel[]): BlockTraceResult {
    const touched = new Set<TraceState>();
    const ordered = [...transactions].sort((a, b) => (a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : 0));
    for (const tx of ordered) touched.add(this.link(tx, mcSeqno));

    const completed: TraceModel[] = [];
    const removed: HashHex[] = [];
    const finish = (trace: TraceState) => {
      completed.push(toModel(trace, mcSeqno));
      removed.push(trace.root);
      this.traces.delete(trace.root);
      for (const m of trace.pending) this.byMessage.delete(m);
    };
    for (const trace of touched) if (trace.pending.size === 0) finish(trace);
    for (const trace of this.traces.values()) {
      if (mcSeqno - trace.startMcSeqno > this.maxAgeBlocks) finish(trace);
    }
    const changed = [...touched].filter((t) => this.traces.has(t.root));
    return { completed, changed, removed };
  }

  private link(tx: TransactionModel, mcSeqno: number): TraceState {
    const inbound = tx.inMessage;
    let trace = inbound && inbound.type === 'internal' ? this.byMessage.get(inbound.hash) : undefined;
    if (trace) {
      trace.pending.delete(inbound!.hash);
      this.byMessage.delete(inbound!.hash);
    } else {
      // An external message, a tick-tock, or a message whose creator we never saw starts a trace.
      trace = { root: tx.hash, startMcSeqno: mcSeqno, accounts: new Set(), transactions: [], opcodes: new Set(), pending: new Set() };
      this.traces.set(trace.root, trace);
    }
    trace.accounts.add(tx.account);
    trace.transactions.push(tx.hash);
    if (inbound?.opcode != null) trace.opcodes.add(inbound.opcode);
    for (const out of tx.outMessages) {
      if (out.type !== 'internal') continue;
      trace.pending.add(out.hash);
      this.byMessage.set(out.hash, trace);
    }
    return trace;
  }
}

function toModel(trace: TraceState, endMcSeqno: number): TraceModel {
  return {
    hash: trace.root,
    accounts: [...trace.accounts].sort(),
    transactions: trace.transactions,
    startMcSeqno: trace.startMcSeqno,
    endMcSeqno,
    opcodes: [...trace.opcodes].sort((a, b) => a - b),
  };
}
