// The liteserver source (issue 19): (1) full blocks downloaded over loopback ADNL, checked by root and file
// hash and decoded, transactions/s on the recorded mainnet blocks, against @ton/core's loadTransaction of
// the same transactions in memory; (2) the chain source following a synthetic chain over loopback ADNL
// (each block proven from the head by a backward link, then walked), blocks/s, against the bare block walk
// (BlockWalker, no backward link) over the same servers.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cell, loadTransaction } from '@ton/core';
import { decodeBlock, readTransactionCells } from '../src/chain/decode/block.js';
import { createLiteserverChain } from '../src/chain/liteserver/index.js';
import { driveScenario, type Scenario } from '../src/chain/liteserver/testing/scenario.js';
import { SyntheticLiteServer } from '../src/chain/liteserver/testing/synthetic-server.js';
import type { BlockIdExt } from '../src/chain/liteserver/tl/lite-api.js';
import { AdnlServer, MasterchainHead } from '../src/chain/liteserver/transport/adnl-server.js';
import { LitePool } from '../src/chain/liteserver/transport/pool.js';
import { checkFullBlock } from '../src/chain/liteserver/trust/blocks.js';
import { BlockWalker, type TrustedMasterchain } from '../src/chain/liteserver/walk.js';
import type { Benchmark, BenchRow } from './harness.js';
import { perSecond } from './lib/stats.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../test/fixtures/mainnet/blocks');

/** The recorded mainnet full blocks (every fixture whose root is a Block) with their ids. */
function mainnetBlocks(): { id: BlockIdExt; boc: Buffer }[] {
  return readdirSync(FIXTURES).filter((f) => f.endsWith('.boc')).flatMap((f) => {
    const boc = readFileSync(join(FIXTURES, f));
    const root = Cell.fromBoc(boc)[0]!;
    if (root.beginParse(true).preloadUint(32) !== 0x11ef55aa) return [];
    const h = decodeBlock(boc).header;
    const id = { workchain: h.workchain, shard: BigInt.asIntN(64, BigInt(`0x${h.shard}`)), seqno: h.seqno, rootHash: root.hash(), fileHash: createHash('sha256').update(boc).digest() };
    return [{ id, boc }];
  });
}

async function closing<T>(things: { close(): Promise<void> }[], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    for (const x of things.reverse()) await x.close();
  }
}

async function fullBlocks(rounds: number): Promise<BenchRow[]> {
  const blocks = mainnetBlocks();
  const byRoot = new Map(blocks.map((b) => [b.id.rootHash.toString('hex'), b.boc]));
  const head = new MasterchainHead(blocks[0]!.id.seqno);
  const server = await AdnlServer.listen({
    secretKey: randomBytes(32),
    handler: { waitMasterchainSeqno: (seqno, ms) => head.wait(seqno, ms), methods: { getMasterchainInfo: () => ({ last: blocks[0]!.id, stateRootHash: Buffer.alloc(32), init: { workchain: -1, rootHash: Buffer.alloc(32), fileHash: Buffer.alloc(32) } }), getBlock: ({ id }) => ({ id, data: byRoot.get(id.rootHash.toString('hex'))! }) } },
  });
  const pool = new LitePool({ servers: [{ ...server.address, publicKey: server.publicKey }], headPollMs: 10_000 });
  return closing([server, pool], async () => {
    await pool.waitReady(10_000);
    let ours = 0;
    const started = performance.now();
    for (let r = 0; r < rounds; r++) {
      for (const b of blocks) {
        const { data } = await pool.query('getBlock', { id: b.id });
        const proven = checkFullBlock(data, b.id);
        ours += decodeBlock(proven.block, { fileHash: b.id.fileHash.toString('hex') }).transactions.length;
      }
    }
    const oursRate = perSecond(ours, performance.now() - started);
    let theirs = 0;
    const t0 = performance.now();
    for (let r = 0; r < rounds; r++) {
      for (const b of blocks) {
        for (const tx of readTransactionCells(Cell.fromBoc(b.boc)[0]!.refs[3]!.refs[2]!)) (loadTransaction(tx.beginParse()), theirs++);
      }
    }
    const baseRate = perSecond(theirs, performance.now() - t0);
    return [{
      metric: 'mainnet full blocks: getBlock over loopback ADNL + root/file hash check + decode',
      value: oursRate, unit: 'tx/s', baseline: { name: '@ton/core Cell.fromBoc of the same blocks + loadTransaction of each transaction, in memory', value: baseRate },
      ratio: oursRate / baseRate,
      note: `${blocks.length} recorded blocks, ${ours / rounds} transactions, ${rounds} rounds; ours adds the download, the root and file hash checks and our whole decode (messages, phases, payloads) to the same BoC parse; both are dominated by the BoC parse`,
    }];
  });
}

async function walks(s: Scenario, blocks: number): Promise<BenchRow[]> {
  const fakes = [new SyntheticLiteServer(s.chain), new SyntheticLiteServer(s.chain)];
  const servers = await Promise.all(fakes.map((fake) => AdnlServer.listen({ secretKey: randomBytes(32), handler: fake })));
  const liteservers = servers.map((x) => ({ ...x.address, publicKey: x.publicKey }));
  return closing([...servers], async () => {
    const z = s.chain.zeroStates().masterchain.ref;
    const zeroState = { workchain: -1, shard: -(1n << 63n), seqno: 0, rootHash: z.rootHash, fileHash: z.fileHash };
    const chain = createLiteserverChain({ config: { liteservers, anchor: { zeroState, initBlock: zeroState, hardforks: [] } }, network: 'testnet', trust: 'fast' });
    await chain.start();
    let source: number;
    let txs = 0;
    try {
      await chain.getMasterchainHead();
      const started = performance.now();
      for (let n = 2; n <= blocks; n++) txs += (await chain.getFinalizedBlock(n))!.transactions.length;
      source = perSecond(blocks - 1, performance.now() - started);
    } finally {
      await chain.stop();
    }
    const pool = new LitePool({ servers: liteservers });
    const bare = await closing([pool], async () => {
      await pool.waitReady(10_000);
      const walker = new BlockWalker(pool);
      const first = s.chain.masterchainBlock(1)!.id;
      let prev: TrustedMasterchain = await walker.trusted({ workchain: -1, shard: first.shard, seqno: 1, rootHash: first.rootHash, fileHash: first.fileHash });
      const started = performance.now();
      for (let n = 2; n <= blocks; n++) prev = (await walker.getFinalizedBlock(n, prev))!.trusted;
      return perSecond(blocks - 1, performance.now() - started);
    });
    return [{
      metric: `chain source following a synthetic chain over loopback ADNL (${s.splits} splits, ${s.merges} merges)`,
      value: source, unit: 'blocks/s', baseline: { name: 'the bare block walk (BlockWalker, no backward link per block) over the same servers', value: bare },
      ratio: source / bare,
      note: `${blocks - 1} masterchain blocks, ${txs} transactions; the source proves each block from the head (lookupBlock + getBlockProof) before walking it`,
    }];
  });
}

const bench: Benchmark = {
  name: 'liteserver',
  description: 'Liteserver source: mainnet full blocks downloaded + hash-checked + decoded (tx/s vs @ton/core loadTransaction); the chain source following a synthetic chain over loopback ADNL (blocks/s vs the bare walk).',
  issue: 19,
  budgetSeconds: 120,
  async run(ctx) {
    ctx.progress('mainnet blocks over loopback ADNL');
    const rows = await fullBlocks(Math.max(5, Math.round(200 * ctx.scale)));
    const blocks = Math.max(30, Math.round(200 * ctx.scale));
    ctx.progress(`building a synthetic chain of ${blocks} masterchain blocks`);
    const s = driveScenario(blocks);
    ctx.progress('following it');
    rows.push(...(await walks(s, blocks)));
    return rows;
  },
};

export default bench;
