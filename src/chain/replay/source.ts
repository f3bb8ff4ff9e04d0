// ReplaySource: synthetic finalized blocks behind the ChainSource interface, for benchmarks and
// `TONWATCH_CHAIN=replay`. Blocks come from BlockGenerator; this class paces them (timed,
// unthrottled or manual), keeps a bounded window of recent blocks, and answers what a replay can.
// What it cannot answer is listed in src/chain/replay/README.md.
import { createHash } from 'node:crypto';
import type { TupleItem } from '@ton/core';
import { parseAccountId } from '../address.js';
import type { AccountId, AccountState, BlockHeader, FinalizedBlock, HashHex, PendingMessage, SourcedTransaction } from '../model.js';
import {
  ChainRejectedError,
  MAX_TRANSACTIONS_PER_CALL,
  type ChainIdentity,
  type ChainSource,
  type EmulationResult,
  type GetMethodResult,
} from '../source.js';
import { BlockGenerator, REPLAY_BALANCE, type GeneratorStats } from './generator.js';
import { resolveReplayOptions, type ReplayOptions, type ResolvedReplayOptions } from './options.js';
import { loadTemplates } from './templates.js';

/** Blocks generated ahead of the one a consumer asks for, in `unthrottled` pace. */
const UNTHROTTLED_LEAD = 1;
/** Blocks the window always keeps, whatever the history limits (the head and the one before). */
const MIN_WINDOW_BLOCKS = 2;

export interface ReplaySourceOptions extends ReplayOptions {
  /** Problems the source survives (a listener that threw, a timed tick running late). */
  onWarning?: (message: string) => void;
}

export class ReplaySource implements ChainSource {
  readonly network = 'replay' as const;
  readonly options: ResolvedReplayOptions;
  private readonly generator: BlockGenerator;
  /** Recent blocks, oldest first. */
  private readonly window: FinalizedBlock[] = [];
  private windowTransactions = 0;
  private head: BlockHeader | null = null;
  private readonly headListeners = new Set<(seqno: number) => void>();
  private readonly pendingListeners = new Set<(message: PendingMessage) => void>();
  private pending: PendingMessage[] = [];
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopped = false;
  private pacedFrom = 0;
  private pacedBlocks = 0;

  constructor(private readonly sourceOptions: ReplaySourceOptions = {}) {
    this.options = resolveReplayOptions(sourceOptions);
    this.generator = new BlockGenerator(this.options, loadTemplates(this.options.templatesPath));
  }

  /** Wallet accounts of the pool (senders and recipients of every trace). */
  get walletAccounts(): readonly AccountId[] {
    return this.generator.accounts.slice(0, this.options.accounts);
  }

  /** The jetton wallet the replay uses for the wallet account at the same index. */
  get jettonWallets(): readonly AccountId[] {
    return this.generator.accounts.slice(this.options.accounts, 2 * this.options.accounts);
  }

  stats(): GeneratorStats & { headSeqno: number | null } {
    return { ...this.generator.stats, headSeqno: this.head?.seqno ?? null };
  }

  /** The generated chain is a function of these options: the same ones give the same chain. */
  identity(): ChainIdentity {
    const o = this.options;
    const accounts = o.accountIds ? createHash('sha256').update(o.accountIds.join(',')).digest('hex').slice(0, 16) : o.accounts;
    const shares = `${o.shares.jetton}/${o.shares.comment}/${o.shares.bounce}`;
    return {
      network: 'replay',
      id: `seed=${o.seed} accounts=${accounts} first=${o.firstSeqno} tps=${o.transactionsPerSecond} bps=${o.blocksPerSecond} shares=${shares} depth=${o.traceDepth} pending=${o.pendingShare} templates=${String(o.templatesPath ?? 'default')}`,
    };
  }

  /** Makes the first block; in `timed` pace, starts the clock. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.options.pace !== 'timed') return this.produce(1);
    // started after the configured start: the blocks due since then, at once
    const interval = 1000 / this.options.blocksPerSecond;
    const since = this.options.startAt === null ? 0 : Math.max(0, this.options.clock() - this.options.startAt);
    const due = Math.floor(since / interval) + 1;
    this.produce(due);
    this.pacedFrom = performance.now() - since;
    this.pacedBlocks = due;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Makes the next block now (any pace); returns its header, or the unchanged head once maxBlocks are made. */
  produceBlock(): BlockHeader {
    this.ready();
    this.produce(1);
    return { ...this.head! };
  }

  private ready(): void {
    if (!this.started) throw new Error('the replay source is not started');
    if (this.stopped) throw new Error('the replay source is stopped');
  }

  /** Generates up to `count` blocks, then tells listeners: pending messages first, then the new head. */
  private produce(count: number): void {
    const before = this.head?.seqno ?? null;
    for (let i = 0; i < count && this.generator.stats.blocks < this.options.maxBlocks; i++) {
      const block = this.generator.next();
      this.window.push(block);
      this.windowTransactions += block.transactions.length;
      this.head = block.masterchain;
      this.evict();
      this.pending = this.generator.takePending();
      for (const message of this.pending) this.notify(this.pendingListeners, message, 'pending-message');
    }
    if (this.head && this.head.seqno !== before) this.notify(this.headListeners, this.head.seqno, 'head');
  }

  private evict(): void {
    const { historyTransactions, historyBlocks } = this.options;
    while (
      this.window.length > MIN_WINDOW_BLOCKS &&
      (this.windowTransactions > historyTransactions || this.window.length > historyBlocks)
    ) {
      this.windowTransactions -= this.window.shift()!.transactions.length;
    }
  }

  private notify<T>(listeners: Set<(value: T) => void>, value: T, what: string): void {
    for (const listener of listeners) {
      try {
        listener(value);
      } catch (err) {
        this.sourceOptions.onWarning?.(`a ${what} listener threw: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  /** Timed pace: the block count follows the wall clock; a late tick catches up at most a second's worth. */
  private schedule(): void {
    if (this.stopped) return;
    const interval = 1000 / this.options.blocksPerSecond;
    const nextDue = this.pacedFrom + this.pacedBlocks * interval;
    this.timer = setTimeout(() => {
      const due = Math.floor((performance.now() - this.pacedFrom) / interval) + 1;
      const behind = due - this.pacedBlocks;
      const count = Math.min(behind, Math.max(1, Math.ceil(this.options.blocksPerSecond)));
      if (behind > count) {
        this.sourceOptions.onWarning?.(`replay is ${behind} blocks behind its rate; generating ${count} now`);
        // the rate cannot be met: restart the schedule from now instead of bursting forever
        this.pacedFrom = performance.now() - (this.pacedBlocks + count - 1) * interval;
      }
      this.pacedBlocks += count;
      this.produce(count);
      this.schedule();
    }, Math.max(0, nextDue - performance.now()));
    this.timer.unref?.();
  }

  async getMasterchainHead(): Promise<BlockHeader> {
    this.ready();
    return { ...this.head! };
  }

  onMasterchainHead(listener: (seqno: number) => void): () => void {
    this.headListeners.add(listener);
    return () => this.headListeners.delete(listener);
  }

  async getFinalizedBlock(seqno: number): Promise<FinalizedBlock | null> {
    this.ready();
    if (!Number.isInteger(seqno) || seqno < 1) throw new RangeError(`invalid masterchain seqno ${seqno}`);
    const head = this.head!.seqno;
    // the consumer sets the pace: asking for the head (or the block after it) makes the next ones
    if (this.options.pace === 'unthrottled' && seqno >= head && seqno <= head + 1) this.produce(seqno + UNTHROTTLED_LEAD - head);
    if (seqno > this.head!.seqno) return null;
    const oldest = this.window[0]!.masterchain.seqno;
    if (seqno < oldest) {
      throw new Error(
        `masterchain block ${seqno} is no longer available: the replay source keeps the last ${this.options.historyTransactions} transactions (at most ${this.options.historyBlocks} blocks); the oldest kept is ${oldest}`,
      );
    }
    return this.window[seqno - oldest]!;
  }

  async getOldestAvailableSeqno(): Promise<number> {
    this.ready();
    return this.window[0]?.masterchain.seqno ?? this.options.firstSeqno;
  }

  /** Pool accounts are active with a fixed balance and no code or data; any other account does not exist. */
  async getAccountState(address: AccountId): Promise<AccountState> {
    this.ready();
    const id = parseAccountId(address);
    const index = this.generator.indexOf(id);
    const last = index >= 0 ? this.generator.lastTransactionOf(index) : { lt: 0n, hash: '0'.repeat(64) };
    return {
      address: id,
      status: index >= 0 ? 'active' : 'nonexist',
      balance: index >= 0 ? REPLAY_BALANCE : 0n,
      lastTxLt: last.lt,
      lastTxHash: last.hash,
      code: null,
      data: null,
      mcSeqno: this.head!.seqno,
    };
  }

  /** Walks the account's transactions back from (lt, hash) inside the kept window only. */
  async getTransactions(address: AccountId, lt: bigint, hash: HashHex, limit = MAX_TRANSACTIONS_PER_CALL): Promise<SourcedTransaction[]> {
    this.ready();
    const id = parseAccountId(address);
    const count = Math.max(1, Math.min(MAX_TRANSACTIONS_PER_CALL, Math.floor(limit)));
    const wanted = hash.toLowerCase();
    const out: SourcedTransaction[] = [];
    let next: { lt: bigint; hash: HashHex } | null = { lt, hash: wanted };
    for (let b = this.window.length - 1; b >= 0 && next && out.length < count; b--) {
      const txs = this.window[b]!.transactions;
      for (let i = txs.length - 1; i >= 0 && next && out.length < count; i--) {
        const tx = txs[i]!;
        if (tx.account !== id || tx.lt !== next.lt) continue;
        if (tx.hash !== next.hash) {
          next = null; // that lt holds another transaction: the given hash is not on this chain
          break;
        }
        out.push(tx);
        next = tx.prevLt === 0n ? null : { lt: tx.prevLt, hash: tx.prevHash };
      }
    }
    if (out.length === 0) {
      throw new Error(`transaction ${lt}:${wanted} of ${id} is not in the replay window (the last ${this.window.length} blocks)`);
    }
    return out;
  }

  async runGetMethod(address: AccountId, method: string | number, _stack?: TupleItem[]): Promise<GetMethodResult> {
    throw new Error(`the replay chain source runs no contracts: cannot run get-method ${String(method)} on ${address}`);
  }

  async sendExternalMessage(_boc: Buffer): Promise<{ hash: HashHex }> {
    throw new ChainRejectedError('the replay chain source accepts no messages: its blocks are generated', 'unsupported');
  }

  async emulateMessage(_boc: Buffer): Promise<EmulationResult> {
    throw new ChainRejectedError('the replay chain source cannot emulate messages: it runs no contracts', 'unsupported');
  }

  /** Messages announced for the next block (only with pendingShare > 0). */
  async getPendingMessages(): Promise<PendingMessage[]> {
    this.ready();
    return [...this.pending];
  }

  onPendingMessage(listener: (message: PendingMessage) => void): () => void {
    this.pendingListeners.add(listener);
    return () => this.pendingListeners.delete(listener);
  }
}

/** The factory the service and the benchmarks use. */
export function createReplaySource(options: ReplaySourceOptions = {}): ReplaySource {
  return new ReplaySource(options);
}
