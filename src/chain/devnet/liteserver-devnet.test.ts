// Acceptance (issue #21): ton-lite-client, a client nobody here wrote, talks to a real devnet's liteserver over
// ADNL TCP on loopback: masterchain info, a genesis wallet's state (it parses the proof), `seqno` by runMethod,
// the shards, block lookups, a block's transactions, and a signed transfer by sendMessage that the next
// devnet block carries out. Our own proof checks (trust/) accept the devnet's proofs too.
import { keyPairFromSeed } from '@ton/crypto';
import { WalletContractV4 } from '@ton/ton';
import { Address, beginCell, Cell, external, internal, parseTuple, serializeTuple, SendMode, storeMessage, TupleReader } from '@ton/core';
import type { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDevnet, type TestDevnet } from '../../../test/support/devnet.js';
import { connectTheirClientByConfig } from '../../../test/support/liteserver.js';
import { decodeBlock } from '../decode/index.js';
import type { BlockIdExt } from '../liteserver/tl/lite-api.js';
import { LiteServerError } from '../liteserver/tl/envelope.js';
import { AdnlClient } from '../liteserver/transport/adnl.js';
import { checkAccountState } from '../liteserver/trust/account.js';
import { checkBlockHeaderProof, checkFullBlock } from '../liteserver/trust/blocks.js';
import { checkAllShardsInfo } from '../liteserver/trust/shards.js';
import { randomBytes } from 'node:crypto';
import { proofFailure } from '../../../test/support/proofs.js';
import { SyntheticLiteServer } from '../liteserver/testing/synthetic-server.js';
import { AdnlServer } from '../liteserver/transport/adnl-server.js';
import { DevnetLiteServer } from './liteserver.js';
import { devnetSeed } from './wallets.js';

let devnet: TestDevnet;
let ls: DevnetLiteServer;
let engine: LiteSingleEngine;
let client: LiteClient;
let ours: AdnlClient;
const MC_SHARD = '-9223372036854775808';

type TheirBlockId = Awaited<ReturnType<LiteClient['getMasterchainInfo']>>['last'];

beforeAll(async () => {
  devnet = await openTestDevnet();
  await devnet.chain.produceBlock();
  ls = await DevnetLiteServer.start({ archive: devnet.chain.archive(), feed: devnet.chain, dataDir: devnet.dataDir, port: 0 });
  ({ client, engine } = await connectTheirClientByConfig(ls.globalConfig()));
  ours = await AdnlClient.connect({ ...ls.address, publicKey: ls.publicKey, pingIntervalMs: 0 });
}, 60_000);

afterAll(async () => {
  engine?.close();
  await ours?.close();
  await ls?.close();
  await devnet?.close();
});

const alice = () => devnet.directory.wallets.find((w) => w.name === 'alice')!;
const tl = (id: TheirBlockId): BlockIdExt => ({ workchain: id.workchain, shard: BigInt(id.shard), seqno: id.seqno, rootHash: Buffer.from(id.rootHash), fileHash: Buffer.from(id.fileHash) });

async function seqnoAt(block: TheirBlockId): Promise<number> {
  const res = await client.runMethod(alice().address, 'seqno', serializeTuple([]).toBoc(), block);
  expect(res.exitCode).toBe(0);
  return new TupleReader(parseTuple(Cell.fromBase64(res.result!))).readNumber();
}

describe('ton-lite-client ↔ the devnet liteserver', () => {
  it('getMasterchainInfo: the devnet head with its real hashes, the devnet zero state as init', async () => {
    const info = await client.getMasterchainInfo();
    const head = await devnet.chain.getMasterchainHead();
    expect(info.last.seqno).toBe(head.seqno);
    expect(info.last.shard).toBe(MC_SHARD);
    expect(Buffer.from(info.last.rootHash).toString('hex')).toBe(head.rootHash);
    expect(Buffer.from(info.last.fileHash).toString('hex')).toBe(head.fileHash);
    const block = devnet.chain.archive().masterchainBlock(info.last.seqno)!;
    checkFullBlock(block.boc, tl(info.last));
    checkBlockHeaderProof((await ours.query('getBlockHeader', { id: tl(info.last), mode: 0 })).headerProof, tl(info.last));
  });

  it('getAccountState of a genesis wallet: ton-lite-client parses it, our checks prove it', async () => {
    const info = await client.getMasterchainInfo();
    const state = await client.getAccountState(alice().address, info.last);
    expect(state.state?.storage.state.type).toBe('active');
    const balance = (await devnet.chain.getAccountState(alice().id)).balance;
    expect(state.balance.coins).toBe(balance);
    expect(state.lastTx).not.toBeNull();
    const account = { workchain: 0, id: alice().address.hash };
    const proven = checkAccountState(await ours.query('getAccountState', { id: tl(info.last), account }), account);
    expect(proven.kind === 'exists' && proven.balance).toBe(balance);
  });

  it('runMethod `seqno`, getAllShardsInfo, lookupBlock and listBlockTransactions', async () => {
    const info = await client.getMasterchainInfo();
    expect(await seqnoAt(info.last)).toBe(await devnet.chain.runGetMethod(alice().id, 'seqno').then((r) => Number((r.stack[0] as { value: bigint }).value)));
    const shards = await client.getAllShardsInfo(info.last);
    const all = await ours.query('getAllShardsInfo', { id: tl(info.last) });
    const tops = checkAllShardsInfo(all.proof, all.data, tl(info.last));
    expect(Object.values(shards.shards['0']!)).toEqual(tops.map((t) => t.seqno));
    // The genesis block's transactions, as listed by the server and as decoded from the block.
    const first = await client.lookupBlockByID({ workchain: 0, shard: MC_SHARD, seqno: tops[0]!.seqno });
    const listed = await client.listBlockTransactions(first.id, { mode: 7, count: 256 });
    const decoded = decodeBlock(devnet.chain.archive().block(Buffer.from(first.id.rootHash).toString('hex'))!.boc);
    expect(listed.ids.map((t) => Buffer.from(t.hash!).toString('hex')).sort()).toEqual(decoded.transactions.map((t) => t.hash).sort());
  });

  it('sendMessage: a transfer signed with alice\'s key enters the devnet mempool; the next block carries it out', async () => {
    const before = await client.getMasterchainInfo();
    const seqno = await seqnoAt(before.last);
    const keys = keyPairFromSeed(devnetSeed('alice'));
    const wallet = WalletContractV4.create({ workchain: 0, publicKey: keys.publicKey });
    expect(wallet.address.equals(alice().address)).toBe(true);
    const to = devnet.directory.wallets.find((w) => w.name === 'bob')!.address;
    const body = wallet.createTransfer({ seqno, secretKey: keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY, messages: [internal({ to, value: 1_000_000_000n, bounce: false })] });
    const message = beginCell().store(storeMessage(external({ to: wallet.address, body }))).endCell();
    expect(await client.sendMessage(message.toBoc())).toEqual({ status: 1 });
    expect(devnet.chain.mempoolSize).toBe(1);
    const again = await client.sendMessage(message.toBoc()).catch((e: unknown) => e);
    expect((again as Error).message).toMatch(/the devnet refused the message: .*already in the mempool/);

    await devnet.chain.produceBlock();
    await devnet.chain.produceBlock(); // bob's wallet receives in the block after alice's
    const after = await client.getMasterchainInfo();
    expect(after.last.seqno).toBe(before.last.seqno + 2);
    expect(await seqnoAt(after.last)).toBe(seqno + 1);
    const bobBefore = (await client.getAccountState(to, before.last)).balance.coins;
    const bobAfter = (await client.getAccountState(to, after.last)).balance.coins;
    expect(bobAfter - bobBefore).toBeGreaterThan(990_000_000n); // 1 TON less bob's own compute fee
    expect(bobAfter - bobBefore).toBeLessThanOrEqual(1_000_000_000n);
  });

  it('an address that never existed is absent; its get-method answers -256 (not initialized)', async () => {
    const info = await client.getMasterchainInfo();
    const nobody = new Address(0, Buffer.alloc(32, 0x42));
    expect((await client.getAccountState(nobody, info.last)).state).toBeNull();
    const nothing = await client.runMethod(nobody, 'seqno', serializeTuple([]).toBoc(), info.last);
    expect(nothing).toMatchObject({ exitCode: -256, result: null }); // not initialized, as the node answers
  });

  it('tests only: the lying fake over the devnet\'s own archive serves a forged block and tampered proofs that fail the checks', async () => {
    const liar = new SyntheticLiteServer(devnet.chain.archive(), { lie: { forgeBlock: (id) => id.workchain === -1, tamperProof: () => true } });
    const server = await AdnlServer.listen({ secretKey: randomBytes(32), handler: liar });
    const c = await AdnlClient.connect({ ...server.address, publicKey: server.publicKey, pingIntervalMs: 0 });
    try {
      const { last } = await c.query('getMasterchainInfo', {});
      expect(last.seqno).toBe(devnet.chain.masterchainSeqno);
      const block = await c.query('getBlock', { id: last });
      expect(proofFailure(() => checkFullBlock(block.data, last)).check).toBe('block.file_hash');
      const header = await c.query('getBlockHeader', { id: last, mode: 0 });
      expect(proofFailure(() => checkBlockHeaderProof(header.headerProof, last)).check).toBe('header.root_hash');
      const account = { workchain: 0, id: alice().address.hash };
      const state = await c.query('getAccountState', { id: last, account });
      expect(proofFailure(() => checkAccountState(state, account)).check).toBe('account.shard_proof.block_root_hash');
    } finally {
      await c.close();
      await server.close();
    }
  });

  it('blocks whose state the devnet no longer keeps: their BoCs and headers are served, state queries answer 651', async () => {
    const old = tl(await client.getMasterchainInfo().then((i) => i.last));
    for (let i = 0; i < 40; i++) await devnet.chain.produceBlock();
    checkFullBlock((await ours.query('getBlock', { id: old })).data, old);
    checkBlockHeaderProof((await ours.query('getBlockHeader', { id: old, mode: 0 })).headerProof, old);
    const err = await ours.query('getAccountState', { id: old, account: { workchain: 0, id: alice().address.hash } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LiteServerError);
    expect(err).toMatchObject({ code: 651 });
    expect((err as Error).message).toMatch(/no longer kept/);
    const now = tl((await client.getMasterchainInfo()).last);
    expect(checkAccountState(await ours.query('getAccountState', { id: now, account: { workchain: 0, id: alice().address.hash } }), { workchain: 0, id: alice().address.hash }).kind).toBe('exists');
  });
});
