// The block walk over real ADNL on loopback against fake liteservers serving a synthetic chain with splits,
// merges and gaps: walked block by block it yields exactly the transactions the builder put in, in order;
// a server that forges a block is demoted and the walk completes through an honest one, with no gap and
// no duplicate; a server that dies mid-walk is replaced the same way.
import { randomBytes } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlock } from '../decode/block.js';
import type { FinalizedBlock } from '../model.js';
import type { BlockIdExt } from './tl/lite-api.js';
import { AdnlServer } from './transport/adnl-server.js';
import { LitePool, type PoolEvent } from './transport/pool.js';
import { driveScenario, type Scenario } from './testing/scenario.js';
import { SyntheticLiteServer, type SyntheticLiteServerOptions } from './testing/synthetic-server.js';
import { BlockWalker, type TrustedMasterchain } from './walk.js';

/** Masterchain blocks walked; the acceptance run is 200 (WALK_BLOCKS=200). */
const BLOCKS = Number(process.env.WALK_BLOCKS ?? 200);

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

async function serve(s: Scenario, options: SyntheticLiteServerOptions = {}) {
  const fake = new SyntheticLiteServer(s.chain, options);
  const server = await AdnlServer.listen({ secretKey: randomBytes(32), handler: fake });
  open.push(server);
  return { fake, server, name: `${server.address.host}:${server.address.port}` };
}

async function poolOf(servers: { server: AdnlServer }[], events: PoolEvent[] = []): Promise<LitePool> {
  const pool = new LitePool({
    servers: servers.map((x) => ({ ...x.server.address, publicKey: x.server.publicKey })),
    headPollMs: 1000, queryTimeoutMs: 5000, backoff: { minMs: 50, maxMs: 200 }, onEvent: (e) => events.push(e),
  });
  open.push(pool);
  await pool.waitReady(5000);
  // Both heads known, so a walk may start on either.
  for (let i = 0; i < 100 && pool.status().servers.some((x) => x.head === undefined); i++) await new Promise((r) => setTimeout(r, 20));
  return pool;
}

/** The trusted start: masterchain zero state and the basechain's zero state as its only top. */
function genesis(s: Scenario): TrustedMasterchain {
  const z = s.chain.zeroStates();
  const ref = (wc: number, r: typeof z.masterchain.ref) => ({ workchain: wc, shard: '8000000000000000', seqno: 0, rootHash: r.rootHash, fileHash: r.fileHash });
  return { id: ref(-1, z.masterchain.ref), tops: [ref(0, z.basechain.ref)] };
}

async function walkAll(walker: BlockWalker, s: Scenario, upTo: number): Promise<FinalizedBlock[]> {
  const out: FinalizedBlock[] = [];
  let prev = genesis(s);
  for (let n = 1; n <= upTo; n++) {
    const walked = await walker.getFinalizedBlock(n, prev);
    if (!walked) throw new Error(`block ${n} not found`);
    out.push(walked.block);
    prev = walked.trusted;
  }
  return out;
}

/** What the builder made: per masterchain block the shard block ids and all transaction hashes in lt order. */
function groundTruth(s: Scenario, upTo: number) {
  return s.steps.slice(0, upTo).map((step) => ({
    mc: step.masterchain.id,
    shards: step.shardBlocks.map((b) => b.id.rootHash).sort(),
    transactions: [step.masterchain, ...step.shardBlocks].flatMap((b) => decodeBlock(b.boc).transactions.map((t) => t.hash)),
  }));
}

function expectExactly(walked: FinalizedBlock[], s: Scenario, upTo: number): void {
  const truth = groundTruth(s, upTo);
  const put = s.sent.filter((t) => t.mcSeqno <= upTo);
  expect(walked).toHaveLength(truth.length);
  walked.forEach((block, i) => {
    expect(block.masterchain).toMatchObject({ ...truth[i]!.mc, mcSeqno: i + 1 });
    expect(block.shards.map((b) => b.rootHash).sort()).toEqual(truth[i]!.shards);
    // Masterchain first, then shards in walk order (parents before children), each by lt.
    const byBlock = new Map<string, bigint[]>();
    for (const tx of block.transactions) {
      const key = `${tx.block.workchain}:${tx.block.shard}:${tx.block.seqno}`;
      byBlock.set(key, [...(byBlock.get(key) ?? []), tx.lt]);
      expect(tx.mcSeqno).toBe(i + 1);
    }
    const order = [...byBlock.keys()];
    const listed = [block.masterchain, ...block.shards].map((b) => `${b.workchain}:${b.shard}:${b.seqno}`).filter((k) => byBlock.has(k));
    expect(order).toEqual(listed);
    for (const lts of byBlock.values()) expect([...lts].sort((a, b) => (a < b ? -1 : 1))).toEqual(lts);
    // Within one shard chain, seqnos grow in walk order.
    const lastSeqno = new Map<string, number>();
    for (const b of block.shards) {
      expect(b.seqno).toBeGreaterThan(lastSeqno.get(b.shard) ?? -1);
      lastSeqno.set(b.shard, b.seqno);
    }
    // The same transactions as the builder made for this block, nothing else.
    expect([...block.transactions.map((t) => t.hash)].sort()).toEqual([...truth[i]!.transactions].sort());
  });
  // Across the walk: each transaction once, and all of them in the builder's (lt) order.
  const all = walked.flatMap((b) => b.transactions);
  expect(new Set(all.map((t) => t.hash)).size).toBe(all.length);
  const byLt = [...all].sort((a, b) => (a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : 0));
  expect(byLt.map((t) => t.hash)).toEqual(truth.flatMap((t) => t.transactions));
  // And they are the transfers put in: receiver and amount, in the order each account received them.
  const received = all.map((t) => `${t.account}:${t.inMessage?.value}`);
  const sent = put.map((t) => `${t.account}:${t.amount}`);
  expect([...received].sort()).toEqual([...sent].sort());
  for (const account of new Set(put.map((t) => t.account))) {
    expect(byLt.filter((t) => t.account === account).map((t) => t.inMessage?.value)).toEqual(put.filter((t) => t.account === account).map((t) => t.amount));
  }
  // Each transfer in the masterchain block the builder committed it with.
  for (const t of put) {
    expect(walked[t.mcSeqno - 1]!.transactions.some((tx) => tx.account === t.account && tx.inMessage?.value === t.amount)).toBe(true);
  }
}

let s: Scenario;
beforeAll(() => {
  if (BLOCKS < 30) throw new Error('WALK_BLOCKS must be at least 30 (the failover tests walk 30 blocks)');
  s = driveScenario(BLOCKS);
}, 120_000);

describe('BlockWalker over loopback ADNL', () => {
  it(`walks ${BLOCKS} masterchain blocks with splits, merges and gaps: exactly the builder's transactions, in order`, async () => {
    expect(s.splits).toBeGreaterThanOrEqual(2);
    expect(s.merges).toBeGreaterThanOrEqual(2);
    expect(s.steps.filter((step) => step.shardBlocks.length === 0).length).toBeGreaterThan(0); // gaps
    expect(s.steps.some((step) => new Set(step.shardBlocks.map((b) => b.id.shard)).size < step.shardBlocks.length)).toBe(true);
    const a = await serve(s);
    const b = await serve(s);
    const pool = await poolOf([a, b]);
    const walker = new BlockWalker(pool);
    const walked = await walkAll(walker, s, BLOCKS);
    expectExactly(walked, s, BLOCKS);
    expect(await walker.getFinalizedBlock(BLOCKS + 1, { id: walked.at(-1)!.masterchain, tops: [] })).toBeNull();
    // Tops that are not those of n−1 (here: of n) are the caller's mistake: an error, and no server demoted.
    const wrong = { id: walked[24]!.masterchain, tops: (await walker.trusted(walked[25]!.masterchain)).tops };
    await expect(walker.getFinalizedBlock(26, wrong)).rejects.toThrow(/given as a top of block 25/);
    const older = { id: walked[24]!.masterchain, tops: (await walker.trusted(walked[28]!.masterchain)).tops };
    await expect(walker.getFinalizedBlock(26, older)).rejects.toThrow(/is not above the previous top/);
    expect(pool.status().servers.every((x) => x.disproven === 0)).toBe(true);
    // A walk can start from any trusted block: its tops are read from the block itself.
    const start = await walker.trusted(walked[25]!.masterchain);
    const from27 = (await walker.getFinalizedBlock(27, start))!;
    expect(from27.block).toEqual(walked[26]);
  }, 300_000);

  it('a server that forges blocks is demoted; the walk completes through the honest one with no gap and no duplicate', async () => {
    const upTo = Math.min(BLOCKS, 30);
    // Forges every shard block committed by the first masterchain block from 10 on that commits any.
    const k = s.steps.findIndex((step, i) => i >= 9 && step.shardBlocks.length > 0);
    expect(k).toBeGreaterThan(0);
    expect(k).toBeLessThan(upTo - 1);
    const forged = new Set(s.steps[k]!.shardBlocks.map((b) => b.id.rootHash));
    const liar = await serve(s, { lie: { forgeBlock: (id: BlockIdExt) => forged.has(id.rootHash.toString('hex')) } });
    const honest = await serve(s);
    const events: PoolEvent[] = [];
    const pool = await poolOf([liar, honest], events);
    const walker = new BlockWalker(pool, { server: liar.name });
    const walked = await walkAll(walker, s, upTo);
    expectExactly(walked, s, upTo);
    const demoted = events.filter((e) => e.type === 'demoted');
    expect(demoted.map((e) => e.server)).toEqual([liar.name]);
    expect(demoted[0]!.type === 'demoted' && demoted[0]!.reason).toMatch(/shard\.file_hash/);
    expect(pool.status().servers.find((x) => x.server === liar.name)?.disproven).toBe(1);
    // The liar answered the blocks before k+1 and the first queries of k+1; the honest server did the rest.
    expect(liar.fake.calls.filter((c) => c === 'lookupBlock')).toHaveLength(k + 1);
  }, 300_000);

  it('a forged block where a walk starts (trusted) demotes its server; the start is read from another', async () => {
    const liar = await serve(s, { lie: { forgeBlock: (id: BlockIdExt) => id.workchain === -1 && id.seqno === 5 } });
    const honest = await serve(s);
    const events: PoolEvent[] = [];
    const pool = await poolOf([liar, honest], events);
    const walker = new BlockWalker(pool, { server: liar.name });
    const start = await walker.trusted(s.steps[4]!.masterchain.id);
    expect(start.tops.length).toBeGreaterThan(0);
    expect(events.filter((e) => e.type === 'demoted')).toEqual([{ type: 'demoted', server: liar.name, reason: expect.stringMatching(/mc\.file_hash/), cause: 'disproven' }]);
    expect(liar.fake.calls).toContain('getBlock');
    const next = (await walker.getFinalizedBlock(6, start))!;
    expect(next.server).toBe(honest.name);
    const truth = [s.steps[5]!.masterchain, ...s.steps[5]!.shardBlocks].flatMap((b) => decodeBlock(b.boc).transactions.map((t) => t.hash));
    expect(next.block.transactions.map((t) => t.hash).sort()).toEqual(truth.sort());
  });

  it('a forged masterchain block is caught by its file hash; a server that withholds blocks or dies mid-walk is replaced', async () => {
    const upTo = Math.min(BLOCKS, 20);
    // Forges masterchain block 4; claims its head yet withholds the shard blocks under masterchain block 8.
    const under8 = new Set(s.steps[7]!.shardBlocks.map((b) => `${b.id.shard}:${b.id.seqno}`));
    expect(under8.size).toBeGreaterThan(0);
    const liar = await serve(s, {
      lie: {
        forgeBlock: (id: BlockIdExt) => id.workchain === -1 && id.seqno === 4,
        withholdBlock: (id) => id.workchain === 0 && under8.has(`${BigInt.asUintN(64, id.shard).toString(16).padStart(16, '0')}:${id.seqno}`),
      },
    });
    const mortal = await serve(s);
    const honest = await serve(s);
    const events: PoolEvent[] = [];
    const pool = await poolOf([liar, mortal, honest], events);
    const walker = new BlockWalker(pool, { server: liar.name });
    let prev = genesis(s);
    const walked: FinalizedBlock[] = [];
    // The mortal server dies while answering a getBlock of the walk of block 12.
    let dying = false;
    const getBlock = mortal.fake.methods.getBlock!;
    mortal.fake.methods.getBlock = (request) => {
      if (!dying) return getBlock(request);
      void mortal.server.close();
      return new Promise(() => {});
    };
    for (let n = 1; n <= upTo; n++) {
      dying = n === 12;
      const w = (await walker.getFinalizedBlock(n, prev))!;
      if (n === 4) {
        expect(w.server).not.toBe(liar.name);
        expect(events.find((e) => e.type === 'demoted')).toMatchObject({ server: liar.name, reason: expect.stringMatching(/mc\.file_hash/) });
      }
      if (n === 7) walker.pin(liar.name); // demoted, yet asked first: it withholds the blocks of 8
      if (n === 8) {
        expect(w.server).not.toBe(liar.name);
        expect(events.some((e) => e.type === 'failure' && e.server === liar.name && /651/.test(e.reason))).toBe(true);
      }
      if (n === 11) walker.pin(mortal.name); // the walk of 12 starts on the server about to die
      if (n === 12) expect(w.server).not.toBe(mortal.name);
      walked.push(w.block);
      prev = w.trusted;
    }
    expectExactly(walked, s, upTo);
    expect(events.some((e) => e.type === 'failure' && e.server === mortal.name)).toBe(true);
  }, 300_000);
});
