// The liteserver ChainSource: a real network followed through untrusted liteservers. The trust level
// (HeadTrust) decides which masterchain head is believed; every block below it is proven from it by a
// backward link (the head's prev_blocks), then walked by hashes (walk.ts); account states, histories and
// config are proven against the head; get-methods and emulation run locally on proven inputs (tvm.ts).
// A reply that fails a check demotes its server (counted) and the call goes to another.
import { beginCell, loadTransaction, storeMessage, type Account, type Cell, type TupleItem } from '@ton/core';
import { LRUCache } from 'lru-cache';
import { accountToAddress, addressToRaw } from '../address.js';
import { decodeTransaction } from '../decode/transaction.js';
import { methodId } from '../method-id.js';
import type { AccountId, AccountState, BlockHeader, FinalizedBlock, HashHex, PendingMessage, SourcedTransaction, TransactionModel } from '../model.js';
import { ChainRejectedError, MAX_TRANSACTIONS_PER_CALL, type ChainIdentity, type ChainSource, type EmulationResult, type GetMethodResult, type NonFinalBlock } from '../source.js';
import { NonFinalPoller, type NonFinalStatus } from './nonfinal.js';
import { BelievedHead } from './believed-head.js';
import type { GlobalConfig } from './config.js';
import { Outbox, parseExternalMessage, type ExternalMessage } from './outbox.js';
import { HeardMessages, pendingOf, type HeardStatus } from './heard.js';
import { OverlayListener, type OverlayLimits, type OverlayStatus } from '../overlay/listener.js';
import { ProvenReads } from './proven.js';
import type { ProvenAccountState } from './trust/account.js';
import { LiteErrorCode, LiteServerError } from './tl/envelope.js';
import type { BlockIdExt } from './tl/lite-api.js';
import { LitePool, LitePoolUnavailableError, type LitePoolOptions, type PoolStatus } from './transport/pool.js';
import type { QueryRecorder } from './transport/types.js';
import { FastTrust, type TrustLog } from './trust/fast.js';
import type { HeadTrust, TrustStatus } from './trust/head-trust.js';
import { hashHex } from './trust/merkle.js';
import { accountParts, LocalTvm, MissingLibraryError, parseAccount } from './tvm.js';
import { BlockWalker, type TrustedMasterchain } from './walk.js';

const MC_SHARD = -(1n << 63n);
/** Transactions one emulation may run (a wallet's message and the trace it starts). */
const MAX_EMULATED_TRANSACTIONS = 32;
/** An account as an emulation runs it: its state and its last transaction. */
type EmulatedAccount = { account: Account | null; last: { lt: bigint; hash: Buffer } };
/** Proven account states kept for the emulations of one head (and wallets' states after their pending messages). */
const MAX_EMULATION_STATES = 1024;
/** Libraries a get-method may ask for at run time before it is given up. */
const MAX_RUNTIME_LIBRARIES = 8;
export type RealNetwork = 'mainnet' | 'testnet';

export interface LiteserverChainOptions {
  /** Liteservers and the trust anchor (zero state, init block) of the network. */
  config: GlobalConfig;
  /** Which network the anchor is (`networkOf(config.anchor)` for the official ones). */
  network: RealNetwork;
  /** `fast`, or a level built on the pool (e.g. `secure`). */
  trust: 'fast' | HeadTrust | ((pool: LitePool, log: TrustLog) => HeadTrust);
  /** Floor of getOldestAvailableSeqno (default 2: block 1 cannot be walked); where the follower starts is its own setting. */
  startSeqno?: number;
  record?: QueryRecorder;
  /**
   * How to reach each configured server instead of ADNL over TCP: an in-process handler
   * (`InProcessTransport`), a recorded session (`ReplayTransport`).
   */
  transport?: LitePoolOptions['connect'];
  log?: TrustLog;
  poolOptions?: Partial<LitePoolOptions>;
  /** How long getMasterchainHead waits for the first believed head before it throws (default 15 s). */
  headWaitMs?: number;
  /** How long a sent message counts as pending when no block shows it (default 10 min). */
  pendingTtlMs?: number;
  /** Servers a message is sent to (default 3). */
  sendFanout?: number;
  /** How often non-final shard blocks are asked for while someone listens (default 250 ms). */
  nonFinalPollMs?: number;
  /** Joins the public overlay of workchain 0 and hears external messages as pending (src/chain/overlay/). */
  overlay?: { publicAddress: { host: string; port: number }; listen: { host: string; port: number }; limits?: Partial<OverlayLimits> };
}

/** The overlay listener's report: null when not configured. */
export type LiteserverOverlayStatus = (OverlayStatus & { pending: HeardStatus }) | null;

/** What `/readyz`, `/metrics` and `tonwatch chain info` show; see index.ts. */
export interface LiteserverStatus {
  network: RealNetwork;
  trust: TrustStatus;
  pool: PoolStatus;
  /** The believed masterchain head with its proven header, or null before the first. */
  head: BlockHeader | null;
  /** How far the believed head is behind the newest head any server reports. */
  lagBlocks: number | null;
  /** Seconds between the believed head's gen_utime and now. */
  lagSeconds: number | null;
  /** Disproven replies per server (host:port), since start. */
  disproven: Record<string, number>;
  /** The newest masterchain block walked (returned by getFinalizedBlock). */
  walkedSeqno: number | null;
  /** Why the source cannot serve now (no server, no believed head, an alarm), or null. */
  waiting: string | null;
  /** Non-final shard blocks (liteServer.nonfinal.getPendingShardBlocks): served by the pool, or finalized only. */
  nonFinal: NonFinalStatus;
  overlay: LiteserverOverlayStatus;
}


export class LiteserverChain implements ChainSource {
  readonly network: RealNetwork;
  private pool: LitePool | null = null;
  private trust: HeadTrust | null = null;
  private reads: ProvenReads | null = null;
  private heads: BelievedHead | null = null;
  private walker: BlockWalker | null = null;
  private nonFinal: NonFinalPoller | null = null;
  private readonly tvm = new LocalTvm();
  private readonly outbox: Outbox;
  private overlay: OverlayListener | null = null;
  private heard: HeardMessages | null = null;
  private readonly headListeners = new Set<(seqno: number) => void>();
  private lastWalked: TrustedMasterchain | null = null;
  private oldest: { seqno: number; at: number } | null = null;
  private stopped = false;
  private emulationStates = { seqno: -1, accounts: new LRUCache<string, Promise<ProvenAccountState>>({ max: MAX_EMULATION_STATES }) };
  /** Each wallet's state after the last pending message of it that emulated: its next message runs on it. */
  private readonly pendingStates = new LRUCache<string, EmulatedAccount>({ max: MAX_EMULATION_STATES });

  constructor(private readonly options: LiteserverChainOptions) {
    if (options.config.liteservers.length === 0) throw new Error('the liteserver config lists no liteservers');
    this.network = options.network;
    this.outbox = new Outbox(options.pendingTtlMs ?? 10 * 60_000);
  }

  identity(): ChainIdentity {
    return { network: this.network, id: hashHex(this.options.config.anchor.zeroState.rootHash) };
  }

  async start(): Promise<void> {
    if (this.pool) return;
    const log = this.options.log ?? (() => {});
    const pool = new LitePool({
      queryTimeoutMs: 10_000,
      ...this.options.poolOptions,
      servers: this.options.config.liteservers,
      record: this.options.record ?? this.options.poolOptions?.record,
      connect: this.options.transport ?? this.options.poolOptions?.connect,
      onEvent: (e) => {
        if (e.type === 'head' || e.type === 'connected') this.heads?.offer(e.server);
        // The one place demotions are logged, whoever demoted (the walk, proven reads, the trust level).
        if (e.type === 'demoted') log('warn', `liteserver ${e.server} demoted (${e.cause}): ${e.reason}`, { server: e.server, cause: e.cause, reason: e.reason });
        if (e.type === 'failure') log('debug', `liteserver ${e.server}: ${e.method} failed: ${e.reason}`, { server: e.server, method: e.method });
        this.options.poolOptions?.onEvent?.(e);
      },
    });
    this.pool = pool;
    this.nonFinal = new NonFinalPoller(pool, this.options.nonFinalPollMs ?? 250, (message) => log('warn', message, {}));
    const trust = this.options.trust;
    this.trust = trust === 'fast' ? new FastTrust({ pool, log }) : typeof trust === 'function' ? trust(pool, log) : trust;
    this.reads = new ProvenReads(pool);
    this.walker = new BlockWalker(pool);
    await this.trust.start();
    this.heads = new BelievedHead(pool, this.trust, this.reads, (seqno) => this.publish(seqno), log);
    // Heads the pool learned while the level started; later ones come with the pool's events.
    for (const s of pool.status().servers) if (s.head) this.heads.offer(s.server);
    if (this.options.overlay) await this.startOverlay(this.options.overlay);
  }

  private async startOverlay(settings: NonNullable<LiteserverChainOptions['overlay']>): Promise<void> {
    const memory = settings.limits?.memoryBytes ?? 64 << 20;
    // a pending message waiting for emulation holds its BoC (≤ 64 KiB, mostly < 1 KiB): a quarter of the bound
    const heard = new HeardMessages(this.outbox, (msg, deadline) => this.emulate(msg, deadline, true), {
      maxQueued: Math.max(100, Math.floor(memory / 4 / 4096)), concurrency: 4, maxTracked: 100_000, emulationBudgetMs: 200,
    });
    this.heard = heard;
    // the first emulation would otherwise wait for the TVM to compile
    this.tvm.warm();
    this.overlay = await OverlayListener.start({
      ...settings, dht: this.options.config.dht, zeroStateFileHash: this.options.config.anchor.zeroState.fileHash,
      onExternalMessage: (m) => heard.hear(m.boc, m.receivedAt),
      log: (level, msg, fields) => this.options.log?.(level, msg, fields),
    });
  }

  async stop(): Promise<void> {
    if (this.stopped || !this.pool) return;
    this.stopped = true;
    this.nonFinal?.stop();
    await this.overlay?.stop();
    await this.pool.close();
    await this.heads?.stop();
  }

  status(): LiteserverStatus {
    const pool = this.pool?.status() ?? { ready: false, reason: 'the liteserver source is not started', servers: [] };
    const trust = this.trust?.status() ?? { level: 'fast', head: null, keyBlock: null, progress: null, waiting: 'not started', alarm: null };
    const best = this.pool?.headSeqno;
    const head = this.heads?.header ?? null;
    return {
      network: this.network,
      trust,
      pool,
      head,
      lagBlocks: head && best !== undefined ? Math.max(0, best - head.seqno) : null,
      lagSeconds: head ? Math.max(0, Math.round(Date.now() / 1000 - head.genUtime)) : null,
      disproven: Object.fromEntries(pool.servers.map((s) => [s.server, s.disproven])),
      walkedSeqno: this.lastWalked?.id.seqno ?? null,
      waiting: this.waitingReason(),
      nonFinal: this.nonFinal?.status() ?? { state: 'unknown', reason: null, shown: 0, disproven: 0 },
      overlay: this.overlay && this.heard ? { ...this.overlay.status(), pending: this.heard.status() } : null,
    };
  }

  async getMasterchainHead(): Promise<BlockHeader> {
    const heads = this.started().heads;
    if (heads.alarm) throw new Error(heads.alarm);
    if (!heads.header) await heads.wait(this.options.headWaitMs ?? 15_000);
    if (heads.alarm) throw new Error(heads.alarm);
    if (!heads.header) throw new Error(`no masterchain head is believed yet: ${this.waitingReason() ?? 'waiting for liteservers'}`);
    return heads.header;
  }

  onMasterchainHead(listener: (seqno: number) => void): () => void {
    this.headListeners.add(listener);
    return () => this.headListeners.delete(listener);
  }

  async getFinalizedBlock(seqno: number): Promise<FinalizedBlock | null> {
    const { reads, walker } = this.started();
    const head = this.believedHead();
    if (!head || seqno > head.seqno) return null;
    if (seqno < 1) throw new Error(`masterchain block ${seqno} does not exist`);
    const id = await reads.masterchainId(seqno, head);
    const prev = this.lastWalked?.id.seqno === seqno - 1 ? this.lastWalked : await this.trustedMasterchain(seqno - 1, head);
    const walked = await walker.getFinalizedBlock(seqno, prev, id);
    if (!walked) return null;
    this.lastWalked = walked.trusted;
    this.heard?.landed(walked.block.transactions);
    this.outbox.landed(walked.block.transactions);
    return walked.block;
  }

  /**
   * The oldest block whose walk the servers can serve: one above the oldest masterchain block any server
   * still has (the walk starts from the block before), found by binary search with lookupBlock; cached 10 min.
   */
  async getOldestAvailableSeqno(): Promise<number> {
    if (this.oldest && Date.now() - this.oldest.at < 10 * 60_000) return this.oldest.seqno;
    const head = (await this.getMasterchainHead()).seqno;
    const pool = this.started().pool.status();
    if (!pool.ready) throw new Error(`cannot search for the oldest available block: ${pool.reason}`);
    const floor = Math.max(1, (this.options.startSeqno ?? 2) - 1);
    let lo = floor, hi = head; // invariant: hi is available
    if (await this.available(lo)) hi = lo;
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (await this.available(mid)) hi = mid;
      else lo = mid;
    }
    const seqno = Math.min(head, hi + 1);
    this.oldest = { seqno, at: Date.now() };
    return seqno;
  }

  async getAccountState(address: AccountId, mcSeqno?: number): Promise<AccountState> {
    const { reads } = this.started();
    const head = this.requireHead();
    if (mcSeqno !== undefined && mcSeqno > head.seqno) throw new Error(`masterchain block ${mcSeqno} is above the believed head ${head.seqno}`);
    const at = mcSeqno === undefined ? head : await reads.masterchainId(mcSeqno, head);
    const proven = await reads.account(address, at);
    if (proven.kind === 'absent') {
      return { address, status: 'nonexist', balance: 0n, lastTxLt: 0n, lastTxHash: '0'.repeat(64), code: null, data: null, mcSeqno: at.seqno };
    }
    const { status, balance, code, data } = accountParts(proven.state);
    return {
      address,
      status,
      balance,
      lastTxLt: proven.lastTransLt,
      lastTxHash: proven.lastTransHash,
      code: code ? code.toBoc().toString('base64') : null,
      data: data ? data.toBoc().toString('base64') : null,
      mcSeqno: at.seqno,
    };
  }

  /**
   * Config params at the believed head (or at `mcSeqno`, proven from it): each param's cell (`^Cell` value of
   * `ConfigParams`), null when the proof shows it absent. Not part of ChainSource: the network profile reads
   * param 4 (the DNS root) through it.
   */
  async getConfigParams(params: number[], mcSeqno?: number): Promise<Map<number, Cell | null>> {
    const { reads } = this.started();
    const head = this.requireHead();
    const at = mcSeqno === undefined ? head : await reads.masterchainId(mcSeqno, head);
    return reads.configParams(at, params);
  }

  async getTransactions(address: AccountId, lt: bigint, hash: HashHex, limit = MAX_TRANSACTIONS_PER_CALL): Promise<SourcedTransaction[]> {
    const count = Math.max(1, Math.min(limit, MAX_TRANSACTIONS_PER_CALL));
    return this.started().reads.transactions(address, { lt, hash: hash.toLowerCase() }, count, this.requireHead());
  }

  async runGetMethod(address: AccountId, method: string | number, stack: TupleItem[] = []): Promise<GetMethodResult> {
    const { reads } = this.started();
    const head = this.requireHead();
    const proven = await reads.account(address, head);
    const account = proven.kind === 'exists' ? parseAccount(proven.state) : null;
    if (!account) throw new Error(`account ${address} does not exist at masterchain block ${head.seqno}`);
    const libraries: Buffer[] = [];
    for (;;) {
      const ctx = await reads.tvmContext(head, this.heads!.header!, codeAndData(account), libraries);
      try {
        return await this.tvm.runGetMethod(account, typeof method === 'number' ? method : methodId(method), stack, ctx);
      } catch (err) {
        // A library reached only at run time (e.g. loaded by hash from data): fetch it, proven, and run again.
        if (!(err instanceof MissingLibraryError) || libraries.length >= MAX_RUNTIME_LIBRARIES || libraries.some((h) => h.equals(err.hash))) throw err;
        libraries.push(err.hash);
      }
    }
  }

  async emulateMessage(boc: Buffer): Promise<EmulationResult> {
    const { transactions, accounts } = await this.emulate(parseExternalMessage(boc));
    return { involvedAccounts: accounts, transactions };
  }

  /**
   * A proven account state at the head, shared by the emulations of one head: a wallet's burst of messages
   * (an exchange's payouts) reads its state once, not once per message.
   */
  private accountForEmulation(address: AccountId, head: BlockIdExt): Promise<ProvenAccountState> {
    if (this.emulationStates.seqno !== head.seqno) this.emulationStates = { seqno: head.seqno, accounts: new LRUCache({ max: MAX_EMULATION_STATES }) };
    const states = this.emulationStates.accounts;
    let state = states.peek(address);
    if (!state) {
      state = this.started().reads.account(address, head);
      states.set(address, state);
      // a failed read is not kept: the next message asks again
      void state.catch(() => states.peek(address) === state && states.delete(address));
    }
    return state;
  }

  /**
   * Runs the message and the internal messages it causes on proven states at the head, hop by hop (at most
   * MAX_EMULATED_TRANSACTIONS, and none started after `deadline`, ms); as on the devnet, only the root
   * decides: a later message that cannot run ends its branch. Accounts: those of the transactions and the
   * destinations of the messages left unrun or that could not run (the message still reaches them). A `pending` message (sent or heard) that its destination refuses
   * on the proven state runs again on the state the destination's earlier pending message left, as the
   * devnet's mempool does: a wallet's burst (seqno n, n+1, … within a block) emulates message by message.
   */
  private async emulate(root: ExternalMessage, deadline = Infinity, pending = false): Promise<{ transactions: TransactionModel[]; opcodes: number[]; truncated: boolean; accounts: string[] }> {
    const { reads } = this.started();
    const head = this.requireHead();
    const header = this.heads!.header!;
    const accounts = new Map<string, EmulatedAccount>();
    const queue: { cell: Cell; to: string }[] = [{ cell: root.cell, to: root.destination }];
    const transactions: TransactionModel[] = [];
    /** Destinations whose message could not run here: the message still goes to them. */
    const refused: string[] = [];
    while (queue.length > 0 && transactions.length < MAX_EMULATED_TRANSACTIONS && (transactions.length === 0 || Date.now() < deadline)) {
      const { cell, to } = queue.shift()!;
      let entry = accounts.get(to);
      if (!entry) {
        const read = this.accountForEmulation(to, head);
        // past the root, a hop whose state is not read by the deadline is left unrun (its account still named)
        const proven = transactions.length === 0 ? await read : await beforeDeadline(read, deadline);
        if (proven === undefined) {
          queue.unshift({ cell, to });
          break;
        }
        entry = proven.kind === 'exists'
          ? { account: parseAccount(proven.state), last: { lt: proven.lastTransLt, hash: Buffer.from(proven.lastTransHash, 'hex') } }
          : { account: null, last: { lt: 0n, hash: Buffer.alloc(32) } };
      }
      const ctx = { ...(await reads.tvmContext(head, header, entry.account ? codeAndData(entry.account) : [])), lt: header.endLt + 1_000n * BigInt(transactions.length + 1) };
      let run;
      let lt = ctx.lt;
      try {
        run = await this.tvm.runTransaction(accountToAddress(to), entry.account, entry.last, cell, ctx);
      } catch (err) {
        const earlier = pending && transactions.length === 0 ? this.pendingStates.peek(to) : undefined;
        if (earlier) {
          lt = ctx.lt > earlier.last.lt ? ctx.lt : earlier.last.lt + 1_000n;
          run = await this.tvm.runTransaction(accountToAddress(to), earlier.account, earlier.last, cell, { ...ctx, lt }).catch(() => undefined);
        }
        if (!run && transactions.length === 0) throw new ChainRejectedError(`the message cannot be emulated: ${(err as Error).message}`, 'emulation_failed');
        if (!run) {
          refused.push(to);
          continue;
        }
      }
      const after: EmulatedAccount = { account: run.account, last: { lt, hash: run.transaction.hash() } };
      accounts.set(to, after);
      if (pending && transactions.length === 0) {
        this.pendingStates.set(to, after);
      }
      transactions.push(decodeTransaction(run.transaction, { block: { workchain: Number(to.split(':')[0]), shard: '8000000000000000', seqno: 0 }, mcSeqno: head.seqno }));
      for (const out of loadTransaction(run.transaction.beginParse()).outMessages.values()) {
        if (out.info.type === 'internal') queue.push({ cell: beginCell().store(storeMessage(out)).endCell(), to: addressToRaw(out.info.dest) });
      }
    }
    const opcodes = new Set<number>();
    for (const m of [transactions[0]?.inMessage, ...transactions.flatMap((t) => t.outMessages)]) if (m && m.opcode !== null) opcodes.add(m.opcode);
    // messages still queued: the trace went on past the limit or the deadline; their destinations are involved too
    const involved = [...new Set([...transactions.map((t) => t.account), ...refused, ...queue.map((m) => m.to)])].sort();
    return { transactions, opcodes: [...opcodes].sort((x, y) => x - y), truncated: queue.length > 0, accounts: involved };
  }

  async sendExternalMessage(boc: Buffer): Promise<{ hash: HashHex }> {
    const msg = parseExternalMessage(boc);
    if (this.outbox.has(msg.hash)) throw new ChainRejectedError(`message ${msg.hash} was sent already and is pending`, 'duplicate');
    const { pool } = this.started();
    const fanout = this.options.sendFanout ?? 3;
    const reached: string[] = [];
    for (let i = 0; i < fanout; i++) {
      try {
        reached.push((await pool.queryWithServer('sendMessage', { body: msg.cell.toBoc() }, { exclude: reached })).server);
      } catch (err) {
        // The first server's refusal is the answer; after one took it, fewer copies are enough.
        if (reached.length > 0) break;
        if (err instanceof LiteServerError) throw new ChainRejectedError(`the liteserver refused the message: ${err.message}`, 'rejected');
        if (err instanceof LitePoolUnavailableError) throw new Error(`no liteserver could take the message: ${err.message}`);
        throw err;
      }
    }
    // The accounts and opcodes of its trace, for filtered mempool streams; the validators decide, not this.
    const trace = await this.emulate(msg, Infinity, true).catch(() => null);
    this.outbox.add(pendingOf(msg, trace, Date.now()));
    this.options.log?.('info', 'external message sent', { hash: msg.hash, servers: reached });
    return { hash: msg.hash };
  }

  async getPendingMessages(): Promise<PendingMessage[]> {
    return this.outbox.list();
  }

  onPendingMessage(listener: (message: PendingMessage) => void): () => void {
    return this.outbox.subscribe(listener);
  }

  /** Shard blocks the servers show before the masterchain commits them, each checked against its id. */
  onNonFinalBlock(listener: (block: NonFinalBlock) => void): () => void {
    // a heard message this block holds is published first: its pending event precedes the confirmed ones
    return this.started().nonFinal.subscribe((block) => {
      this.heard?.inBlock(block.transactions);
      listener(block);
    });
  }

  /** Whether confirmed blocks come from this source: null until a server answered, false when the servers refuse. */
  nonFinalSupported(): boolean | null {
    const state = this.nonFinal?.status().state ?? 'unknown';
    return state === 'unknown' ? null : state === 'supported';
  }

  private publish(seqno: number): void {
    // heard messages are emulated at the newest head: its proven config is read now, not by the first of them
    const heads = this.heads;
    if (this.heard && heads?.id && heads.header && !heads.alarm) void this.reads?.tvmContext(heads.id, heads.header, []).catch(() => {});
    for (const l of [...this.headListeners]) {
      try {
        l(seqno);
      } catch {
        // a listener's failure must not stop the others
      }
    }
  }

  private started(): { pool: LitePool; reads: ProvenReads; heads: BelievedHead; walker: BlockWalker; nonFinal: NonFinalPoller } {
    if (!this.pool || !this.reads || !this.heads || !this.walker || !this.nonFinal) throw new Error('the liteserver source is not started');
    return { pool: this.pool, reads: this.reads, heads: this.heads, walker: this.walker, nonFinal: this.nonFinal };
  }

  private believedHead(): BlockIdExt | null {
    const heads = this.started().heads;
    if (heads.alarm) throw new Error(heads.alarm);
    return heads.id;
  }

  private requireHead(): BlockIdExt {
    const head = this.believedHead();
    if (!head) throw new Error(`no masterchain head is believed yet: ${this.waitingReason() ?? 'waiting for liteservers'}`);
    return head;
  }

  private waitingReason(): string | null {
    if (this.heads?.alarm) return this.heads.alarm;
    if (!this.pool) return 'the liteserver source is not started';
    const pool = this.pool.status();
    if (!pool.ready) return pool.reason ?? 'no liteserver is ready';
    const trust = this.trust?.status();
    if (trust?.waiting) return trust.waiting;
    if (this.heads?.id) return null;
    return trust?.head ? `masterchain block ${trust.head.seqno} is believed; its header is being proven` : 'no masterchain head is believed yet';
  }

  /** A proven masterchain block with its shard tops: the start of a walk. */
  private async trustedMasterchain(seqno: number, head: BlockIdExt): Promise<TrustedMasterchain> {
    if (seqno < 1) throw new Error('the walk starts above masterchain block 1 (block 0 is the zero state); start at seqno 2 or later');
    const { reads, walker } = this.started();
    return walker.trusted(await reads.masterchainId(seqno, head));
  }

  /**
   * Whether some server still has masterchain block `seqno`. Gone only when servers answered and every one
   * said "not in db" (651); no server reachable, or one failing otherwise, is an outage: it throws, so the
   * search fails rather than taking a dead network for pruned history.
   */
  private async available(seqno: number): Promise<boolean> {
    try {
      await this.started().pool.query('lookupBlock', { mode: 1, id: { workchain: -1, shard: MC_SHARD, seqno } }, { minSeqno: seqno });
      return true;
    } catch (err) {
      const gone = (e: unknown) => e instanceof LiteServerError && e.code === LiteErrorCode.notReady;
      if (gone(err)) return false;
      if (err instanceof LitePoolUnavailableError && err.failures.length > 0 && err.failures.every((f) => gone(f.error))) return false;
      throw new Error(`the search for the oldest available block stopped at masterchain block ${seqno}: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** The cells a get-method or transaction runs on (libraries are looked up in them). */
function codeAndData(account: Account): Cell[] {
  const st = account.storage.state;
  return st.type === 'active' ? [st.state.code, st.state.data].filter((c): c is Cell => !!c) : [];
}

/** The promise's value, or undefined once `deadline` (ms since the epoch) passes first. */
async function beforeDeadline<T>(promise: Promise<T>, deadline: number): Promise<T | undefined> {
  if (deadline === Infinity) return promise;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()))));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
