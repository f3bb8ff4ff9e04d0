// The liteserver ChainSource: a real network followed through untrusted liteservers. The trust level
// (HeadTrust) decides which masterchain head is believed; every block below it is proven from it by a
// backward link (the head's prev_blocks), then walked by hashes (walk.ts); account states, histories and
// config are proven against the head; get-methods and emulation run locally on proven inputs (tvm.ts).
// A reply that fails a check demotes its server (counted) and the call goes to another.
import { beginCell, Cell, crc16, loadTransaction, storeMessage, type TupleItem } from '@ton/core';
import { accountToAddress, addressToRaw } from '../address.js';
import { decodeTransaction } from '../decode/transaction.js';
import type { AccountId, AccountState, BlockHeader, FinalizedBlock, HashHex, PendingMessage, SourcedTransaction, TransactionModel } from '../model.js';
import { ChainRejectedError, MAX_TRANSACTIONS_PER_CALL, type ChainIdentity, type ChainSource, type EmulationResult, type GetMethodResult } from '../source.js';
import type { GlobalConfig } from './config.js';
import { Outbox, parseExternalMessage } from './outbox.js';
import { LiteErrorCode, LiteServerError } from './tl/envelope.js';
import type { BlockIdExt, LiteMethodName, RequestOf, ResponseOf } from './tl/lite-api.js';
import { LitePool, LitePoolUnavailableError, type LitePoolOptions, type PoolEvent, type PoolQueryOptions, type PoolStatus } from './transport/pool.js';
import type { QueryRecorder } from './transport/types.js';
import { checkAccountState, type ProvenAccountState } from './trust/account.js';
import { checkBackwardLink } from './trust/backward-link.js';
import { describeBlock, shardIdHex } from './trust/block-ref.js';
import { checkBlockHeaderProof } from './trust/blocks.js';
import { checkConfigAll } from './trust/config-all.js';
import { ProofError } from './trust/errors.js';
import { FastTrust, type TrustLog } from './trust/fast.js';
import type { HeadTrust, TrustStatus } from './trust/head-trust.js';
import { hashHex } from './trust/merkle.js';
import { checkTransactionHistory } from './trust/transactions.js';
import { LocalTvm, librariesDict, libraryHashes, parseAccount, type TvmContext } from './tvm.js';
import { BlockWalker, type TrustedMasterchain } from './walk.js';

const MC_SHARD = -(1n << 63n);
/** Transactions one emulation may run (a wallet's message and the trace it starts). */
const MAX_EMULATED_TRANSACTIONS = 32;
/** Proven history links remembered per source (getTransactions continues pages from them). */
const MAX_KNOWN_LINKS = 100_000;

export type RealNetwork = 'mainnet' | 'testnet';

export interface LiteserverChainOptions {
  /** Liteservers and the trust anchor (zero state, init block) of the network. */
  config: GlobalConfig;
  /** Which network the anchor is (`networkOf(config.anchor)` for the official ones). */
  network: RealNetwork;
  /** `fast`, or a level built on the pool (e.g. `secure`). */
  trust: 'fast' | HeadTrust | ((pool: LitePool, log: TrustLog) => HeadTrust);
  /** First masterchain block a follower with no cursor reads (else the head); also the floor of getOldestAvailableSeqno. */
  startSeqno?: number;
  record?: QueryRecorder;
  log?: TrustLog;
  poolOptions?: Partial<LitePoolOptions>;
  /** How long getMasterchainHead waits for the first believed head before it throws (default 15 s). */
  headWaitMs?: number;
  /** How long a sent message counts as pending when no block shows it (default 10 min). */
  pendingTtlMs?: number;
  /** Servers a message is sent to (default 3). */
  sendFanout?: number;
}

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
}

/** getMethod ids: numbers as given, names as the TVM's `method_id` (crc16 | 0x10000). */
export function methodId(method: string | number): number {
  return typeof method === 'number' ? method : (crc16(Buffer.from(method)).readUInt16BE(0) & 0xffff) | 0x10000;
}

export class LiteserverChain implements ChainSource {
  readonly network: RealNetwork;
  private pool: LitePool | null = null;
  private trust: HeadTrust | null = null;
  private walker: BlockWalker | null = null;
  private readonly tvm = new LocalTvm();
  private readonly outbox: Outbox;
  private readonly headListeners = new Set<(seqno: number) => void>();
  private readonly headWaiters = new Set<() => void>();
  private head: { id: BlockIdExt; header: BlockHeader } | null = null;
  private offers: Promise<void> = Promise.resolve();
  private lastWalked: TrustedMasterchain | null = null;
  private oldest: { seqno: number; at: number } | null = null;
  private config: { seqno: number; ctx: Promise<string> } | null = null;
  /** `account:lt:hash` of transactions proven to be in an account's history. */
  private readonly knownLinks = new Set<string>();
  private alarm: string | null = null;
  private stopped = false;

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
      onEvent: (e) => {
        this.onPoolEvent(e);
        this.options.poolOptions?.onEvent?.(e);
      },
    });
    this.pool = pool;
    const trust = this.options.trust;
    this.trust = trust === 'fast' ? new FastTrust({ pool, log }) : typeof trust === 'function' ? trust(pool, log) : trust;
    this.walker = new BlockWalker(pool);
    await this.trust.start();
    // Heads the pool learned while the level started.
    for (const s of pool.status().servers) if (s.head) this.offer(s.server);
  }

  async stop(): Promise<void> {
    if (this.stopped || !this.pool) return;
    this.stopped = true;
    for (const wake of [...this.headWaiters]) wake();
    await this.pool.close();
    await this.offers.catch(() => {});
  }

  status(): LiteserverStatus {
    const pool = this.pool?.status() ?? { ready: false, reason: 'the liteserver source is not started', servers: [] };
    const trust = this.trust?.status() ?? { level: 'fast', head: null, keyBlock: null, progress: null, waiting: 'not started', alarm: null };
    const best = this.pool?.headSeqno;
    const head = this.head?.header ?? null;
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
    };
  }

  async getMasterchainHead(): Promise<BlockHeader> {
    if (this.alarm) throw new Error(this.alarm);
    if (!this.head) await this.waitHead(this.options.headWaitMs ?? 15_000);
    if (!this.head) throw new Error(`no masterchain head is believed yet: ${this.waitingReason() ?? 'waiting for liteservers'}`);
    return this.head.header;
  }

  onMasterchainHead(listener: (seqno: number) => void): () => void {
    this.headListeners.add(listener);
    return () => this.headListeners.delete(listener);
  }

  async getFinalizedBlock(seqno: number): Promise<FinalizedBlock | null> {
    const head = this.believedHead();
    if (!head || seqno > head.seqno) return null;
    if (seqno < 1) throw new Error(`masterchain block ${seqno} does not exist`);
    const id = await this.provenMcId(seqno, head);
    const prev = this.lastWalked?.id.seqno === seqno - 1 ? this.lastWalked : await this.trustedMasterchain(seqno - 1, head);
    const walked = await this.walker!.getFinalizedBlock(seqno, prev, id);
    if (!walked) return null;
    this.lastWalked = walked.trusted;
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
    const pool = this.requirePool().status();
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
    const head = this.requireHead();
    if (mcSeqno !== undefined && mcSeqno > head.seqno) throw new Error(`masterchain block ${mcSeqno} is above the believed head ${head.seqno}`);
    const at = mcSeqno === undefined || mcSeqno === head.seqno ? head : await this.provenMcId(mcSeqno, head);
    const proven = await this.provenAccount(address, at);
    if (proven.kind === 'absent') {
      return { address, status: 'nonexist', balance: 0n, lastTxLt: 0n, lastTxHash: '0'.repeat(64), code: null, data: null, mcSeqno: at.seqno };
    }
    const account = parseAccount(proven.state);
    const state = account?.storage.state;
    const active = state?.type === 'active' ? state.state : null;
    return {
      address,
      status: !account ? 'nonexist' : state!.type === 'active' ? 'active' : state!.type === 'frozen' ? 'frozen' : 'uninit',
      balance: account?.storage.balance.coins ?? 0n,
      lastTxLt: proven.lastTransLt,
      lastTxHash: proven.lastTransHash,
      code: active?.code ? active.code.toBoc().toString('base64') : null,
      data: active?.data ? active.data.toBoc().toString('base64') : null,
      mcSeqno: at.seqno,
    };
  }

  async getTransactions(address: AccountId, lt: bigint, hash: HashHex, limit = MAX_TRANSACTIONS_PER_CALL): Promise<SourcedTransaction[]> {
    const count = Math.max(1, Math.min(limit, MAX_TRANSACTIONS_PER_CALL));
    const head = this.requireHead();
    const start = { lt, hash: hash.toLowerCase() };
    if (!this.knownLinks.has(linkKey(address, start))) await this.anchorHistory(address, start, head);
    return this.historyPage(address, start, count, head);
  }

  async runGetMethod(address: AccountId, method: string | number, stack: TupleItem[] = []): Promise<GetMethodResult> {
    const head = this.requireHead();
    const proven = await this.provenAccount(address, head);
    const account = proven.kind === 'exists' ? parseAccount(proven.state) : null;
    if (!account) throw new Error(`account ${address} does not exist at masterchain block ${head.seqno}`);
    const st = account.storage.state;
    const roots = st.type === 'active' ? [st.state.code, st.state.data].filter((c): c is Cell => !!c) : [];
    const ctx = await this.tvmContext(roots);
    return this.tvm.runGetMethod(account, methodId(method), stack, ctx);
  }

  async emulateMessage(boc: Buffer): Promise<EmulationResult> {
    const root = parseExternalMessage(boc);
    const head = this.requireHead();
    const headerLt = this.head!.header.endLt;
    const accounts = new Map<string, { account: ReturnType<typeof parseAccount>; last: { lt: bigint; hash: Buffer } }>();
    const queue: { cell: Cell; to: string }[] = [{ cell: root.cell, to: root.destination }];
    const transactions: TransactionModel[] = [];
    while (queue.length > 0) {
      if (transactions.length >= MAX_EMULATED_TRANSACTIONS) throw new ChainRejectedError(`the emulated trace exceeds ${MAX_EMULATED_TRANSACTIONS} transactions`, 'emulation_failed');
      const { cell, to } = queue.shift()!;
      let entry = accounts.get(to);
      if (!entry) {
        const proven = await this.provenAccount(to, head);
        entry = proven.kind === 'exists'
          ? { account: parseAccount(proven.state), last: { lt: proven.lastTransLt, hash: Buffer.from(proven.lastTransHash, 'hex') } }
          : { account: null, last: { lt: 0n, hash: Buffer.alloc(32) } };
      }
      const st = entry.account?.storage.state;
      const roots = st?.type === 'active' ? [st.state.code, st.state.data].filter((c): c is Cell => !!c) : [];
      const ctx = { ...(await this.tvmContext(roots)), lt: headerLt + 1_000n * BigInt(transactions.length + 1) };
      let run;
      try {
        run = await this.tvm.runTransaction(accountToAddress(to), entry.account, entry.last, cell, ctx);
      } catch (err) {
        if (transactions.length === 0) throw new ChainRejectedError(`the message cannot be emulated: ${(err as Error).message}`, 'emulation_failed');
        throw err;
      }
      accounts.set(to, { account: run.account, last: { lt: ctx.lt, hash: run.transaction.hash() } });
      const tx = decodeTransaction(run.transaction, { block: { workchain: Number(to.split(':')[0]), shard: '8000000000000000', seqno: 0 }, mcSeqno: head.seqno });
      transactions.push(tx);
      for (const out of loadTransaction(run.transaction.beginParse()).outMessages.values()) {
        if (out.info.type !== 'internal') continue;
        queue.push({ cell: beginCell().store(storeMessage(out)).endCell(), to: addressToRaw(out.info.dest) });
      }
    }
    const involved = [...new Set(transactions.map((t) => t.account))].sort();
    return { involvedAccounts: involved, transactions };
  }

  async sendExternalMessage(boc: Buffer): Promise<{ hash: HashHex }> {
    const msg = parseExternalMessage(boc);
    if (this.outbox.has(msg.hash)) throw new ChainRejectedError(`message ${msg.hash} was sent already and is pending`, 'duplicate');
    const pool = this.requirePool();
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
    const pending: PendingMessage = {
      hash: msg.hash, boc: msg.cell.toBoc().toString('base64'), destination: msg.destination, receivedAt: Math.floor(Date.now() / 1000), involvedAccounts: null,
    };
    this.outbox.add(pending);
    this.options.log?.('info', 'external message sent', { hash: msg.hash, servers: reached });
    return { hash: msg.hash };
  }

  async getPendingMessages(): Promise<PendingMessage[]> {
    return this.outbox.list();
  }

  onPendingMessage(listener: (message: PendingMessage) => void): () => void {
    return this.outbox.subscribe(listener);
  }

  // ---- heads ----

  private onPoolEvent(e: PoolEvent): void {
    if (e.type === 'head' || e.type === 'connected') this.offer(e.server);
  }

  /** Offers a server's head to the trust level, one offer at a time; a newly believed head is published. */
  private offer(server: string): void {
    this.offers = this.offers.then(async () => {
      if (this.stopped || this.alarm || !this.trust || !this.pool) return;
      const id = this.pool.status().servers.find((s) => s.server === server)?.head;
      if (!id) return;
      let believed: BlockIdExt | null;
      try {
        believed = await this.trust.offer(server, id);
      } catch (err) {
        const alarm = this.trust.status().alarm;
        if (alarm) {
          this.alarm = `trust alarm: servers ${alarm.servers.join(' and ')} proved different masterchain blocks at ${alarm.seqno}; nothing from this network is believed`;
          this.options.log?.('error', this.alarm, { alarm });
        } else this.options.log?.('warn', `the trust level could not judge ${server}'s head: ${(err as Error).message}`);
        return;
      }
      if (!believed || (this.head && believed.seqno <= this.head.id.seqno)) return;
      try {
        this.publish(believed, await this.provenHeader(believed));
      } catch (err) {
        this.options.log?.('warn', `believed head ${believed.seqno}: no server proved its header (${(err as Error).message}); the next head retries`);
      }
    });
  }

  private publish(id: BlockIdExt, header: BlockHeader): void {
    if (this.head && id.seqno <= this.head.id.seqno) return;
    this.head = { id, header };
    for (const wake of [...this.headWaiters]) wake();
    for (const l of [...this.headListeners]) {
      try {
        l(id.seqno);
      } catch {
        // a listener's failure must not stop the others
      }
    }
  }

  /** The header of a believed head (getBlockHeader, proven against its root hash). */
  private async provenHeader(id: BlockIdExt): Promise<BlockHeader> {
    return this.provenQuery('getBlockHeader', { id, mode: 0 }, { minSeqno: id.seqno }, (r) => {
      const { info } = checkBlockHeaderProof(r.headerProof, id, 'head.header');
      return {
        workchain: -1, shard: shardIdHex(id.shard), seqno: id.seqno, rootHash: hashHex(id.rootHash), fileHash: hashHex(id.fileHash),
        genUtime: info.genUtime, startLt: info.startLt, endLt: info.endLt, mcSeqno: id.seqno,
      };
    });
  }

  private waitHead(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.headWaiters.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.headWaiters.add(done);
    });
  }

  private believedHead(): BlockIdExt | null {
    if (this.alarm) throw new Error(this.alarm);
    return this.head?.id ?? null;
  }

  private requireHead(): BlockIdExt {
    const head = this.believedHead();
    if (!head) throw new Error(`no masterchain head is believed yet: ${this.waitingReason() ?? 'waiting for liteservers'}`);
    return head;
  }

  private requirePool(): LitePool {
    if (!this.pool) throw new Error('the liteserver source is not started');
    return this.pool;
  }

  private waitingReason(): string | null {
    if (this.alarm) return this.alarm;
    if (!this.pool) return 'the liteserver source is not started';
    const pool = this.pool.status();
    if (!pool.ready) return pool.reason ?? 'no liteserver is ready';
    return this.trust?.status().waiting ?? (this.head ? null : 'no masterchain head is believed yet');
  }

  // ---- proofs ----

  /**
   * Runs a query and its check; a reply that fails the check demotes its server and the query goes to
   * another. Throws when every server failed or none could answer.
   */
  private async provenQuery<M extends LiteMethodName, T>(method: M, request: RequestOf<M>, options: PoolQueryOptions, check: (r: ResponseOf<M>, server: string) => T | Promise<T>): Promise<T> {
    const pool = this.requirePool();
    const disproven: string[] = [];
    for (;;) {
      const { response, server } = await pool.queryWithServer(method, request, { ...options, exclude: [...(options.exclude ?? []), ...disproven] }).catch((err) => {
        if (err instanceof LitePoolUnavailableError && disproven.length > 0) {
          throw new Error(`${method}: every liteserver that answered failed a proof check (${disproven.join(', ')}); ${err.message}`);
        }
        throw err;
      });
      try {
        return await check(response, server);
      } catch (err) {
        if (!(err instanceof ProofError)) throw err;
        pool.demote(server, `${method}: ${err.message}`);
        this.options.log?.('warn', `liteserver ${server} demoted: ${err.message}`, { server, method });
        disproven.push(server);
      }
    }
  }

  /** Masterchain block `n`'s id proven from the believed head: the head's state names it (backward link). */
  private async provenMcId(n: number, head: BlockIdExt): Promise<BlockIdExt> {
    if (n === head.seqno) return head;
    try {
      const claimed = await this.provenQuery('lookupBlock', { mode: 1, id: { workchain: -1, shard: MC_SHARD, seqno: n } }, { minSeqno: n }, (r) => {
        if (r.id.workchain !== -1 || r.id.seqno !== n || r.id.shard !== MC_SHARD) throw new ProofError('mc.lookup', 'mismatch', `lookupBlock(${n}) answered ${describeBlock(r.id)}`);
        checkBlockHeaderProof(r.headerProof, r.id, 'mc.header');
        return r.id;
      });
      return await this.provenQuery('getBlockProof', { mode: 1, knownBlock: head, targetBlock: claimed }, { minSeqno: head.seqno }, (r) => {
        const step = r.steps.length === 1 ? r.steps[0]! : undefined;
        if (!step || step.kind !== 'back') throw new ProofError('mc.backward_link', 'malformed', `expected one backward link from ${head.seqno} to ${n}, got ${r.steps.length} step(s)`);
        if (!sameBlock(step.from, head)) throw new ProofError('mc.backward_link.from', 'mismatch', `the link starts at ${describeBlock(step.from)}, not the believed head`);
        if (!sameBlock(step.to, claimed)) throw new ProofError('mc.backward_link.to', 'mismatch', `the link ends at ${describeBlock(step.to)}, not the block asked for`);
        return checkBackwardLink(step);
      });
    } catch (err) {
      if (err instanceof LitePoolUnavailableError) throw new Error(`masterchain block ${n} is not available from any liteserver (pruned, or not reached yet): ${err.message}`);
      throw err;
    }
  }

  /** A proven masterchain block with its shard tops: the start of a walk. */
  private async trustedMasterchain(seqno: number, head: BlockIdExt): Promise<TrustedMasterchain> {
    if (seqno < 1) throw new Error('the walk starts above masterchain block 1 (block 0 is the zero state); set a start seqno of 2 or more');
    return this.walker!.trusted(await this.provenMcId(seqno, head));
  }

  private async available(seqno: number): Promise<boolean> {
    try {
      await this.requirePool().query('lookupBlock', { mode: 1, id: { workchain: -1, shard: MC_SHARD, seqno } }, { minSeqno: seqno });
      return true;
    } catch (err) {
      if (err instanceof LitePoolUnavailableError || (err instanceof LiteServerError && err.code === LiteErrorCode.notReady)) return false;
      throw err;
    }
  }

  private async provenAccount(address: AccountId, at: BlockIdExt): Promise<ProvenAccountState> {
    const [wc, hex] = address.split(':') as [string, string];
    const account = { workchain: Number(wc), id: Buffer.from(hex, 'hex') };
    return this.provenQuery('getAccountState', { id: at, account }, { minSeqno: at.seqno }, (r) => {
      if (!sameBlock(r.id, at)) throw new ProofError('account.block', 'mismatch', `the state is read at ${describeBlock(r.id)}, not ${describeBlock(at)}`);
      return checkAccountState({ id: at, shardblk: r.shardblk, shardProof: r.shardProof, proof: r.proof, state: r.state }, account);
    });
  }

  /**
   * Proves that (lt, hash) is in the account's history: it is the proven state's last transaction, or a
   * page walk down from there reaches it. Every link passed is remembered.
   */
  private async anchorHistory(address: AccountId, start: { lt: bigint; hash: string }, head: BlockIdExt): Promise<void> {
    const state = await this.provenAccount(address, head);
    if (state.kind === 'absent') throw new Error(`account ${address} does not exist at masterchain block ${head.seqno}: transaction ${start.hash} is not in a proven history`);
    let at = { lt: state.lastTransLt, hash: state.lastTransHash };
    this.remember(address, at);
    while (!this.knownLinks.has(linkKey(address, start))) {
      if (at.lt === 0n || at.lt < start.lt) {
        throw new Error(`transaction (${start.lt}, ${start.hash}) is not in the proven history of ${address} (the chain from its state at ${head.seqno} passes lt ${start.lt} without it)`);
      }
      const page = await this.historyPage(address, at, MAX_TRANSACTIONS_PER_CALL, head);
      const last = page[page.length - 1];
      if (!last) break;
      at = { lt: last.prevLt, hash: last.prevHash };
    }
  }

  /** One page from a proven (lt, hash), checked link by link; every link on it is remembered. */
  private async historyPage(address: AccountId, from: { lt: bigint; hash: string }, count: number, head: BlockIdExt): Promise<SourcedTransaction[]> {
    const [wc, hex] = address.split(':') as [string, string];
    const account = { workchain: Number(wc), id: Buffer.from(hex, 'hex') };
    const page = await this.provenQuery('getTransactions', { count, account, lt: from.lt, hash: Buffer.from(from.hash, 'hex') }, {}, (r) => {
      const txs = checkTransactionHistory(r.transactions, { hash: from.hash, lt: from.lt }, hex, 'history');
      if (txs.length === 0) throw new ProofError('history', 'malformed', `no transaction at (${from.lt}, ${from.hash})`);
      if (r.ids.length !== txs.length) throw new ProofError('history.ids', 'malformed', `${r.ids.length} block ids for ${txs.length} transactions`);
      return txs.map((tx, i) => {
        const block = r.ids[i]!;
        // Masterchain transactions are final in their own block; a shard block's committing masterchain
        // block is not in the reply: the head the history was proven from is an upper bound.
        const mcSeqno = block.workchain === -1 ? block.seqno : head.seqno;
        return decodeTransaction(tx.cell, { block: { workchain: block.workchain, shard: shardIdHex(block.shard), seqno: block.seqno }, mcSeqno, boc: tx.cell.toBoc().toString('base64') });
      });
    });
    for (const tx of page) this.remember(address, { lt: tx.lt, hash: tx.hash }), tx.prevLt > 0n && this.remember(address, { lt: tx.prevLt, hash: tx.prevHash });
    return page;
  }

  private remember(address: AccountId, link: { lt: bigint; hash: string }): void {
    if (this.knownLinks.size >= MAX_KNOWN_LINKS) this.knownLinks.clear();
    this.knownLinks.add(linkKey(address, link));
  }

  /** Proven config (cached per believed head) and the libraries these cells use (checked by hash). */
  private async tvmContext(roots: Cell[]): Promise<TvmContext> {
    const head = this.requireHead();
    if (this.config?.seqno !== head.seqno) {
      const ctx = this.provenQuery('getConfigAll', { mode: 0, id: head }, { minSeqno: head.seqno }, (r) => {
        if (!sameBlock(r.id, head)) throw new ProofError('config.block', 'mismatch', `the config is of ${describeBlock(r.id)}, not the head`);
        return checkConfigAll(r.stateProof, r.configProof, head.rootHash).toBoc().toString('base64');
      });
      this.config = { seqno: head.seqno, ctx };
      ctx.catch(() => { if (this.config?.ctx === ctx) this.config = null; });
    }
    const config = await this.config.ctx;
    const wanted = libraryHashes(roots);
    const libs = wanted.length === 0 ? [] : await this.provenQuery('getLibraries', { libraryList: wanted }, {}, (r) => {
      return wanted.map((h) => {
        const entry = r.result.find((e) => e.hash.equals(h));
        if (!entry) throw new ProofError('library', 'mismatch', `library ${h.toString('hex')} was not returned`);
        const cell = Cell.fromBoc(entry.data)[0];
        if (!cell || !cell.hash().equals(h)) throw new ProofError('library.hash', 'mismatch', `the library sent for ${h.toString('hex')} has another hash`);
        return cell;
      });
    });
    return { config, libs: librariesDict(libs), now: this.head!.header.genUtime, lt: this.head!.header.endLt };
  }
}

function sameBlock(a: BlockIdExt, b: BlockIdExt): boolean {
  return a.workchain === b.workchain && a.seqno === b.seqno && BigInt.asUintN(64, a.shard) === BigInt.asUintN(64, b.shard)
    && a.rootHash.equals(b.rootHash) && a.fileHash.equals(b.fileHash);
}

function linkKey(address: AccountId, link: { lt: bigint; hash: string }): string {
  return `${address}:${link.lt}:${link.hash.toLowerCase()}`;
}
