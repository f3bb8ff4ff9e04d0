// The mempool: external messages accepted after emulating their whole trace on a copy-on-write
// fork. Accepted messages also advance a speculative state (committed state + every pending
// trace), so a wallet can queue several messages with consecutive seqnos within one block.
import { decodeMessage } from '../decode/message.js';
import type { AccountId, PendingMessage } from '../model.js';
import type { Emulator } from './emulator.js';
import { executeMessage, type ExecutedTransaction, type QueuedMessage } from './execute.js';
import { alignLt } from './producer.js';
import { StateOverlay, type AccountReader } from './state.js';

export interface TraceLimits {
  maxHops: number;
  maxTransactions: number;
}

export const DEFAULT_TRACE_LIMITS: TraceLimits = { maxHops: 32, maxTransactions: 512 };

export interface EmulatedTransaction extends ExecutedTransaction {
  /** 0 for the external message's own transaction, 1 for the messages it sent, and so on. */
  hop: number;
}

export interface TraceEmulation {
  transactions: EmulatedTransaction[];
  involvedAccounts: AccountId[];
  /** Opcodes of the root message's body and of every message the trace sends, sorted (`operations` filters). */
  opcodes: number[];
  state: StateOverlay;
  endLt: bigint;
  /** The trace was cut at the hop or transaction limit. */
  truncated: boolean;
}

/**
 * Runs `root` and every message it causes, hop by hop, on a fork of `base`. Throws
 * EmulationRefused when the root message itself produces no transaction (not accepted).
 */
export async function emulateTrace(
  emulator: Emulator,
  base: AccountReader,
  root: QueuedMessage,
  at: { now: number; lt: bigint; randomSeed: Buffer },
  limits: TraceLimits = DEFAULT_TRACE_LIMITS,
): Promise<TraceEmulation> {
  const state = new StateOverlay(base);
  const transactions: EmulatedTransaction[] = [];
  let lt = at.lt;
  let wave: QueuedMessage[] = [root];
  let truncated = false;
  for (let hop = 0; wave.length > 0; hop++) {
    if (hop >= limits.maxHops) {
      truncated = true;
      break;
    }
    const next: QueuedMessage[] = [];
    for (const message of wave) {
      if (transactions.length >= limits.maxTransactions) {
        truncated = true;
        break;
      }
      try {
        const tx = await executeMessage(emulator, state, message, { now: at.now, lt, randomSeed: at.randomSeed });
        lt = tx.endLt > lt ? tx.endLt : lt + 1n;
        transactions.push({ ...tx, hop });
        next.push(...tx.outMessages);
      } catch (err) {
        // the root message decides admission; a later message that cannot run just ends its branch
        if (hop === 0) throw err;
      }
    }
    // each hop lands in a later block, at a higher lt, as on chain
    wave = next;
    lt = alignLt(lt + 1n);
  }
  const involvedAccounts = [...new Set(transactions.map((t) => t.account))].sort();
  const opcodes = new Set<number>();
  for (const message of [root, ...transactions.flatMap((t) => t.outMessages)]) {
    const op = decodeMessage(message.cell).opcode;
    if (op !== null) opcodes.add(op);
  }
  return { transactions, involvedAccounts, opcodes: [...opcodes].sort((a, b) => a - b), state, endLt: lt, truncated };
}

export interface MempoolEntry {
  pending: PendingMessage;
  message: QueuedMessage;
  /** Its row in the devnet storage's `pending` table (so a block deletes only what it consumed). */
  seq: number;
}

export class Mempool {
  private entries: Array<MempoolEntry & { trace: TraceEmulation | null }> = [];
  private readonly hashes = new Set<string>();
  private speculative: StateOverlay;
  /** lt from which the next emulation runs: above everything the speculative state holds. */
  private emulationLt = 0n;

  constructor(private readonly committed: AccountReader) {
    this.speculative = new StateOverlay(committed);
  }

  get size(): number {
    return this.entries.length;
  }

  has(hash: string): boolean {
    return this.hashes.has(hash);
  }

  /** Committed state plus the effects of every pending trace. */
  view(): AccountReader {
    return this.speculative;
  }

  nextEmulationLt(chainNextLt: bigint): bigint {
    return alignLt(chainNextLt > this.emulationLt ? chainNextLt : this.emulationLt);
  }

  add(entry: MempoolEntry, trace: TraceEmulation | null): void {
    this.entries.push({ ...entry, trace });
    this.hashes.add(entry.pending.hash);
    if (trace) {
      this.speculative.absorb(trace.state);
      if (trace.endLt > this.emulationLt) this.emulationLt = trace.endLt;
    }
  }

  list(): PendingMessage[] {
    return this.entries.map((e) => ({ ...e.pending, involvedAccounts: e.pending.involvedAccounts?.slice() ?? null }));
  }

  /** The messages a block produced now executes: up to `throughSeq`. */
  messages(throughSeq = Number.MAX_SAFE_INTEGER): QueuedMessage[] {
    return this.entries.filter((e) => e.seq <= throughSeq).map((e) => e.message);
  }

  /** Storage row of the newest entry, or 0 when empty: what a block produced now consumes. */
  lastSeq(): number {
    return this.entries.at(-1)?.seq ?? 0;
  }

  /**
   * Removes the messages a block consumed (rows up to `throughSeq`) once it is committed; messages that
   * arrived while it waited for its masterchain block stay, their traces laid over the new committed state.
   */
  consumed(throughSeq: number): void {
    this.entries = this.entries.filter((e) => e.seq > throughSeq);
    this.hashes.clear();
    this.speculative = new StateOverlay(this.committed);
    this.emulationLt = 0n;
    for (const e of this.entries) {
      this.hashes.add(e.pending.hash);
      if (!e.trace) continue;
      this.speculative.absorb(e.trace.state);
      if (e.trace.endLt > this.emulationLt) this.emulationLt = e.trace.endLt;
    }
  }
}
