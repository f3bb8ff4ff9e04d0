// Opcodes for the `operations` filter on traces and mempool (a decision of compat.md §2):
// - a trace matches when any of its transactions had an inbound message with a listed opcode. A trace
//   event lists only transaction hashes, so the hub remembers the inbound opcode of recent
//   transactions — only while some trace subscription has an operations filter (`demand`), and at
//   most `capacity` of them;
// - a pending message matches on the first 32 bits of its own body.
import { Cell } from '@ton/core';
import { decodeMessage } from '../chain/decode/index.js';
import type { HashHex, PendingMessage, TraceModel, TransactionModel } from '../chain/model.js';
import type { PreparedEvent } from './frames.js';

export class OpcodeMemory {
  private readonly byTransaction = new Map<HashHex, number>();
  /** Trace subscriptions with an operations filter; nothing is remembered while it is 0. */
  private demand = 0;

  constructor(private readonly capacity = 200_000) {}

  addDemand(delta: number): void {
    this.demand = Math.max(0, this.demand + delta);
    if (this.demand === 0) this.byTransaction.clear();
  }

  get remembered(): number {
    return this.byTransaction.size;
  }

  recordTransaction(tx: TransactionModel): void {
    if (this.demand === 0) return;
    const opcode = tx.inMessage?.opcode;
    if (opcode == null) return;
    this.byTransaction.set(tx.hash, opcode);
    // A Map iterates in insertion order: the first key is the oldest.
    if (this.byTransaction.size > this.capacity) this.byTransaction.delete(this.byTransaction.keys().next().value!);
  }

  ofTrace(trace: TraceModel): ReadonlySet<number> {
    const ops = new Set<number>();
    for (const hash of trace.transactions) {
      const op = this.byTransaction.get(hash);
      if (op !== undefined) ops.add(op);
    }
    return ops;
  }

  ofPending(message: PendingMessage, prepared: PreparedEvent): number | null {
    if (prepared.mempoolOpcode === undefined) {
      try {
        prepared.mempoolOpcode = decodeMessage(Cell.fromBoc(Buffer.from(message.boc, 'base64'))[0]!).opcode;
      } catch {
        prepared.mempoolOpcode = null;
      }
    }
    return prepared.mempoolOpcode;
  }
}
