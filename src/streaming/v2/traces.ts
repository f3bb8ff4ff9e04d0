// Whole finalized traces for the v2 `trace` and `actions` notifications. When a trace completes is the
// follower's decision, in the log (a `trace` event: every internal message its transactions created was
// consumed, or the tracker's age bound ended it as it stood — src/pipeline/traces.ts), so completions are
// the same on every node and after a restart. This module finds the transactions such an event names:
// from the recent batches it keeps (a window of masterchain blocks), else by reading the log back from
// the trace's first block, never further than the window. Its content is built once per event, with
// contract facts proven through get-methods (each read bounded in time).
import { LRUCache } from 'lru-cache';
import type { EventBatch, Position, TraceEvent } from '../../bus/events.js';
import { makePosition } from '../../bus/events.js';
import type { EventLog } from '../../bus/types.js';
import type { AccountId, HashHex, TransactionModel } from '../../chain/model.js';
import { normalizedHashOfModel } from '../../chain/message-boc.js';
import { noContractFacts, readContractFacts, traceContent, type ContractFacts, type GetMethodRunner, type TraceContent } from './v3/index.js';

/** Masterchain blocks a trace may span and still be assembled (memory and read-back bound). */
export const TRACE_WINDOW_BLOCKS = 64;
/** Transactions kept in memory at most (the window's blocks are dropped oldest first beyond it). */
export const MAX_KEPT_TRANSACTIONS = 200_000;
/** Completions remembered for recipients and replays that come later. */
const MAX_REMEMBERED_COMPLETIONS = 10_000;

/** A completed trace, ready for every recipient. */
export interface Completion {
  /** Position of the log's `trace` event: its notifications are `<position>.1` and `<position>.2`. */
  position: Position;
  /** Normalised hash of the root external message; null when the trace did not start with one. */
  norm: HashHex | null;
  /** The whole trace's tree, transaction map and (when `classified`) actions. */
  content: TraceContent;
  /**
   * True when the actions are exact: the trace starts with an external message and every internal
   * message its transactions sent was consumed within it (not a trace the age bound ended as it stood).
   */
  classified: boolean;
  /** Every account the trace's transactions ran on. */
  accounts: readonly AccountId[];
}

export interface TraceAssemblerOptions {
  log: EventLog;
  /** Proves jetton wallets and NFT items (null: none proven, so none classified as such). */
  facts: GetMethodRunner | null;
  windowBlocks?: number;
  maxTransactions?: number;
  /** Told how each trace event ended: whole and classified, sent unclassified, or not assembled. */
  onBuilt?: (result: 'classified' | 'unclassified' | 'not_assembled') => void;
}

export class TraceAssembler {
  private readonly byHash = new Map<HashHex, TransactionModel>();
  /** The kept batches' transaction hashes, oldest first. */
  private readonly kept: Array<{ mcSeqno: number; hashes: HashHex[] }> = [];
  private newest = -1;
  /** Recent completions by position, oldest built leaves first: live recipients and replays of the same event share one build. */
  private readonly completions = new LRUCache<Position, Promise<Completion | null>>({ max: MAX_REMEMBERED_COMPLETIONS });
  readonly windowBlocks: number;
  private readonly maxTransactions: number;

  constructor(private readonly options: TraceAssemblerOptions) {
    this.windowBlocks = options.windowBlocks ?? TRACE_WINDOW_BLOCKS;
    this.maxTransactions = options.maxTransactions ?? MAX_KEPT_TRANSACTIONS;
  }

  /** Transactions held in memory now. */
  get size(): number {
    return this.byHash.size;
  }

  /** Keeps a block batch's transactions (batches in log order; an older one than seen is ignored). */
  observe(batch: EventBatch): void {
    if (batch.kind !== 'block' || batch.mcSeqno <= this.newest) return;
    this.newest = batch.mcSeqno;
    const hashes: HashHex[] = [];
    for (const e of batch.events) {
      if (e.type !== 'transaction') continue;
      this.byHash.set(e.tx.hash, e.tx);
      hashes.push(e.tx.hash);
    }
    if (hashes.length > 0) this.kept.push({ mcSeqno: batch.mcSeqno, hashes });
    while (this.kept.length > 0 && (this.kept[0]!.mcSeqno < batch.mcSeqno - this.windowBlocks || this.byHash.size > this.maxTransactions)) {
      for (const h of this.kept.shift()!.hashes) this.byHash.delete(h);
    }
  }

  /**
   * The content of a completed trace, or null when it spans more than the window, its transactions are
   * no longer in the log, or it has none. Built once per event (every recipient and a replay soon after share it).
   */
  complete(event: TraceEvent): Promise<Completion | null> {
    let done = this.completions.peek(event.position);
    if (done) return done;
    done = this.build(event).then(
      (c) => {
        this.options.onBuilt?.(c === null ? 'not_assembled' : c.classified ? 'classified' : 'unclassified');
        return c;
      },
      () => {
        // a failed log read is not remembered: the next recipient or replay tries again
        this.completions.delete(event.position);
        this.options.onBuilt?.('not_assembled');
        return null;
      },
    );
    this.completions.set(event.position, done);
    return done;
  }

  private async build(event: TraceEvent): Promise<Completion | null> {
    const trace = event.trace;
    if (trace.endMcSeqno - trace.startMcSeqno > this.windowBlocks || trace.transactions.length === 0) return null;
    const txs = await this.transactions(trace.transactions, trace.startMcSeqno, event.position);
    if (!txs) return null;
    const root = txs.find((tx) => tx.hash === trace.hash) ?? txs[0]!;
    const external = root.inMessage?.type === 'external-in' ? root.inMessage : null;
    const norm = external ? safeNorm(() => normalizedHashOfModel(external)) : null;
    const classified = !!external && whole(txs);
    const ctx = { finality: 'finalized' as const, emulated: false, traceId: root.hash, traceExternalHash: external?.hash ?? null, traceExternalHashNorm: norm };
    const facts: ContractFacts = classified && this.options.facts ? await readContractFacts(txs, this.options.facts) : noContractFacts;
    const content = traceContent(txs, ctx, facts);
    if (!classified) content.actions = [];
    return { position: event.position, norm, content, classified, accounts: trace.accounts };
  }

  /** The named transactions in the given order: from memory, else read back from the log. */
  private async transactions(hashes: readonly HashHex[], startMcSeqno: number, before: Position): Promise<TransactionModel[] | null> {
    const found = new Map<HashHex, TransactionModel>();
    for (const h of hashes) {
      const tx = this.byHash.get(h);
      if (tx) found.set(h, tx);
    }
    if (found.size < hashes.length) {
      const wanted = new Set(hashes.filter((h) => !found.has(h)));
      let after = makePosition(startMcSeqno, 0) - 1;
      // bounded: the trace's span is at most the window, and the read stops at the completing event
      while (wanted.size > 0 && after < before) {
        const batches = await this.options.log.readAfter(after, 16);
        if (batches.length === 0) break;
        for (const b of batches) {
          for (const e of b.events) {
            if (e.type === 'transaction' && wanted.delete(e.tx.hash)) found.set(e.tx.hash, e.tx);
          }
          after = Math.max(after, b.lastPosition);
        }
      }
      if (wanted.size > 0) return null; // pruned from the log: a part is never sent as the whole
    }
    return hashes.map((h) => found.get(h)!);
  }
}

/** Every internal message the transactions sent was consumed by one of them. */
function whole(txs: readonly TransactionModel[]): boolean {
  const consumed = new Set(txs.map((tx) => tx.inMessage?.hash));
  return txs.every((tx) => tx.outMessages.every((m) => m.type !== 'internal' || consumed.has(m.hash)));
}

function safeNorm(compute: () => HashHex | null): HashHex | null {
  try {
    return compute();
  } catch {
    return null;
  }
}
