// Acceptance: ton-lite-client (a client nobody here wrote) over real ADNL TCP on loopback against our
// ArchiveLiteServer serving a synthetic chain of real blocks with a real v4 wallet: masterchain info, the
// wallet's state (it parses the proof), its `seqno` get-method, the shards, block lookups, a block's
// transactions, and a signed transfer sent with sendMessage that the next block carries out.
import { randomBytes } from 'node:crypto';
import { Address, beginCell, Cell, external, internal, parseTuple, serializeTuple, SendMode, storeMessage, TupleReader } from '@ton/core';
import type { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTheirClient } from '../../../../test/support/liteserver.js';
import { decodeBlock } from '../../decode/index.js';
import { AdnlServer } from '../transport/adnl-server.js';
import { walletChain, WALLET_DEPLOY_AMOUNT, type WalletChain } from '../testing/wallet-chain.js';
import { ArchiveLiteServer } from './archive-server.js';
import { SandboxGetMethods } from './run-method.js';

const MC_SHARD = '-9223372036854775808';

let wc: WalletChain;
let ls: ArchiveLiteServer;
let server: AdnlServer;
let engine: LiteSingleEngine;
let client: LiteClient;
const accepted: Cell[] = [];

beforeAll(async () => {
  wc = await walletChain();
  // A few other transfers, so blocks hold more than the wallet's transaction.
  for (let i = 0; i < 3; i++) {
    wc.chain.transfer({ from: wc.wallet.address, to: wc.chain.addressIn('8000000000000000', i), amount: 1_000n + BigInt(i) });
  }
  wc.chain.nextMasterchainBlock();
  ls = new ArchiveLiteServer(wc.chain, {
    getMethods: new SandboxGetMethods(),
    messages: async (message, cell) => {
      accepted.push(cell);
      await wc.apply(message);
    },
  });
  server = await AdnlServer.listen({ secretKey: randomBytes(32), handler: ls });
  ({ client, engine } = await connectTheirClient({ ...server.address, publicKey: server.publicKey }));
}, 30_000);

afterAll(async () => {
  engine?.close();
  await server?.close();
});

async function seqnoAt(block: Awaited<ReturnType<LiteClient['getMasterchainInfo']>>['last']): Promise<number> {
  const res = await client.runMethod(wc.wallet.address, 'seqno', serializeTuple([]).toBoc(), block);
  expect(res.exitCode).toBe(0);
  return new TupleReader(parseTuple(Cell.fromBase64(res.result!))).readNumber();
}

describe('ton-lite-client ↔ ArchiveLiteServer over a chain with a real wallet', () => {
  it('getMasterchainInfo names the newest masterchain block and the zero state', async () => {
    const info = await client.getMasterchainInfo();
    const head = wc.chain.masterchainBlock(wc.chain.masterchainSeqno)!;
    expect(info.last.seqno).toBe(wc.chain.masterchainSeqno);
    expect(info.last.shard).toBe(MC_SHARD);
    expect(Buffer.from(info.last.rootHash).toString('hex')).toBe(head.id.rootHash);
    expect(Buffer.from(info.last.fileHash).toString('hex')).toBe(head.id.fileHash);
    expect(Buffer.from(info.init.rootHash)).toEqual(wc.chain.zeroStates().masterchain.ref.rootHash);
    expect((await client.getMasterchainInfoExt()).lastUtime).toBe(head.info.genUtime);
  });

  it('getAccountState: the deployed wallet, active with its code, balance and last transaction from the proof', async () => {
    const info = await client.getMasterchainInfo();
    const state = await client.getAccountState(wc.wallet.address, info.last);
    expect(state.state?.storage.state.type).toBe('active');
    const active = state.state!.storage.state as { type: 'active'; state: { code?: Cell | null } };
    expect(active.state.code!.hash()).toEqual(wc.wallet.init.code.hash());
    expect(state.balance.coins).toBeGreaterThan(0n);
    expect(state.balance.coins).toBeLessThan(WALLET_DEPLOY_AMOUNT); // minus the deployment's fees
    expect(state.lastTx).not.toBeNull(); // ton-lite-client reads it from the proof's ShardAccounts
    const absent = await client.getAccountState(new Address(0, Buffer.alloc(32, 0x42)), info.last);
    expect(absent.state).toBeNull();
  });

  it('runMethod runs the wallet\'s `seqno` in the TVM on the archived state; an account without code answers -256', async () => {
    const info = await client.getMasterchainInfo();
    expect(await seqnoAt(info.last)).toBe(0);
    const nothing = await client.runMethod(new Address(0, Buffer.alloc(32, 0x42)), 'seqno', serializeTuple([]).toBoc(), info.last);
    expect(nothing).toMatchObject({ exitCode: -256, result: null }); // not initialized, as the node answers
  });

  it('getAllShardsInfo, lookupBlock (by seqno, lt and utime) and listBlockTransactions agree with the blocks', async () => {
    const info = await client.getMasterchainInfo();
    const shards = await client.getAllShardsInfo(info.last);
    const tops = decodeBlock(wc.chain.masterchainBlock(info.last.seqno)!.boc).shardBlocks!;
    expect(Object.keys(shards.shards)).toEqual(['0']);
    expect(Object.entries(shards.shards['0']!).map(([shard, seqno]) => [BigInt.asUintN(64, BigInt(shard)).toString(16), seqno]))
      .toEqual(tops.map((t) => [t.shard, t.seqno]));
    // Every basechain block since the zero state, each looked up three ways.
    const top = tops[0]!;
    let txs = 0;
    for (let seqno = 1; seqno <= top.seqno; seqno++) {
      const byId = await client.lookupBlockByID({ workchain: 0, shard: MC_SHARD, seqno });
      const block = decodeBlock(wc.chain.block(Buffer.from(byId.id.rootHash).toString('hex'))!.boc);
      expect(block.header.seqno).toBe(seqno);
      const byLt = await client.lookupBlockByLt({ workchain: 0, shard: MC_SHARD, lt: block.header.startLt });
      expect(byLt.id.seqno).toBe(seqno);
      const listed = await client.listBlockTransactions(byId.id);
      expect(listed.incomplete).toBe(false);
      const ours = block.transactions.map((t) => t.hash).sort();
      expect(listed.ids.map((t) => Buffer.from(t.hash!).toString('hex')).sort()).toEqual(ours);
      txs += listed.ids.length;
    }
    expect(txs).toBe(4); // the deployment and three transfers
    const byUtime = await client.lookupBlockByUtime({ workchain: -1, shard: MC_SHARD, utime: info.last.seqno + 1_700_000_000 });
    expect(byUtime.id.seqno).toBe(info.last.seqno);
  });

  it('getFullBlock (lookupBlock, getAllShardsInfo and listBlockTransactions together) lists a block\'s transfers', async () => {
    // Masterchain block 3 commits basechain block 2 with the three transfers. (Block 2, whose parent lists the
    // shard at seqno 0, would come back empty: ton-lite-client reads a previous seqno of 0 as "none".)
    const full = await client.getFullBlock(3);
    const shard = full.shards.find((s) => s.workchain === 0)!;
    expect(shard.seqno).toBe(2);
    const receivers = [0, 1, 2].map((i) => wc.chain.addressIn('8000000000000000', i).hash.toString('hex')).sort();
    expect(shard.transactions.map((t) => Buffer.from(t.account!).toString('hex')).sort()).toEqual(receivers);
  });

  it('sendMessage: a signed transfer is accepted, and the next block carries it out (seqno 1, 1 TON less)', async () => {
    const before = await client.getMasterchainInfo();
    const balance = (await client.getAccountState(wc.wallet.address, before.last)).balance.coins;
    const transfer = wc.wallet.createTransfer({
      seqno: 0, secretKey: wc.keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY,
      messages: [internal({ to: new Address(0, Buffer.alloc(32, 9)), value: 1_000_000_000n, bounce: false })],
    });
    const message = beginCell().store(storeMessage(external({ to: wc.wallet.address, body: transfer }))).endCell();
    expect(await client.sendMessage(message.toBoc())).toEqual({ status: 1 });
    expect(accepted.map((c) => c.hash())).toEqual([message.hash()]);
    const err = await client.sendMessage(Buffer.from('not a message')).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/not a message BoC/);

    wc.chain.nextMasterchainBlock();
    ls.advance();
    const after = await client.getMasterchainInfo();
    expect(after.last.seqno).toBe(before.last.seqno + 1);
    expect(await seqnoAt(after.last)).toBe(1);
    expect(await seqnoAt(before.last)).toBe(0); // the older state stays served
    const spent = balance - (await client.getAccountState(wc.wallet.address, after.last)).balance.coins;
    expect(spent).toBeGreaterThan(1_000_000_000n);
    expect(spent).toBeLessThan(1_100_000_000n);
  });
});
