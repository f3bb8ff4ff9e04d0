// The liteserver source (issue 19): (1) full blocks downloaded over loopback ADNL, checked by root and file
// hash and decoded, transactions/s on the recorded mainnet blocks, against @ton/core's loadTransaction of
// the same transactions in memory; (2) the chain source following a synthetic chain over loopback ADNL
// (each block proven from the head by a backward link, then walked), blocks/s, against the bare block walk
// (BlockWalker, no backward link) over the same servers.
// The machine is shared: each pair is measured interleaved, round by round, so both sides see the same
// load, and the fake servers run in this process, so their time (indexing, building proofs) is measured
// and taken out of the client's.
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

/** The cell count a BoC's header declares (serialized_boc: magic, flags + size, off_bytes, cells). */
function bocCellCount(boc: Buffer): number {
  return boc.readUIntBE(6, boc[4]! & 7);
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
    const checkAndDecode = (data: Buffer, id: BlockIdExt) =>
      decodeBlock(checkFullBlock(data, id).block, { fileHash: id.fileHash.toString('hex') }).transactions.length;
    const sides = {
      // what the walk does per block: download, root and file hash, decode
      walk: async () => {
        let n = 0;
        for (const b of blocks) n += checkAndDecode((await pool.query('getBlock', { id: b.id })).data, b.id);
        return n;
      },
      // the same without the download
      local: async () => {
        let n = 0;
        for (const b of blocks) n += checkAndDecode(b.boc, b.id);
        return n;
      },
      // @ton/core: parse the BoC, find the transaction cells, loadTransaction each
      core: async () => {
        let n = 0;
        for (const b of blocks) for (const tx of readTransactionCells(Cell.fromBoc(b.boc)[0]!.refs[3]!.refs[2]!)) (loadTransaction(tx.beginParse()), n++);
        return n;
      },
    };
    const ms = { walk: 0, local: 0, core: 0 };
    const txs = { walk: 0, local: 0, core: 0 };
    for (const side of Object.keys(sides) as (keyof typeof sides)[]) await sides[side](); // warm up
    for (let r = 0; r < rounds; r++) {
      // a different order each round, so no side always runs right after another
      const order: (keyof typeof sides)[] = r % 2 ? ['core', 'local', 'walk'] : ['walk', 'local', 'core'];
      for (const side of order) {
        const t = performance.now();
        txs[side] += await sides[side]();
        ms[side] += performance.now() - t;
      }
    }
    const rate = (side: keyof typeof ms) => perSecond(txs[side], ms[side]);
    const cells = blocks.reduce((n, b) => n + bocCellCount(b.boc), 0);
    return [{
      metric: 'mainnet full blocks: getBlock over loopback ADNL + root/file hash check + decode',
      value: rate('walk'), unit: 'tx/s', baseline: { name: '@ton/core Cell.fromBoc of the same blocks + loadTransaction of each transaction, in memory', value: rate('core') },
      ratio: rate('walk') / rate('core'),
      note: `${blocks.length} recorded blocks, ${txs.walk / rounds} transactions, ${rounds} rounds interleaved with the baseline; the same check + decode without the download: ${Math.round(rate('local'))} tx/s (${(rate('local') / rate('core')).toFixed(2)}× the baseline), so the ADNL round trip (both ends in this process) costs ${Math.round((1 - rate('walk') / rate('local')) * 100)}%. Ours reads the BoC with src/chain/cell (one arena for the hash checks and the decode) and adds our whole decode (messages, phases, payloads); the baseline parses with @ton/core's Cell.fromBoc (${cells} cells per round: the walk reads ${Math.round(perSecond(cells * rounds, ms.walk))} cells/s)`,
    }];
  });
}

/** Time spent inside the fake servers' handlers (this process), so it can be taken out of the client's. */
function timeHandlers(fakes: SyntheticLiteServer[]): { ms: number } {
  const spent = { ms: 0 };
  for (const fake of fakes) {
    const methods = fake.methods as Record<string, (r: unknown) => unknown>;
    for (const [name, fn] of Object.entries(methods)) {
      methods[name] = (r: unknown) => {
        const t = performance.now();
        try {
          return fn(r);
        } finally {
          spent.ms += performance.now() - t;
        }
      };
    }
  }
  return spent;
}

async function walks(s: Scenario, blocks: number, rounds: number, progress: (m: string) => void): Promise<BenchRow[]> {
  const fakes = [new SyntheticLiteServer(s.chain), new SyntheticLiteServer(s.chain)];
  // Index the chain in both fakes now (they do it lazily on the first lookup), outside any timing.
  for (const fake of fakes) fake.methods.lookupBlock!({ mode: 1, id: { workchain: -1, shard: -(1n << 63n), seqno: blocks } });
  const server = timeHandlers(fakes);
  const servers = await Promise.all(fakes.map((fake) => AdnlServer.listen({ secretKey: randomBytes(32), handler: fake })));
  const liteservers = servers.map((x) => ({ ...x.address, publicKey: x.publicKey }));
  return closing([...servers], async () => {
    const z = s.chain.zeroStates().masterchain.ref;
    const zeroState = { workchain: -1, shard: -(1n << 63n), seqno: 0, rootHash: z.rootHash, fileHash: z.fileHash };
    const chain = createLiteserverChain({ config: { liteservers, anchor: { zeroState, initBlock: zeroState, hardforks: [] } }, network: 'testnet', trust: 'fast' });
    const pool = new LitePool({ servers: liteservers });
    const first = s.chain.masterchainBlock(1)!.id;
    const firstRef = { workchain: -1, shard: first.shard, seqno: 1, rootHash: first.rootHash, fileHash: first.fileHash };
    const total = { source: { wall: 0, server: 0, tx: 0 }, bare: { wall: 0, server: 0, tx: 0 } };
    const timed = async (side: keyof typeof total, run: () => Promise<number>) => {
      const s0 = server.ms;
      const t = performance.now();
      total[side].tx += await run();
      total[side].wall += performance.now() - t;
      total[side].server += server.ms - s0;
    };
    try {
      await chain.start();
      await chain.getMasterchainHead();
      await pool.waitReady(10_000);
      const walker = new BlockWalker(pool);
      // The source from block 2 up (it proves each from the head first), the bare walk over the same
      // blocks from trusted block 1; alternating which goes first.
      const source = async () => {
        let tx = 0;
        for (let n = 2; n <= blocks; n++) tx += (await chain.getFinalizedBlock(n))!.transactions.length;
        return tx;
      };
      const bare = async () => {
        let tx = 0;
        let prev: TrustedMasterchain = await walker.trusted(firstRef);
        for (let n = 2; n <= blocks; n++) {
          const walked = (await walker.getFinalizedBlock(n, prev))!;
          tx += walked.block.transactions.length;
          prev = walked.trusted;
        }
        return tx;
      };
      for (let r = 0; r < rounds; r++) {
        progress(`following ${blocks} blocks, round ${r + 1} of ${rounds}`);
        if (r % 2 === 0) (await timed('source', source), await timed('bare', bare));
        else (await timed('bare', bare), await timed('source', source));
      }
    } finally {
      await chain.stop();
      await pool.close();
    }
    const followed = (blocks - 1) * rounds;
    const client = (side: keyof typeof total) => perSecond(followed, total[side].wall - total[side].server);
    const wall = (side: keyof typeof total) => perSecond(followed, total[side].wall);
    return [{
      metric: `chain source following a synthetic chain over loopback ADNL (${s.splits} splits, ${s.merges} merges): client time`,
      value: client('source'), unit: 'blocks/s', baseline: { name: 'the bare block walk (BlockWalker, no backward link per block) over the same servers', value: client('bare') },
      ratio: client('source') / client('bare'),
      note: `${blocks - 1} masterchain blocks × ${rounds} rounds interleaved, ${total.source.tx / rounds} transactions per round: ${Math.round(perSecond(total.source.tx, total.source.wall - total.source.server))} tx/s (bare walk ${Math.round(perSecond(total.bare.tx, total.bare.wall - total.bare.server))} tx/s). Client time = wall time minus the in-process fake servers' handler time (their proofs); wall time ${wall('source').toFixed(1)} blocks/s (bare walk ${wall('bare').toFixed(1)}). The source proves each block from the head (lookupBlock + getBlockProof) before walking it`,
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
    const rows = await fullBlocks(Math.max(6, Math.round(40 * ctx.scale)));
    const blocks = Math.max(30, Math.round(200 * ctx.scale));
    ctx.progress(`building a synthetic chain of ${blocks} masterchain blocks`);
    const s = driveScenario(blocks);
    ctx.progress('following it');
    rows.push(...(await walks(s, blocks, 2, ctx.progress)));
    return rows;
  },
};

export default bench;
