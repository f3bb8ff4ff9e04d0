// DevnetChain: the embedded local chain behind the ChainSource interface. A real TVM (the
// @ton/sandbox emulator) runs every transaction; this class owns the clock, the lt counter,
// the block producer, the mempool and the chain's own SQLite storage.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Cell, type TupleItem } from '@ton/core';
import { LRUCache } from 'lru-cache';
import { parseAccountId } from '../address.js';
import { decodeTransaction } from '../decode/transaction.js';
import type { AccountId, AccountState, BlockHeader, FinalizedBlock, HashHex, PendingMessage, SourcedTransaction, TransactionModel } from '../model.js';
import {
  ChainRejectedError,
  MAX_TRANSACTIONS_PER_CALL,
  type ChainIdentity,
  type ChainSource,
  type DroppedMessage,
  type NonFinalBlock,
  type EmulationResult,
  type GetMethodResult,
} from '../source.js';
import { DevnetArchive } from './archive.js';
import { Emulator, EmulationRefused, readShardAccount } from './emulator.js';
import { DevnetLedger } from './ledger.js';
import { toQueuedMessage, type QueuedMessage } from './execute.js';
import { decodeStored, formatCounters, methodId, parseCounters, parseExternal, toStored } from './records.js';
import { emulateTrace, Mempool, type TraceEmulation } from './mempool.js';
import { FULL_SHARD, produceTick, tickRandomSeed, type ChainCounters, type ProducedTick } from './producer.js';
import { CommittedAccounts, type AccountReader } from './state.js';
import { DevnetStorage, type StoredBlock } from './storage.js';
import { DevnetValidators, firstEpoch, type ValidatorEpoch } from './validators.js';
import type { DevnetDirectory } from './directory.js';

export interface DevnetChainOptions {
  /** Directory of the chain's SQLite file (created when missing). */
  dataDir: string;
  /** Time between blocks; default 1000, at least 100. */
  blockIntervalMs?: number;
  /** No timer: blocks are made only by produceBlock() (tests). */
  manual?: boolean;
  /** Most messages the mempool holds; default 10,000. */
  mempoolLimit?: number;
  /** Wall clock in ms (injectable for tests). */
  clock?: () => number;
  /** Called for problems the chain survives (a failed timed block, a dropped external). */
  onWarning?: (message: string) => void;
  /**
   * How long a tick's shard block is shown as a signed non-final block (`onNonFinalBlock`) before the
   * masterchain block that commits it; default 0 in manual mode, else half the block interval.
   */
  confirmationLagMs?: number;
}

const META_CHAIN_ID = 'chain_id';
/** The validator epoch (seed, set, catchain session) after the last block. */
const META_VALIDATORS = 'validators';
export const DEFAULT_BLOCK_INTERVAL_MS = 1000;
export const MIN_BLOCK_INTERVAL_MS = 100;

/** A tick produced but not committed yet: its shard block is non-final until `seal`. */
interface StagedTick {
  tick: ProducedTick;
  ledger: DevnetLedger;
  rotate: boolean;
  /** The newest mempool row the tick executed. */
  mempoolThrough: number;
  /** Test mode: this candidate loses to another block (replaceLosingCandidate). */
  loses: boolean;
  messages: QueuedMessage[];
  wallClockSeconds: number;
}

/** The genesis step (genesis.ts): runs before the block timer starts and says who is who. */
/** When an external message was admitted, put in a shard block, and committed, by the devnet's clock (ms). */
export interface MessageTimeline {
  admittedAtMs: number;
  /** The shard block holding its transaction, shown as a signed non-final block at `producedAtMs`. */
  block: { workchain: number; shard: string; seqno: number } | null;
  producedAtMs: number | null;
  /** When the masterchain block committing that shard block was sealed. */
  committedAtMs: number | null;
}
/** Messages whose timeline is kept (the newest). */
const TIMELINE_LIMIT = 100_000;

export interface GenesisHook {
  (chain: DevnetChain): Promise<DevnetDirectory>;
}

export class DevnetChain implements ChainSource {
  readonly network = 'devnet' as const;
  readonly blockIntervalMs: number;
  readonly manual: boolean;
  readonly confirmationLagMs: number;

  private storage: DevnetStorage | null = null;
  private emulator: Emulator | null = null;
  private readonly committed = new CommittedAccounts();
  private mempool = new Mempool(this.committed);
  private inflight: QueuedMessage[] = [];
  private counters: ChainCounters = { masterchainSeqno: 0, shardSeqno: 0, nextLt: 0n, utime: 0 };
  private head: BlockHeader | null = null;
  /** Real blocks' builder and the tops it links to; null until block 1 (it starts from the zero state). */
  private ledger: DevnetLedger | null = null;
  private rotationRequested = false;
  private candidateLoses = false;
  private readonly headListeners = new Set<(seqno: number) => void>();
  private readonly pendingListeners = new Set<(message: PendingMessage) => void>();
  private readonly timelines = new LRUCache<string, MessageTimeline>({ max: TIMELINE_LIMIT });
  /** The admitted messages of each shown shard block (by root hash), until its masterchain block is sealed. */
  private readonly shownMessages = new Map<string, string[]>();
  private readonly nonFinalListeners = new Set<(block: NonFinalBlock) => void>();
  private readonly droppedListeners = new Set<(message: DroppedMessage) => void>();
  /** Ticks one after the other: the next is produced only once the previous one is sealed. */
  private production: Promise<unknown> = Promise.resolve();
  private serial: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private starting: Promise<void> | null = null;
  private stopped = false;
  private readonly clock: () => number;
  private readonly mempoolLimit: number;
  /** Wallets, jettons and DNS of this chain, once genesis has run. */
  directory: DevnetDirectory | null = null;

  constructor(
    private readonly options: DevnetChainOptions,
    private readonly genesis: GenesisHook | null = null,
  ) {
    const interval = options.blockIntervalMs ?? DEFAULT_BLOCK_INTERVAL_MS;
    if (!Number.isInteger(interval) || interval < MIN_BLOCK_INTERVAL_MS) {
      throw new RangeError(`blockIntervalMs must be an integer ≥ ${MIN_BLOCK_INTERVAL_MS}, got ${interval}`);
    }
    this.blockIntervalMs = interval;
    this.manual = options.manual ?? false;
    this.clock = options.clock ?? Date.now;
    this.mempoolLimit = options.mempoolLimit ?? 10_000;
    const lag = options.confirmationLagMs ?? (this.manual ? 0 : Math.floor(interval / 2));
    // timed blocks: the lag is part of the interval; manual blocks: any wait a test asks for
    if (!Number.isInteger(lag) || lag < 0 || (!this.manual && lag >= interval)) {
      throw new RangeError(`the confirmation lag (TONWATCH_DEVNET_CONFIRMATION_LAG_MS) must be an integer from 0 to below the block interval (${interval} ms), got ${lag}`);
    }
    this.confirmationLagMs = lag;
  }

  start(): Promise<void> {
    this.starting ??= this.open();
    return this.starting;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.starting?.catch(() => undefined);
    await this.production.catch(() => undefined);
    await this.serial.catch(() => undefined);
    this.storage?.close();
  }

  private async open(): Promise<void> {
    mkdirSync(this.options.dataDir, { recursive: true });
    this.storage = new DevnetStorage(join(this.options.dataDir, 'devnet.sqlite'));
    this.emulator = await Emulator.create();
    // A devnet's own id: a store that followed this devnet refuses a new one with the same seqnos.
    if (!this.storage.getMeta(META_CHAIN_ID)) this.storage.setMeta(META_CHAIN_ID, randomUUID());
    // its own validator keys, from a secret made once
    if (!this.storage.getMeta(META_VALIDATORS)) this.storage.setMeta(META_VALIDATORS, JSON.stringify(firstEpoch()));
    const saved = this.storage.getMeta('counters');
    if (saved) this.counters = parseCounters(saved);
    const accounts = this.storage.loadAccounts();
    for (const [id, shardAccount] of accounts) this.committed.set(id, shardAccount);
    if (this.counters.masterchainSeqno > 0) {
      this.head = this.storage.blocksOfMasterchainSeqno(this.counters.masterchainSeqno)[0] ?? null;
      this.ledger = this.restoreLedger(this.storage, accounts);
    }
    await this.restorePending();
    if (this.genesis) this.directory = await this.genesis(this);
    this.schedule();
  }

  /** The block builder's tops rebuilt from the stored accounts and head blocks (checked against their hashes). */
  private restoreLedger(storage: DevnetStorage, accounts: Array<[string, string]>): DevnetLedger {
    const seqno = this.counters.masterchainSeqno;
    const heads = storage.blocksOfMasterchainSeqno(seqno);
    const shardHeader = heads.find((h) => h.workchain !== -1);
    const master = storage.block(-1, seqno);
    const shard = shardHeader ? storage.block(shardHeader.workchain, shardHeader.seqno) : null;
    if (!master || !shard) throw new Error(`the devnet storage lacks the blocks of masterchain seqno ${seqno}`);
    return DevnetLedger.restore({
      accounts,
      epoch: this.storedEpoch(),
      zeroStates: storage.zeroStates(),
      masterchainHead: master.boc,
      shardHead: shard.boc,
      earlierMasterchain: storage.masterchainBefore(seqno).filter((b) => b.seqno >= 1),
    });
  }

  private storedEpoch(): ValidatorEpoch {
    return JSON.parse(this.storage!.getMeta(META_VALIDATORS)!) as ValidatorEpoch;
  }

  /** In-flight messages come back as they were; mempool messages are re-emulated in order. */
  private async restorePending(): Promise<void> {
    for (const row of this.storage!.loadPending()) {
      const message = toQueuedMessage(Cell.fromBoc(row.boc)[0]!);
      if (row.kind === 'inflight') {
        this.inflight.push(message);
        continue;
      }
      const pending: PendingMessage = {
        hash: row.hash,
        boc: row.boc.toString('base64'),
        destination: row.destination,
        receivedAt: row.receivedAt,
        involvedAccounts: row.involved,
      };
      const trace = await this.emulateOnPending(message).catch(() => null);
      if (trace) pending.opcodes = trace.opcodes;
      this.mempool.add({ pending, message, seq: row.seq }, trace);
    }
  }

  private schedule(): void {
    if (this.manual || this.stopped) return;
    // the lag is part of the interval: a masterchain block every blockIntervalMs
    this.timer = setTimeout(() => {
      this.produceBlock()
        .catch((err) => this.warn(`block production failed: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => this.schedule());
    }, this.blockIntervalMs - this.confirmationLagMs);
  }

  private warn(message: string): void {
    this.options.onWarning?.(message);
  }

  /** Runs state-changing work one at a time (block production, mempool admission). */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.serial.then(work, work);
    this.serial = run.catch(() => undefined);
    return run;
  }

  private ready(): { storage: DevnetStorage; emulator: Emulator } {
    if (!this.storage || !this.emulator) throw new Error('the devnet is not started');
    if (this.stopped) throw new Error('the devnet is stopped');
    return { storage: this.storage, emulator: this.emulator };
  }

  /** Devnet time in seconds: the wall clock, never before the last block. */
  now(): number {
    return Math.max(this.counters.utime, Math.floor(this.clock() / 1000));
  }

  /**
   * Produces the next tick: its shard block first, shown as a signed non-final block, then after
   * `confirmationLagMs` the masterchain block that commits it; resolves with that masterchain header.
   * Messages sent meanwhile wait in the mempool for the next tick, as on a real chain.
   */
  produceBlock(options: { confirmationLagMs?: number } = {}): Promise<BlockHeader> {
    const lag = options.confirmationLagMs ?? this.confirmationLagMs;
    const run = this.production.then(async () => {
      const staged = await this.exclusive(() => this.stage());
      if (lag > 0) await new Promise((resolve) => setTimeout(resolve, lag));
      return this.exclusive(async () => this.seal(staged.loses ? await this.replaceLosingCandidate(staged) : staged));
    });
    this.production = run.catch(() => undefined);
    return run;
  }

  private async stage(): Promise<StagedTick> {
    const wallClockSeconds = Math.floor(this.clock() / 1000);
    // block 1 starts from the zero state: the accounts written before it (genesis), at this time
    const ledger = this.ledger ?? DevnetLedger.genesis(this.committed.entries(), Math.max(this.counters.utime, wallClockSeconds), this.storedEpoch());
    const rotate = this.rotationRequested;
    const mempoolThrough = this.mempool.lastSeq();
    const messages = [...this.inflight, ...this.mempool.messages(mempoolThrough)];
    const tick = await this.build(messages, ledger, rotate, wallClockSeconds);
    this.showNonFinal(tick);
    const loses = this.candidateLoses && messages.some((m) => m.external);
    if (loses) this.candidateLoses = false;
    return { tick, ledger, rotate, mempoolThrough, loses, messages, wallClockSeconds };
  }

  private build(messages: QueuedMessage[], ledger: DevnetLedger, rotate: boolean, wallClockSeconds: number): Promise<ProducedTick> {
    return produceTick({ emulator: this.ready().emulator, committed: this.committed, counters: this.counters, messages, wallClockSeconds, ledger, rotateValidators: rotate });
  }

  /** Tells non-final listeners of the tick's shard block: signed, not yet committed. */
  private showNonFinal(tick: ProducedTick): void {
    const shardTransactions = tick.transactions.filter((t) => t.block.workchain !== -1).map((t) => decodeStored(toStored(t)));
    const { workchain, shard, seqno, rootHash, fileHash, genUtime } = tick.shard;
    const block = { id: { workchain, shard, seqno, rootHash, fileHash }, genUtime, signed: true, transactions: shardTransactions, boc: tick.sealed.shard.boc };
    const shownAt = this.clock();
    const admitted: string[] = [];
    for (const t of shardTransactions) {
      const timeline = t.inMessage ? this.timelines.peek(t.inMessage.hash) : undefined;
      if (!timeline) continue;
      Object.assign(timeline, { block: { workchain, shard, seqno }, producedAtMs: shownAt });
      admitted.push(t.inMessage!.hash);
    }
    this.shownMessages.set(rootHash, admitted);
    this.tell(this.nonFinalListeners, block, 'non-final block');
  }

  /**
   * Test mode (`loseNextCandidate`): the shown candidate loses to another block for the same shard and
   * seqno, made without its first external message, which is forgotten (its trace never happens).
   */
  private async replaceLosingCandidate(staged: StagedTick): Promise<StagedTick> {
    const victim = staged.messages.find((m) => m.external)!;
    const tick = await this.build(staged.messages.filter((m) => m !== victim), staged.ledger, staged.rotate, staged.wallClockSeconds);
    this.warn(`test mode: the candidate ${staged.tick.shard.rootHash} lost to ${tick.shard.rootHash}; message ${victim.hash} is forgotten`);
    this.showNonFinal(tick);
    return { ...staged, tick, loses: false };
  }

  /** Test mode: the next tick's shard candidate (one with an external message) loses to another block. */
  loseNextCandidate(): void {
    this.ready();
    this.candidateLoses = true;
  }

  private async seal({ tick, ledger, rotate, mempoolThrough }: StagedTick): Promise<BlockHeader> {
    const { storage } = this.ready();
    const { sealed } = tick;
    const blocks: StoredBlock[] = [
      { header: tick.masterchain, boc: sealed.masterchain.boc, keyBlock: sealed.keyBlock, signatures: sealed.signatures },
      { header: tick.shard, boc: sealed.shard.boc, keyBlock: false, signatures: null },
    ];
    storage.writeBlock({
      blocks,
      ...(this.ledger ? {} : { zeroStates: ledger.zeroStates }),
      transactions: tick.transactions.map(toStored),
      accounts: tick.state.changes(),
      newInflight: tick.nextInflight.map((m) => ({ hash: m.hash, destination: m.destination, boc: m.cell.toBoc() })),
      consumedMempoolThrough: mempoolThrough,
      meta: { counters: formatCounters(tick.counters), [META_VALIDATORS]: JSON.stringify(sealed.epoch) },
    });
    sealed.commit();
    this.ledger = ledger;
    if (rotate) this.rotationRequested = false;
    this.commit(tick, mempoolThrough);
    return tick.masterchain;
  }

  /** Calls each listener, a throwing one reported and skipped. */
  private tell<T>(listeners: Set<(value: T) => void>, value: T, what: string): void {
    for (const listener of listeners) {
      try {
        listener(value);
      } catch (err) {
        this.warn(`a ${what} listener threw: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  private commit(tick: ProducedTick, mempoolThrough: number): void {
    this.committed.apply(tick.state);
    this.counters = tick.counters;
    this.inflight = tick.nextInflight;
    this.mempool.consumed(mempoolThrough);
    this.head = tick.masterchain;
    const committedAt = this.clock();
    for (const hash of this.shownMessages.get(tick.shard.rootHash) ?? []) {
      const timeline = this.timelines.peek(hash);
      if (timeline) timeline.committedAtMs = committedAt;
    }
    this.shownMessages.clear();
    for (const d of tick.dropped) {
      this.warn(`message ${d.message.hash} produced no transaction: ${d.reason}`);
      // only externals leave the mempool for good; a dropped internal was never pending
      if (d.message.external) {
        this.tell(this.droppedListeners, { hash: d.message.hash, boc: d.message.cell.toBoc().toString('base64'), reason: d.reason }, 'dropped-message');
      }
    }
    this.tell(this.headListeners, tick.masterchain.seqno, 'head');
  }

  /** The devnet's blocks, signatures and recent states as a liteserver serves them. */
  archive(): DevnetArchive {
    return new DevnetArchive(this.ready().storage, () => this.ledger, () => this.counters.masterchainSeqno);
  }

  /** The next masterchain block becomes a key block naming a new validator set (signed by the current one). */
  requestValidatorRotation(): void {
    this.ready();
    this.rotationRequested = true;
  }

  /** The validators that sign the next masterchain block: their epoch and public keys (hex), signing order. */
  validatorSet(): { epoch: Omit<ValidatorEpoch, 'seed'>; setHash: number; publicKeys: string[]; rotationPending: boolean } {
    this.ready();
    const epoch = this.ledger?.epoch ?? this.storedEpoch();
    const validators = this.ledger?.signingValidators ?? new DevnetValidators(epoch);
    return {
      epoch: { set: epoch.set, ccSeqno: epoch.ccSeqno },
      setHash: validators.setHash,
      publicKeys: validators.signers.map((v) => v.publicKey.toString('hex')),
      rotationPending: this.rotationRequested,
    };
  }

  async getMasterchainHead(): Promise<BlockHeader> {
    this.ready();
    if (!this.head) throw new Error('the devnet has not produced a block yet');
    return { ...this.head };
  }

  onMasterchainHead(listener: (seqno: number) => void): () => void {
    this.headListeners.add(listener);
    return () => this.headListeners.delete(listener);
  }

  async getFinalizedBlock(seqno: number): Promise<FinalizedBlock | null> {
    const { storage } = this.ready();
    if (!Number.isInteger(seqno) || seqno < 1) throw new RangeError(`invalid masterchain seqno ${seqno}`);
    if (seqno > this.counters.masterchainSeqno) return null;
    const headers = storage.blocksOfMasterchainSeqno(seqno);
    const masterchain = headers.find((h) => h.workchain === -1);
    if (!masterchain) throw new Error(`masterchain block ${seqno} is no longer available`);
    return {
      masterchain,
      shards: headers.filter((h) => h.workchain !== -1),
      transactions: storage.transactionsOfMasterchainSeqno(seqno).map(decodeStored),
    };
  }

  async getOldestAvailableSeqno(): Promise<number> {
    return this.ready().storage.oldestMasterchainSeqno() ?? 1;
  }

  async getAccountState(address: AccountId): Promise<AccountState> {
    this.ready();
    const id = parseAccountId(address);
    const snapshot = readShardAccount(this.committed.get(id));
    return {
      address: id,
      status: snapshot.status,
      balance: snapshot.balance,
      lastTxLt: snapshot.lastTxLt,
      lastTxHash: snapshot.lastTxHash,
      code: snapshot.code?.toBoc().toString('base64') ?? null,
      data: snapshot.data?.toBoc().toString('base64') ?? null,
      mcSeqno: this.counters.masterchainSeqno,
    };
  }

  async getTransactions(address: AccountId, lt: bigint, hash: HashHex, limit = MAX_TRANSACTIONS_PER_CALL): Promise<SourcedTransaction[]> {
    const { storage } = this.ready();
    const id = parseAccountId(address);
    const count = Math.max(1, Math.min(MAX_TRANSACTIONS_PER_CALL, Math.floor(limit)));
    const rows = storage.accountTransactions(id, lt, count);
    const first = rows[0];
    if (!first || first.lt !== lt || first.hash !== hash.toLowerCase()) {
      throw new Error(`transaction ${lt}:${hash} of ${id} is not on the devnet chain`);
    }
    // the account chain is linear, so walking prev links equals reading back by lt
    return rows.map(decodeStored);
  }

  async runGetMethod(address: AccountId, method: string | number, stack: TupleItem[] = []): Promise<GetMethodResult> {
    return this.runGetMethodOn(this.committed, address, method, stack);
  }

  /** Runs a get-method on the state the mempool would leave (used to pick the next wallet seqno). */
  runPendingGetMethod(address: AccountId, method: string | number, stack: TupleItem[] = []): Promise<GetMethodResult> {
    return this.runGetMethodOn(this.mempool.view(), address, method, stack);
  }

  /** The account as the mempool would leave it (committed state plus pending traces). */
  pendingAccount(address: AccountId): ReturnType<typeof readShardAccount> {
    this.ready();
    return readShardAccount(this.mempool.view().get(parseAccountId(address)));
  }

  private async runGetMethodOn(
    state: AccountReader,
    address: AccountId,
    method: string | number,
    stack: TupleItem[],
  ): Promise<GetMethodResult> {
    const { emulator } = this.ready();
    const id = parseAccountId(address);
    const run = await emulator.runGetMethod({
      shardAccount: state.get(id),
      methodId: typeof method === 'number' ? method : methodId(method),
      stack,
      now: this.now(),
      randomSeed: tickRandomSeed(this.counters.masterchainSeqno),
    });
    // no code to run: reported like tonlib does for an uninitialised account
    return run ?? { exitCode: ACCOUNT_NOT_ACTIVE_EXIT_CODE, stack: [], gasUsed: 0n };
  }

  sendExternalMessage(boc: Buffer): Promise<{ hash: HashHex }> {
    return this.exclusive(() => this.admit(boc));
  }

  private async admit(boc: Buffer): Promise<{ hash: HashHex }> {
    const { storage } = this.ready();
    const message = parseExternal(boc);
    if (this.mempool.has(message.hash)) {
      throw new ChainRejectedError(`message ${message.hash} is already in the mempool`, 'duplicate');
    }
    const onChain = storage.transactionOfInMessage(message.hash);
    if (onChain) {
      throw new ChainRejectedError(`message ${message.hash} is already on chain (transaction ${onChain})`, 'duplicate');
    }
    if (this.mempool.size >= this.mempoolLimit) {
      throw new ChainRejectedError(`the mempool is full (${this.mempoolLimit} messages); wait for the next block`, 'mempool_full');
    }
    const { trace, competing } = await this.emulateForAdmission(message);
    const pending: PendingMessage = {
      hash: message.hash,
      boc: message.cell.toBoc().toString('base64'),
      destination: message.destination,
      receivedAt: Math.floor(this.clock() / 1000),
      involvedAccounts: trace.involvedAccounts,
      opcodes: trace.opcodes,
    };
    const seq = storage.addToMempool(pending, message.cell.toBoc());
    this.timelines.set(message.hash, { admittedAtMs: this.clock(), block: null, producedAtMs: null, committedAtMs: null });
    // a competing message's effects stay out of the speculative state: at most one of them can land
    this.mempool.add({ pending, message, seq }, competing ? null : trace);
    // decoded once for every listener, and only when someone listens
    const emulated = this.pendingListeners.size > 0 ? { transactions: this.decodeEmulation(trace), truncated: trace.truncated } : undefined;
    for (const listener of this.pendingListeners) {
      try {
        listener({ ...pending, involvedAccounts: [...trace.involvedAccounts], opcodes: [...trace.opcodes], emulated });
      } catch (err) {
        this.warn(`a pending-message listener threw: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return { hash: message.hash };
  }

  /**
   * Emulates on the speculative state. A message refused there but accepted on the committed state
   * competes with a pending one (the same wallet seqno): a real liteserver checks against the committed
   * state and accepts both, and the block takes one — so the devnet admits it too, and drops the loser.
   */
  private async emulateForAdmission(message: QueuedMessage): Promise<{ trace: TraceEmulation; competing: boolean }> {
    try {
      return { trace: await this.emulateOnPending(message), competing: false };
    } catch (err) {
      if (!(err instanceof ChainRejectedError) || err.code !== 'not_accepted' || this.mempool.size === 0) throw err;
      const trace = await this.emulateOnPending(message, this.committed).catch(() => null);
      if (!trace) throw err;
      return { trace, competing: true };
    }
  }

  /** Emulates on the speculative state (or `base`); a message the destination does not accept is refused. */
  private async emulateOnPending(message: QueuedMessage, base: AccountReader = this.mempool.view()): Promise<TraceEmulation> {
    const { emulator } = this.ready();
    try {
      return await emulateTrace(emulator, base, message, {
        now: this.now(),
        lt: this.mempool.nextEmulationLt(this.counters.nextLt),
        randomSeed: tickRandomSeed(this.counters.masterchainSeqno + 1),
      });
    } catch (err) {
      if (!(err instanceof EmulationRefused)) {
        const why = err instanceof Error ? err.message : String(err);
        throw new ChainRejectedError(`the message cannot be emulated: ${why}`, 'emulation_failed');
      }
      const code = err.exitCode === null ? '' : ` (exit code ${err.exitCode})`;
      throw new ChainRejectedError(
        `account ${message.destination} did not accept the external message${code}: ${err.message}`,
        'not_accepted',
      );
    }
  }

  emulateMessage(boc: Buffer): Promise<EmulationResult> {
    return this.exclusive(async () => {
      const message = parseExternal(boc);
      const trace = await this.emulateOnPending(message);
      return { involvedAccounts: trace.involvedAccounts, transactions: this.decodeEmulation(trace) };
    });
  }

  /** An emulated trace's transactions, not on chain: located in the blocks each hop would land in. */
  private decodeEmulation(trace: TraceEmulation): TransactionModel[] {
    const head = this.counters.masterchainSeqno;
    return trace.transactions.map((tx) =>
      decodeTransaction(tx.cell, {
        block: { workchain: tx.workchain, shard: FULL_SHARD, seqno: head + 1 + tx.hop },
        mcSeqno: head + 1 + tx.hop,
      }),
    );
  }

  async getPendingMessages(): Promise<PendingMessage[]> {
    this.ready();
    return this.mempool.list();
  }

  /** When an external message this process admitted was admitted, put in a block and committed; null when unknown. */
  messageTimeline(hash: HashHex): MessageTimeline | null {
    const t = this.timelines.peek(hash.toLowerCase());
    return t ? { ...t, block: t.block && { ...t.block } } : null;
  }

  onPendingMessage(listener: (message: PendingMessage) => void): () => void {
    this.pendingListeners.add(listener);
    return () => this.pendingListeners.delete(listener);
  }

  onNonFinalBlock(listener: (block: NonFinalBlock) => void): () => void {
    this.nonFinalListeners.add(listener);
    return () => this.nonFinalListeners.delete(listener);
  }

  onMessageDropped(listener: (message: DroppedMessage) => void): () => void {
    this.droppedListeners.add(listener);
    return () => this.droppedListeners.delete(listener);
  }

  /** Number of internal messages waiting for the next block (traces still in flight). */
  get inflightCount(): number {
    return this.inflight.length;
  }

  get mempoolSize(): number {
    return this.mempool.size;
  }

  /** Meta values other devnet modules keep in the chain's storage (e.g. genesis progress). */
  identity(): ChainIdentity {
    return { network: 'devnet', id: this.ready().storage.getMeta(META_CHAIN_ID)! };
  }

  getMeta(key: string): string | null {
    return this.ready().storage.getMeta(key);
  }

  setMeta(key: string, value: string): void {
    this.ready().storage.setMeta(key, value);
  }

  /** Writes accounts that exist from the zero state; only before the first block. */
  writeZeroState(accounts: Array<[AccountId, string]>): void {
    const { storage } = this.ready();
    if (this.counters.masterchainSeqno > 0) throw new Error('the zero state can only be written before block 1');
    for (const [id, shardAccount] of accounts) this.committed.set(id, shardAccount);
    storage.writeZeroState(accounts, {});
  }

  get masterchainSeqno(): number {
    return this.counters.masterchainSeqno;
  }
}

/** What runGetMethod reports for an account that has no code (not active). */
export const ACCOUNT_NOT_ACTIVE_EXIT_CODE = -256;
