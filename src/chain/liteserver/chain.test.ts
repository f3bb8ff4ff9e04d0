// The liteserver ChainSource over real ADNL on loopback against fake liteservers serving a synthetic chain
// (splits, merges, gaps, a real wallet v4 contract): `fast` believes a head two servers agree on and none
// when they disagree; getFinalizedBlock proves each block from the head and returns exactly the builder's
// transactions; forged, withheld and dying servers are demoted or skipped with no gap and no duplicate;
// account state, history, get-methods (run locally) and sendExternalMessage are proven or checked.
import { randomBytes } from 'node:crypto';
import { beginCell, Cell, Dictionary, external, internal, storeAccount, storeMessage, type Address } from '@ton/core';
import { keyPairFromSeed } from '@ton/crypto';
import { defaultConfig } from '@ton/sandbox';
import { WalletContractV4 } from '@ton/ton';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SyntheticChain } from '../blocks/testing/synthetic.js';
import { newAccount, transferTransaction } from '../blocks/testing/transfer.js';
import { decodeBlock } from '../decode/block.js';
import type { FinalizedBlock } from '../model.js';
import { ChainRejectedError } from '../source.js';
import type { GlobalConfig } from './config.js';
import { createLiteserverChain, type LiteserverChain } from './index.js';
import { driveScenario, type Scenario } from './testing/scenario.js';
import { multiRootBoc } from './testing/proof-builder.js';
import { SyntheticLiteServer, type SyntheticLiteServerOptions } from './testing/synthetic-server.js';
import { AdnlServer } from './transport/adnl-server.js';
import { LocalTvm, parseAccount } from './tvm.js';
import { refuseUntil } from '../../../test/support/liteserver-network.js';

/** Masterchain blocks followed; the acceptance run is 200. */
const BLOCKS = Number(process.env.WALK_BLOCKS ?? 200);
const WALLET_SEQNO = 7;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

interface Served {
  fake: SyntheticLiteServer;
  server: AdnlServer;
  name: string;
}

async function serve(s: Scenario, options: SyntheticLiteServerOptions = {}, secretKey = randomBytes(32)): Promise<Served> {
  const fake = new SyntheticLiteServer(s.chain, options);
  const server = await AdnlServer.listen({ secretKey, handler: fake });
  open.push(server);
  return { fake, server, name: `${server.address.host}:${server.address.port}` };
}


/** Whether `server` was disproven, withheld a block, or failed, so far in `chain` (false before the chain exists). */
const counter = (get: () => LiteserverChain | undefined, server: () => string, field: 'disproven' | 'withheld' | 'failures') => () =>
  (get()?.status().pool.servers.find((x) => x.server === server())?.[field] ?? 0) > 0;

function globalConfig(s: Scenario, servers: Served[]): GlobalConfig {
  const z = s.chain.zeroStates().masterchain.ref;
  const zeroState = { workchain: -1, shard: -(1n << 63n), seqno: 0, rootHash: z.rootHash, fileHash: z.fileHash };
  return { liteservers: servers.map((x) => ({ ...x.server.address, publicKey: x.server.publicKey })), anchor: { zeroState, initBlock: zeroState, hardforks: [] } };
}

async function source(s: Scenario, servers: Served[], logs: string[] = []): Promise<LiteserverChain> {
  const chain = createLiteserverChain({
    config: globalConfig(s, servers), network: 'testnet', trust: 'fast', headWaitMs: 5_000,
    log: (level, msg) => logs.push(`${level}: ${msg}`),
    // No pings: latency then comes from answers alone.
    poolOptions: { headPollMs: 1000, queryTimeoutMs: 5000, backoff: { minMs: 50, maxMs: 200 }, pingIntervalMs: 0 },
  });
  open.push({ close: () => chain.stop() });
  await chain.start();
  return chain;
}

/** The builder's transaction hashes per masterchain block (any order within a block), and its shard blocks. */
function truthOf(s: Scenario, n: number) {
  const step = s.steps[n - 1]!;
  return {
    mc: step.masterchain.id.rootHash,
    shards: step.shardBlocks.map((b) => b.id.rootHash).sort(),
    transactions: [step.masterchain, ...step.shardBlocks].flatMap((b) => decodeBlock(b.boc).transactions.map((t) => t.hash)),
  };
}

async function follow(chain: LiteserverChain, s: Scenario, from: number, to: number): Promise<FinalizedBlock[]> {
  const out: FinalizedBlock[] = [];
  for (let n = from; n <= to; n++) {
    const block = await chain.getFinalizedBlock(n);
    if (!block) throw new Error(`block ${n} not served`);
    out.push(block);
  }
  return out;
}

function expectExactly(blocks: FinalizedBlock[], s: Scenario, from: number): void {
  const seen = new Set<string>();
  blocks.forEach((block, i) => {
    const truth = truthOf(s, from + i);
    expect(block.masterchain.seqno).toBe(from + i);
    expect(block.masterchain.rootHash).toBe(truth.mc);
    expect(block.shards.map((b) => b.rootHash).sort()).toEqual(truth.shards);
    expect(block.transactions.map((t) => t.hash).sort()).toEqual([...truth.transactions].sort());
    // Within one account, lt grows in the order given.
    const last = new Map<string, bigint>();
    for (const tx of block.transactions) {
      expect(seen.has(tx.hash)).toBe(false);
      seen.add(tx.hash);
      expect(tx.lt > (last.get(tx.account) ?? -1n)).toBe(true);
      last.set(tx.account, tx.lt);
    }
  });
  const put = s.sent.filter((t) => t.mcSeqno >= from && t.mcSeqno < from + blocks.length);
  const received = blocks.flatMap((b) => b.transactions).filter((t) => t.inMessage?.type === 'internal');
  expect(received.map((t) => t.inMessage!.value).sort()).toEqual(put.map((t) => t.amount).sort());
}

/**
 * A wallet v4 (real code) with `seqno` and 10 TON, put into the chain by one transaction; its key pair.
 * `asLibrary`: its code is a library cell naming the wallet code by hash (as many deployed contracts are).
 */
function addWallet(chain: SyntheticChain, { seed = 7, seqno = WALLET_SEQNO, lt = 10n ** 12n, asLibrary = false } = {}) {
  const keys = keyPairFromSeed(Buffer.alloc(32, seed));
  const wallet = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey });
  const data = beginCell().storeUint(seqno, 32).storeUint(wallet.walletId, 32).storeBuffer(keys.publicKey).storeBit(false).endCell();
  const code = asLibrary ? beginCell().storeUint(2, 8).storeBuffer(wallet.init.code.hash()).endCell({ exotic: true }) : wallet.init.code;
  const made = transferTransaction(newAccount(wallet.address), { from: chain.addressIn('8000000000000000', 9_999), to: wallet.address, amount: 10n ** 10n }, lt, 1_700_000_000);
  const account = beginCell().storeBit(1).store(storeAccount({
    addr: wallet.address,
    storageStats: { used: { cells: 1n, bits: 1n }, storageExtra: null, lastPaid: 0, duePayment: null },
    storage: { lastTransLt: lt + 1n, balance: { coins: 10n ** 10n }, state: { type: 'active', state: { code, data } } },
  })).endCell();
  chain.addTransaction(0, made.cell, {
    address: BigInt(`0x${wallet.address.hash.toString('hex')}`), account, lastTransHash: made.cell.hash(), lastTransLt: lt, splitDepth: 0, balance: { coins: 10n ** 10n },
  });
  return { wallet, keys, lastTx: made.cell, lt, account };
}

describe('liteserver chain source (fast trust) over ADNL', () => {
  let s: Scenario;
  let wallet: ReturnType<typeof addWallet>;
  let libraryWallet: ReturnType<typeof addWallet>;

  beforeAll(() => {
    // The sandbox's config in the masterchain state, so get-methods and emulation run on a real one.
    s = driveScenario(BLOCKS, new SyntheticChain({ config: Cell.fromBase64(defaultConfig) }));
    wallet = addWallet(s.chain);
    libraryWallet = addWallet(s.chain, { seed: 8, seqno: 11, lt: 10n ** 12n + 10n, asLibrary: true });
    s.steps.push(s.chain.nextMasterchainBlock());
    // One account with a history of several pages.
    const hot = s.chain.addressIn(s.chain.shardIds[0]!, 500);
    for (let b = 0; b < 4; b++) {
      for (let k = 0; k < 10; k++) {
        const amount = 5_000_000n + BigInt(b * 10 + k);
        s.chain.transfer({ from: s.chain.addressIn('8000000000000000', 9_999), to: hot, amount });
        s.sent.push({ account: hot.toRawString(), amount, mcSeqno: s.chain.masterchainSeqno + 1 });
      }
      s.steps.push(s.chain.nextMasterchainBlock());
    }
    expect(s.splits).toBeGreaterThanOrEqual(2);
    expect(s.merges).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it(`follows ${BLOCKS} masterchain blocks with splits and merges: exactly the builder's transactions`, async () => {
    const servers = [await serve(s), await serve(s)];
    const chain = await source(s, servers);
    const head = await chain.getMasterchainHead();
    expect(head.seqno).toBe(s.chain.masterchainSeqno);
    expect(head.rootHash).toBe(s.chain.masterchainBlock(head.seqno)!.id.rootHash);
    expect(chain.identity()).toEqual({ network: 'testnet', id: s.chain.zeroStates().masterchain.ref.rootHash.toString('hex') });
    expect(await chain.getFinalizedBlock(head.seqno + 1)).toBeNull();
    expectExactly(await follow(chain, s, 2, BLOCKS), s, 2);
    const status = chain.status();
    expect(status.trust).toMatchObject({ level: 'fast', waiting: null });
    expect(status.trust.head!.seqno).toBe(head.seqno);
    expect(status.lagBlocks).toBe(0);
    expect(status.walkedSeqno).toBe(BLOCKS);
    expect(Object.values(status.disproven)).toEqual([0, 0]);
    expect(await chain.getOldestAvailableSeqno()).toBe(2);
  }, 240_000);

  it('a server forging blocks is demoted, counted and logged once per demotion; the walk, from its first block on, completes through the honest one', async () => {
    const forger = await serve(s, { lie: { forgeBlock: (id) => id.seqno % 10 === 3 } });
    let chain: LiteserverChain | undefined;
    const honest = refuseUntil(await serve(s), ['getBlock'], counter(() => chain, () => forger.name, 'disproven'));
    const logs: string[] = [];
    chain = await source(s, [forger, honest], logs);
    await chain.getMasterchainHead();
    // The first walk starts by reading block 23, which the forger forges, for its shard tops.
    expectExactly(await follow(chain, s, 24, 60), s, 24);
    const disproven = chain.status().disproven[forger.name]!;
    expect(disproven).toBeGreaterThan(0);
    expect(chain.status().disproven[honest.name]).toBe(0);
    expect(chain.status().pool.servers.find((x) => x.server === forger.name)!.demoted).toBe(true);
    // The walk's demotions reach the log (they used to go only to the pool's events), each once, as a warning.
    const demotions = logs.filter((l) => l.includes(`liteserver ${forger.name} demoted`));
    expect(demotions).toHaveLength(disproven);
    for (const line of demotions) expect(line).toMatch(/^warn: liteserver \S+ demoted \(disproven\): /);
    expect(logs.filter((l) => l.includes(`liteserver ${honest.name} demoted`))).toEqual([]);
  }, 120_000);

  it('a server withholding blocks is demoted, and one that dies mid-walk is failed over: no gap, no duplicate', async () => {
    // It withholds shard blocks, so it always serves the masterchain block before one it refuses.
    const withholding = await serve(s, { lie: { withholdBlock: (id) => id.workchain === 0 && id.seqno % 4 === 1 } });
    let chain: LiteserverChain | undefined;
    const caught = counter(() => chain, () => withholding.name, 'failures');
    const dying = refuseUntil(await serve(s), ['getBlock'], caught);
    const honest = refuseUntil(await serve(s), ['getBlock'], caught);
    const logs: string[] = [];
    chain = await source(s, [withholding, dying, honest], logs);
    await chain.getMasterchainHead();
    const first = await follow(chain, s, 30, 45);
    await dying.server.close();
    const rest = await follow(chain, s, 46, 70);
    expectExactly([...first, ...rest], s, 30);
    const servers = chain.status().pool.servers;
    const w = servers.find((x) => x.server === withholding.name)!;
    expect(w.failures).toBeGreaterThan(0);
    // It claims a head far above the walk and serves the block before, yet refuses a block the chain proved: withheld.
    expect(w).toMatchObject({ demoted: true, disproven: 0 });
    expect(w.withheld).toBeGreaterThan(0);
    const demotions = logs.filter((l) => l.startsWith(`warn: liteserver ${withholding.name} demoted (withheld): `));
    expect(demotions).toHaveLength(w.withheld);
    for (const line of demotions) expect(line).toMatch(/\(withheld\): block \(0, [0-9a-f]{16}, \d+\) refused: answered 651 \(.*\) with its head at \d+, while it serves masterchain block \d+$/);
    expect(logs.some((l) => l.startsWith(`debug: liteserver ${withholding.name}: `) && / failed: liteserver error 651 /.test(l))).toBe(true);
    // Dying is a failure, not a reason to demote.
    const d = servers.find((x) => x.server === dying.name)!;
    expect(d.state).not.toBe('up');
    expect(d).toMatchObject({ demoted: false, withheld: 0, disproven: 0 });
    expect(servers.find((x) => x.server === honest.name)).toMatchObject({ demoted: false, withheld: 0, disproven: 0 });
  }, 120_000);

  it('getOldestAvailableSeqno over servers that pruned below N is N + 1, pruned blocks demote no one; an outage mid-search fails it and caches nothing', async () => {
    const N = 120;
    const keys = [randomBytes(32), randomBytes(32)];
    const a = await serve(s, { prunedBelow: N }, keys[0]);
    const b = await serve(s, { prunedBelow: N }, keys[1]);
    const chain = await source(s, [a, b]);
    await chain.getMasterchainHead();
    // A block below N is gone from every server: refused, yet nobody is taken for a withholder.
    await expect(chain.getFinalizedBlock(N - 10)).rejects.toThrow(/masterchain block 110 is not available from any liteserver/);
    expect(chain.status().pool.servers.map((x) => [x.demoted, x.withheld])).toEqual([[false, 0], [false, 0]]);

    // Both servers go away at the search's third lookup: that is not "pruned", and no answer is cached.
    const ports = [a, b].map((x) => x.server.address.port);
    let lookups = 0;
    const honestLookups = [a, b].map((x) => x.fake.methods.lookupBlock!);
    [a, b].forEach((x, i) => {
      x.fake.methods.lookupBlock = async (request) => {
        if (++lookups === 3) await Promise.all([a.server.close(), b.server.close()]);
        return honestLookups[i]!(request);
      };
    });
    await expect(chain.getOldestAvailableSeqno()).rejects.toThrow(/the search for the oldest available block stopped at masterchain block \d+: no liteserver/);
    expect(lookups).toBeGreaterThanOrEqual(3);

    // Back on their ports with their keys: the search runs again and finds the pruning point.
    const back = await Promise.all([a, b].map((x, i) => {
      x.fake.methods.lookupBlock = honestLookups[i]!;
      return AdnlServer.listen({ secretKey: keys[i]!, handler: x.fake, port: ports[i] });
    }));
    open.push(...back);
    while (!chain.status().pool.servers.every((x) => x.state === 'up' && x.head)) await new Promise((r) => setTimeout(r, 20));
    expect(await chain.getOldestAvailableSeqno()).toBe(N + 1);
    expect(await chain.getOldestAvailableSeqno()).toBe(N + 1);
  }, 60_000);

  it('fast: two servers that disagree on the head are both disbelieved; a third that agrees with one settles it', async () => {
    const other = driveScenario(12, new SyntheticChain({ globalId: -218 }));
    const a = await serve(s, { head: 10 });
    const b = await serve(other, { head: 10 });
    const chain = await source(s, [a, b]);
    await expect(chain.getMasterchainHead()).rejects.toThrow(/disagree on masterchain block 10/);
    expect(chain.status().trust.head).toBeNull();
    expect(chain.status().waiting).toMatch(/disagree/);
    expect(await chain.getFinalizedBlock(5)).toBeNull();

    const c = await serve(s, { head: 10 });
    const settled = await source(s, [a, b, c]);
    const head = await settled.getMasterchainHead();
    expect(head.rootHash).toBe(s.chain.masterchainBlock(10)!.id.rootHash);
    expect(settled.status().pool.servers.find((x) => x.server === b.name)!.disproven).toBeGreaterThan(0);
  }, 60_000);

  it('one server: its head is believed, with a warning at start', async () => {
    const logs: string[] = [];
    const chain = await source(s, [await serve(s, { head: 50 })], logs);
    expect((await chain.getMasterchainHead()).seqno).toBe(50);
    expect(logs.some((l) => l.startsWith('warn:') && /one liteserver/.test(l))).toBe(true);
  }, 30_000);

  it('every server down: calls fail with a reason that names the servers, and status says why', async () => {
    const x = await serve(s);
    const chain = await source(s, [x]);
    await chain.getMasterchainHead();
    await x.server.close();
    await expect(chain.getFinalizedBlock(40)).rejects.toThrow(new RegExp(x.name.replace('.', '\\.')));
    await new Promise((r) => setTimeout(r, 300));
    expect(chain.status().waiting).toMatch(/no liteserver is ready/);
  }, 30_000);

  it('proven account state, history across pages and forged proofs refused', async () => {
    const tamperer = await serve(s, { lie: { tamperProof: (m) => m === 'getAccountState' } });
    let chain: LiteserverChain | undefined;
    const honest = refuseUntil(await serve(s), ['getAccountState'], counter(() => chain, () => tamperer.name, 'disproven'));
    chain = await source(s, [tamperer, honest]);
    await chain.getMasterchainHead();
    // The account with the longest history.
    const byAccount = new Map<string, bigint[]>();
    for (const t of s.sent) byAccount.set(t.account, [...(byAccount.get(t.account) ?? []), t.amount]);
    const [account, amounts] = [...byAccount].sort((x, y) => y[1].length - x[1].length)[0]!;
    expect(amounts.length).toBeGreaterThan(MAX_PAGE + 1);
    const state = await chain.getAccountState(account);
    expect(state).toMatchObject({ address: account, status: 'active', balance: amounts.reduce((a, b) => a + b, 0n), mcSeqno: s.chain.masterchainSeqno });
    expect(chain.status().disproven[tamperer.name]).toBeGreaterThan(0);

    const history = [];
    let at = { lt: state.lastTxLt, hash: state.lastTxHash };
    for (;;) {
      const page = await chain.getTransactions(account, at.lt, at.hash);
      history.push(...page);
      const last = page[page.length - 1]!;
      if (last.prevLt === 0n) break;
      at = { lt: last.prevLt, hash: last.prevHash };
    }
    expect(history.map((t) => t.inMessage!.value)).toEqual([...amounts].reverse());
    // A history page may start anywhere in the proven chain, also on a fresh source; a server that leaves a
    // transaction out of its pages (the chain of prev hashes breaks) is demoted and the honest one answers.
    const truncating = await serve(s);
    const pages = truncating.fake.methods.getTransactions!;
    truncating.fake.methods.getTransactions = async (request) => {
      const page = await pages(request);
      const cells = Cell.fromBoc(page.transactions);
      if (cells.length < 3) return page;
      return { ids: [page.ids[0]!, ...page.ids.slice(2)], transactions: multiRootBoc([cells[0]!, ...cells.slice(2)]) };
    };
    let fresh: LiteserverChain | undefined;
    refuseUntil(honest, ['getTransactions'], counter(() => fresh, () => truncating.name, 'disproven'));
    fresh = await source(s, [truncating, honest]);
    await fresh.getMasterchainHead();
    const mid = history[20]!;
    expect((await fresh.getTransactions(account, mid.lt, mid.hash, 3)).map((t) => t.hash)).toEqual(history.slice(20, 23).map((t) => t.hash));
    expect(fresh.status().disproven[truncating.name]).toBeGreaterThan(0);
    expect(fresh.status().pool.servers.find((x) => x.server === truncating.name)!.lastError).toMatch(/history\.prev_trans_hash/);
    await expect(fresh.getTransactions(account, mid.lt, 'ab'.repeat(32))).rejects.toThrow(/not in the proven history/);

    const absent = await chain.getAccountState(`0:${'12'.repeat(32)}`);
    expect(absent).toMatchObject({ status: 'nonexist', balance: 0n });
    const older = await chain.getAccountState(account, 100);
    expect(older.mcSeqno).toBe(100);
    expect(older.balance).toBe(s.sent.filter((t) => t.account === account && t.mcSeqno <= 100).reduce((a, t) => a + t.amount, 0n));
  }, 120_000);

  it('config params proven at the head and at an older block; absent ones proven absent; a tampered proof refused', async () => {
    const liar = await serve(s, { lie: { tamperProof: (m) => m === 'getConfigParams' } });
    let chain: LiteserverChain | undefined;
    const honest = refuseUntil(await serve(s), ['getConfigParams'], counter(() => chain, () => liar.name, 'disproven'));
    chain = await source(s, [liar, honest]);
    await chain.getMasterchainHead();
    const config = Dictionary.loadDirect(Dictionary.Keys.Int(32), Dictionary.Values.Cell(), Cell.fromBase64(defaultConfig));
    const params = await chain.getConfigParams([4, 34, 9999]);
    expect(params.get(4)!.hash().equals(config.get(4)!.hash())).toBe(true); // the DNS root
    expect(params.get(34)!.hash().equals(config.get(34)!.hash())).toBe(true);
    expect(params.get(9999)).toBeNull();
    expect(chain.status().disproven[liar.name]).toBeGreaterThan(0);
    expect((await chain.getConfigParams([4], 50)).get(4)!.hash().equals(config.get(4)!.hash())).toBe(true);
  }, 60_000);

  it('a get-method whose code is a library cell: the library comes from getLibraries, checked by its hash', async () => {
    const code = wallet.wallet.init.code;
    const liar = await serve(s, { libraries: [beginCell().storeRef(code).endCell()] }); // another cell: wrong hash
    liar.fake.methods.getLibraries = (request) => ({ result: request.libraryList.map((hash) => ({ hash, data: beginCell().storeUint(1, 8).endCell().toBoc() })) });
    let chain: LiteserverChain | undefined;
    const honest = refuseUntil(await serve(s, { libraries: [code] }), ['getLibraries'], counter(() => chain, () => liar.name, 'disproven'));
    chain = await source(s, [liar, honest]);
    await chain.getMasterchainHead();
    const result = await chain.runGetMethod(libraryWallet.wallet.address.toRawString(), 'seqno');
    expect(result.stack).toEqual([{ type: 'int', value: 11n }]);
    expect(honest.fake.calls).toContain('getLibraries');
    expect(chain.status().pool.servers.find((x) => x.server === liar.name)!.lastError).toMatch(/library\.hash/);
  }, 60_000);

  it('runs a real wallet\'s seqno get-method locally on proven code, data and config; emulates and sends a transfer to two servers', async () => {
    const servers = [await serve(s), await serve(s), await serve(s)];
    const chain = await source(s, servers);
    await chain.getMasterchainHead();
    const address = wallet.wallet.address.toRawString();
    const result = await chain.runGetMethod(address, 'seqno');
    expect(result.exitCode).toBe(0);
    expect(result.stack).toEqual([{ type: 'int', value: BigInt(WALLET_SEQNO) }]);
    // No server's runSmcMethod was asked: the TVM ran here.
    expect(servers.flatMap((x) => x.fake.calls)).not.toContain('runSmcMethod');
    expect(servers.flatMap((x) => x.fake.calls)).toContain('getConfigAll');

    const to: Address = s.chain.addressIn('4000000000000000', 1);
    const transfer = wallet.wallet.createTransfer({
      seqno: WALLET_SEQNO, secretKey: wallet.keys.secretKey, messages: [internal({ to, value: 10n ** 9n, bounce: false })],
    });
    const externalBoc = beginCell().store(storeMessage(external({ to: wallet.wallet.address, body: transfer }))).endCell().toBoc();
    const emulated = await chain.emulateMessage(externalBoc);
    expect(emulated.transactions[0]!.account).toBe(address);
    expect(emulated.involvedAccounts).toEqual([address, to.toRawString()].sort());

    const pending: string[] = [];
    chain.onPendingMessage((m) => pending.push(m.hash));
    const { hash } = await chain.sendExternalMessage(externalBoc);
    expect(pending).toEqual([hash]);
    expect((await chain.getPendingMessages()).map((m) => m.hash)).toEqual([hash]);
    // Emulated at send for filtered mempool streams: the wallet and the receiver of its transfer.
    expect((await chain.getPendingMessages())[0]!.involvedAccounts).toEqual([address, to.toRawString()].sort());
    expect(servers.filter((x) => x.fake.sent.length === 1).length).toBeGreaterThanOrEqual(2);
    await expect(chain.sendExternalMessage(externalBoc)).rejects.toBeInstanceOf(ChainRejectedError);
    await expect(chain.sendExternalMessage(Buffer.from('not a boc'))).rejects.toMatchObject({ code: 'invalid_boc' });

    // The message lands (its transaction run by the TVM here, put in the next block): no longer pending, seqno 8.
    const lt = 2n * 10n ** 12n;
    const run = await new LocalTvm().runTransaction(wallet.wallet.address, parseAccount(wallet.account), { lt: wallet.lt, hash: wallet.lastTx.hash() }, Cell.fromBoc(externalBoc)[0]!, {
      config: defaultConfig, libs: null, now: Math.floor(Date.now() / 1000), lt,
    });
    s.chain.addTransaction(0, run.transaction, {
      address: BigInt(`0x${wallet.wallet.address.hash.toString('hex')}`), account: beginCell().storeBit(1).store(storeAccount(run.account!)).endCell(),
      lastTransHash: run.transaction.hash(), lastTransLt: lt, splitDepth: 0, balance: { coins: run.account!.storage.balance.coins },
    });
    s.steps.push(s.chain.nextMasterchainBlock());
    const landed = s.chain.masterchainSeqno;
    for (const x of servers) x.fake.advance();
    while ((await chain.getMasterchainHead()).seqno < landed) await new Promise((r) => setTimeout(r, 50));
    const block = (await chain.getFinalizedBlock(landed))!;
    expect(block.transactions.find((t) => t.account === address)!.inMessage!.hash).toBe(hash);
    expect(await chain.getPendingMessages()).toEqual([]);
    expect((await chain.runGetMethod(address, 'seqno')).stack).toEqual([{ type: 'int', value: BigInt(WALLET_SEQNO + 1) }]);
  }, 120_000);
});

const MAX_PAGE = 16;
