// The fake liteserver over real ADNL on loopback: every reply it builds passes the matching proof check of
// trust/ (the checks are the oracle for how the proofs are built), a lying server's replies fail them, and
// ton-lite-client (a client nobody here wrote) reads masterchain info and account states from it.
import { randomBytes } from 'node:crypto';
import { Address, Cell, CellType } from '@ton/core';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlock } from '../../decode/index.js';
import { LiteServerError } from '../tl/envelope.js';
import type { BlockIdExt } from '../tl/lite-api.js';
import { AdnlClient } from '../transport/adnl.js';
import { AdnlServer } from '../transport/adnl-server.js';
import { LitePool } from '../transport/pool.js';
import {
  checkAccountState, checkAllShardsInfo, checkBlockHeaderProof, checkFullBlock, checkShardBlockProof, checkTransactionHistory,
} from '../trust/proofs.js';
import { driveScenario, type Scenario } from './scenario.js';
import { SyntheticLiteServer, tlBlockId, type SyntheticLiteServerOptions } from './synthetic-server.js';
import { proofFailure } from '../../../../test/support/proofs.js';

const MC = { workchain: -1, shard: -(1n << 63n) };

interface Running {
  fake: SyntheticLiteServer;
  server: AdnlServer;
  client: AdnlClient;
}

const running: Running[] = [];
async function serve(s: Scenario, options: SyntheticLiteServerOptions = {}): Promise<Running> {
  const fake = new SyntheticLiteServer(s.chain, options);
  const server = await AdnlServer.listen({ secretKey: randomBytes(32), handler: fake });
  const client = await AdnlClient.connect({ ...server.address, publicKey: server.publicKey, pingIntervalMs: 0 });
  const r = { fake, server, client };
  running.push(r);
  return r;
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

/** Pruned branches under a proof root: a proof shows the path, not the whole tree. */
function prunedCells(boc: Buffer): number {
  let n = 0;
  const visit = (c: Cell): void => {
    if (c.type === CellType.PrunedBranch) n++;
    c.refs.forEach(visit);
  };
  Cell.fromBoc(boc).forEach(visit);
  return n;
}


let s: Scenario;
let honest: Running;
beforeAll(async () => {
  s = driveScenario(26); // a whole cycle: two splits, two merges, gaps
  honest = await serve(s);
});
afterAll(async () => {
  for (const r of running) {
    await r.client.close();
    await r.server.close();
  }
});

describe('SyntheticLiteServer: honest replies pass the proof checks', () => {
  it('the scenario has two splits and two merges', () => {
    expect(s.splits).toBeGreaterThanOrEqual(2);
    expect(s.merges).toBeGreaterThanOrEqual(2);
  });

  it('reports the chain head and the zero state', async () => {
    const info = await honest.client.query('getMasterchainInfo', {});
    const head = s.chain.masterchainBlock(26)!;
    expect(info.last).toEqual(tlBlockId(head));
    expect(info.stateRootHash).toEqual(head.state.hash());
    expect(info.init.rootHash).toEqual(s.chain.zeroStates().masterchain.ref.rootHash);
    const ext = await honest.client.query('getMasterchainInfoExt', { mode: 0 });
    expect(ext.lastUtime).toBe(head.info.genUtime);
    expect((await honest.client.query('getVersion', {})).version).toBe(0x101);
  });

  it('lookupBlock and getBlock of every masterchain block: header proof and full block check, prev_ref to the one before', async () => {
    let prev = s.chain.zeroStates().masterchain.ref;
    for (let n = 1; n <= 26; n++) {
      const header = await honest.client.query('lookupBlock', { mode: 1, id: { ...MC, seqno: n } });
      expect(header.id).toEqual(tlBlockId(s.chain.masterchainBlock(n)!));
      expect(checkBlockHeaderProof(header.headerProof, header.id).info.seqno).toBe(n);
      expect(prunedCells(header.headerProof)).toBeGreaterThanOrEqual(3); // value flow, state update, extra
      const block = await honest.client.query('getBlock', { id: header.id });
      const { info } = checkFullBlock(block.data, header.id);
      expect(info.prev[0]!.rootHash).toBe(prev.rootHash.toString('hex'));
      prev = s.chain.masterchainBlock(n)!.ref;
    }
  });

  it('every shard block: lookupBlock, getBlockHeader and getBlock prove it', async () => {
    const shardBlocks = s.steps.flatMap((step) => step.shardBlocks);
    expect(shardBlocks.length).toBeGreaterThan(20);
    for (const b of shardBlocks) {
      const id = tlBlockId(b);
      const looked = await honest.client.query('lookupBlock', { mode: 1, id: { workchain: 0, shard: id.shard, seqno: id.seqno } });
      expect(looked.id).toEqual(id);
      checkBlockHeaderProof(looked.headerProof, id);
      checkBlockHeaderProof((await honest.client.query('getBlockHeader', { id, mode: 0 })).headerProof, id);
      checkFullBlock((await honest.client.query('getBlock', { id })).data, id);
    }
  });

  it('getAllShardsInfo and getShardInfo at every masterchain block prove its shard tops', async () => {
    for (let n = 1; n <= 26; n++) {
      const mc = tlBlockId(s.chain.masterchainBlock(n)!);
      const all = await honest.client.query('getAllShardsInfo', { id: mc });
      const tops = checkAllShardsInfo(all.proof, all.data, mc);
      const expected = decodeBlock(s.chain.masterchainBlock(n)!.boc).shardBlocks!;
      expect(tops.map((t) => t.rootHash)).toEqual(expected.map((t) => t.rootHash));
      for (const top of tops) {
        const info = await honest.client.query('getShardInfo', { id: mc, workchain: 0, shard: BigInt.asIntN(64, BigInt(`0x${top.shard}`)), exact: true });
        const descr = checkShardBlockProof(info.shardProof, mc, info.shardblk, 'shard', info.shardDescr);
        expect(descr.rootHash).toBe(top.rootHash);
      }
    }
  });

  it('getAccountState proves every account that received a transfer, and its history by getTransactions', async () => {
    const head = tlBlockId(s.chain.masterchainBlock(26)!);
    const accounts = [...new Set(s.sent.map((t) => t.account))];
    for (const raw of accounts) {
      const address = Address.parseRaw(raw);
      const account = { workchain: 0, id: address.hash };
      const reply = await honest.client.query('getAccountState', { id: head, account });
      const proven = checkAccountState(reply, account);
      expect(prunedCells(reply.proof)).toBeGreaterThan(3);
      expect(prunedCells(reply.shardProof)).toBeGreaterThan(3);
      if (proven.kind !== 'exists') throw new Error(`${raw} is not proven to exist`);
      const received = s.sent.filter((t) => t.account === raw);
      const history = await honest.client.query('getTransactions', { count: 16, account, lt: proven.lastTransLt, hash: Buffer.from(proven.lastTransHash, 'hex') });
      const txs = checkTransactionHistory(history.transactions, { hash: proven.lastTransHash, lt: proven.lastTransLt }, address.hash);
      expect(txs).toHaveLength(Math.min(16, received.length));
      expect(history.ids).toHaveLength(txs.length);
    }
  });

  it('getAccountState proves absence, in the basechain and in the masterchain', async () => {
    const head = tlBlockId(s.chain.masterchainBlock(26)!);
    for (const account of [{ workchain: 0, id: Buffer.alloc(32, 0x42) }, { workchain: -1, id: Buffer.alloc(32, 0x42) }]) {
      const reply = await honest.client.query('getAccountState', { id: head, account });
      expect(reply.state).toHaveLength(0);
      expect(checkAccountState(reply, account)).toEqual({ kind: 'absent' });
    }
  });

  it('waitMasterchainSeqno answers once the served head reaches it; sendMessage is recorded; a block above the head is 651', async () => {
    const behind = await serve(s, { head: 20 });
    expect((await behind.client.query('getMasterchainInfo', {})).last.seqno).toBe(20);
    const err = await rejection(behind.client.query('lookupBlock', { mode: 1, id: { ...MC, seqno: 21 } }));
    expect(err).toBeInstanceOf(LiteServerError);
    expect((err as LiteServerError).code).toBe(651);
    const waiting = behind.client.query('getMasterchainInfo', {}, { wait: { seqno: 22, timeoutMs: 5000 } });
    behind.fake.advance(22);
    expect((await waiting).last.seqno).toBe(22);
    expect(await behind.client.query('sendMessage', { body: Buffer.from('hello') })).toEqual({ status: 1 });
    expect(behind.fake.sent).toEqual([Buffer.from('hello')]);
  });

  it('a LitePool of two fake servers routes by head and the replies still check', async () => {
    const a = await serve(s, { head: 10 });
    const b = await serve(s);
    const pool = new LitePool({ servers: [a, b].map((r) => ({ ...r.server.address, publicKey: r.server.publicKey })), headPollMs: 500 });
    try {
      await pool.waitReady(5000);
      const { response, server } = await pool.queryWithServer('lookupBlock', { mode: 1, id: { ...MC, seqno: 25 } }, { minSeqno: 25 });
      expect(server).toBe(`${b.server.address.host}:${b.server.address.port}`);
      checkBlockHeaderProof(response.headerProof, response.id);
    } finally {
      await pool.close();
    }
  });
});

describe('SyntheticLiteServer: lying modes fail the checks', () => {
  it('a tampered proof fails the header, shard, all-shards and account checks', async () => {
    const liar = await serve(s, { lie: { tamperProof: () => true } });
    const mc = tlBlockId(s.chain.masterchainBlock(26)!);
    const header = await liar.client.query('getBlockHeader', { id: mc, mode: 0 });
    expect(proofFailure(() => checkBlockHeaderProof(header.headerProof, mc)).check).toBe('header.root_hash');
    const all = await liar.client.query('getAllShardsInfo', { id: mc });
    expect(proofFailure(() => checkAllShardsInfo(all.proof, all.data, mc)).check).toBe('shards.root_hash');
    const top = decodeBlock(s.chain.masterchainBlock(26)!.boc).shardBlocks![0]!;
    const info = await liar.client.query('getShardInfo', { id: mc, workchain: 0, shard: BigInt.asIntN(64, BigInt(`0x${top.shard}`)), exact: true });
    expect(proofFailure(() => checkShardBlockProof(info.shardProof, mc, info.shardblk)).check).toBe('shard.block_root_hash');
    const account = { workchain: 0, id: Address.parseRaw(s.sent.at(-1)!.account).hash };
    const state = await liar.client.query('getAccountState', { id: mc, account });
    expect(proofFailure(() => checkAccountState(state, account)).check).toBe('account.shard_proof.block_root_hash');
  });

  it('a forged block fails the full-block check; a withheld head is never served', async () => {
    const forged = (id: BlockIdExt) => id.seqno === 5 && id.workchain === -1;
    const liar = await serve(s, { lie: { forgeBlock: forged, withholdAbove: 24 } });
    const id = tlBlockId(s.chain.masterchainBlock(5)!);
    const block = await liar.client.query('getBlock', { id });
    expect(proofFailure(() => checkFullBlock(block.data, id)).check).toBe('block.file_hash');
    expect((await liar.client.query('getMasterchainInfo', {})).last.seqno).toBe(24);
    const err = await rejection(liar.client.query('lookupBlock', { mode: 1, id: { ...MC, seqno: 25 } }));
    expect((err as LiteServerError).code).toBe(651);
  });
});

describe('ton-lite-client reads the fake liteserver', () => {
  it('gets masterchain info and an account state with its balance and last transaction', async () => {
    const engine = new LiteSingleEngine({ host: `tcp://${honest.server.address.host}:${honest.server.address.port}`, publicKey: honest.server.publicKey });
    engine.on('error', () => {});
    try {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('ton-lite-client did not become ready')), 5000);
        engine.once('ready', () => (clearTimeout(t), resolve()));
      });
      const client = new LiteClient({ engine });
      const info = await client.getMasterchainInfo();
      expect(info.last.seqno).toBe(26);
      expect(Buffer.from(info.last.rootHash).toString('hex')).toBe(s.chain.masterchainBlock(26)!.id.rootHash);
      const raw = s.sent.at(-1)!.account;
      const state = await client.getAccountState(Address.parseRaw(raw), info.last);
      const account = { workchain: 0, id: Address.parseRaw(raw).hash };
      const ours = checkAccountState(await honest.client.query('getAccountState', { id: tlBlockId(s.chain.masterchainBlock(26)!), account }), account);
      if (ours.kind !== 'exists') throw new Error('account not proven');
      expect(state.balance.coins).toBe(ours.balance);
      expect(state.balance.coins).toBeGreaterThan(0n);
      expect(state.lastTx?.lt.toString()).toBe(ours.lastTransLt.toString());
      expect(BigInt(state.lastTx!.hash.toString()).toString(16).padStart(64, '0')).toBe(ours.lastTransHash);
    } finally {
      engine.close();
    }
  });
});
