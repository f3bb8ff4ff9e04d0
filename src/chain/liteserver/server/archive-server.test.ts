// The archive server's newer methods through our own ADNL client, each reply checked by trust/ (the oracle):
// runSmcMethod with every proof mode, listBlockTransactions(Ext) paging and proofs, lookupBlock by lt and
// utime, and what sendMessage and runSmcMethod refuse.
import { randomBytes } from 'node:crypto';
import { Address, beginCell, Cell, parseTuple, serializeTuple, storeMessage } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlock } from '../../decode/index.js';
import { LiteServerError } from '../tl/envelope.js';
import type { BlockIdExt } from '../tl/lite-api.js';
import { AdnlClient } from '../transport/adnl.js';
import { AdnlServer } from '../transport/adnl-server.js';
import { checkAccountState } from '../trust/account.js';
import { proofRoots } from '../trust/merkle.js';
import { checkTransactionInBlock } from '../trust/transactions.js';
import { walletChain, type WalletChain } from '../testing/wallet-chain.js';
import { ArchiveLiteServer, tlBlockId } from './archive-server.js';
import { SandboxGetMethods } from './run-method.js';

let wc: WalletChain;
const servers: AdnlServer[] = [];
const clients: AdnlClient[] = [];
let client: AdnlClient;
let bare: AdnlClient;

async function serve(ls: ArchiveLiteServer): Promise<AdnlClient> {
  const server = await AdnlServer.listen({ secretKey: randomBytes(32), handler: ls });
  const c = await AdnlClient.connect({ ...server.address, publicKey: server.publicKey, pingIntervalMs: 0 });
  servers.push(server);
  clients.push(c);
  return c;
}

async function rejection(p: Promise<unknown>): Promise<LiteServerError> {
  const e = await p.then(() => null, (err: unknown) => err);
  if (!(e instanceof LiteServerError)) throw new Error(`expected a liteServer.error, got ${String(e)}`);
  return e;
}

const SEQNO = 85143; // (crc16('seqno') & 0xffff) | 0x10000, as clients compute the method id

beforeAll(async () => {
  wc = await walletChain();
  for (let i = 0; i < 40; i++) wc.chain.transfer({ from: wc.wallet.address, to: wc.chain.addressIn('8000000000000000', i), amount: 1_000n });
  wc.chain.nextMasterchainBlock();
  client = await serve(new ArchiveLiteServer(wc.chain, { getMethods: new SandboxGetMethods(), messages: () => {} }));
  bare = await serve(new ArchiveLiteServer(wc.chain));
}, 30_000);

afterAll(async () => {
  for (const c of clients) await c.close();
  for (const s of servers) await s.close();
});

const head = (): BlockIdExt => tlBlockId(wc.chain.masterchainBlock(wc.chain.masterchainSeqno)!);
const walletId = () => ({ workchain: 0, id: wc.wallet.address.hash });

describe('ArchiveLiteServer: runSmcMethod', () => {
  it('mode 7: the result, and proofs that prove the very account state the method ran on', async () => {
    const res = await client.query('runSmcMethod', { mode: 7, id: head(), account: walletId(), methodId: BigInt(SEQNO), params: serializeTuple([]).toBoc() });
    expect(res.exitCode).toBe(0);
    expect(parseTuple(Cell.fromBoc(res.result!)[0]!)).toEqual([{ type: 'int', value: 0n }]);
    const ran = proofRoots(res.stateProof!, 'state_proof', 1)[0]!.refs[0]!;
    const proven = checkAccountState({ id: res.id, shardblk: res.shardblk, shardProof: res.shardProof!, proof: res.proof!, state: ran.toBoc() }, walletId());
    expect(proven.kind).toBe('exists');
  });

  it('mode 4 only: the result without proofs; params are passed to the method', async () => {
    const res = await client.query('runSmcMethod', { mode: 4, id: head(), account: walletId(), methodId: BigInt(SEQNO), params: Buffer.alloc(0) });
    expect(res.proof).toBeUndefined();
    expect(res.stateProof).toBeUndefined();
    expect(parseTuple(Cell.fromBoc(res.result!)[0]!)).toEqual([{ type: 'int', value: 0n }]);
  });

  it('an account without code: exit code -256 and the proof of its absence, no result (as the node answers)', async () => {
    const account = { workchain: 0, id: Buffer.alloc(32, 0x42) };
    const res = await client.query('runSmcMethod', { mode: 7, id: head(), account, methodId: BigInt(SEQNO), params: Buffer.alloc(0) });
    expect(res).toMatchObject({ mode: 1, exitCode: -256 });
    expect(res.result).toBeUndefined();
    expect(checkAccountState({ id: res.id, shardblk: res.shardblk, shardProof: res.shardProof!, proof: res.proof!, state: Buffer.alloc(0) }, account)).toEqual({ kind: 'absent' });
  });

  it('refuses init_c7, bad params, and a server without a runner', async () => {
    const base = { id: head(), account: walletId(), methodId: BigInt(SEQNO), params: Buffer.alloc(0) };
    expect((await rejection(client.query('runSmcMethod', { ...base, mode: 8 | 4 }))).message).toMatch(/only bits 0 .* are served/);
    expect((await rejection(client.query('runSmcMethod', { ...base, mode: 4, params: Buffer.from('junk') }))).message).toMatch(/not a VmStack BoC/);
    expect((await rejection(bare.query('runSmcMethod', { ...base, mode: 4 }))).message).toMatch(/runSmcMethod is not served here/);
  });
});

describe('ArchiveLiteServer: listBlockTransactions(Ext)', () => {
  it('pages through a block of 40 transactions in account order; want_proof proves each one in the block', async () => {
    const shardBlock = wc.chain.tops()[0]!;
    const id = tlBlockId({ id: shardBlock });
    const expected = decodeBlock(wc.chain.block(shardBlock.rootHash)!.boc).transactions;
    expect(expected).toHaveLength(40);
    const seen: { account: Buffer; lt: bigint; hash: Buffer }[] = [];
    let after: { account: Buffer; lt: bigint } | undefined;
    for (;;) {
      const page = await client.query('listBlockTransactions', { id, mode: 7 | 32 | (after ? 128 : 0), count: 16, ...(after ? { after } : {}) });
      for (const t of page.ids) {
        seen.push({ account: t.account!, lt: t.lt!, hash: t.hash! });
        checkTransactionInBlock(page.proof, id, t.account!, t.lt!, t.hash!);
      }
      if (!page.incomplete) break;
      after = { account: page.ids.at(-1)!.account!, lt: page.ids.at(-1)!.lt! };
    }
    expect(seen.map((t) => t.account.toString('hex'))).toEqual([...seen.map((t) => t.account.toString('hex'))].sort());
    expect(seen.map((t) => t.hash.toString('hex')).sort()).toEqual(expected.map((t) => t.hash).sort());
    const reversed = await client.query('listBlockTransactions', { id, mode: 7 | 64, count: 256 });
    expect(reversed.ids.map((t) => t.hash!.toString('hex'))).toEqual(seen.map((t) => t.hash.toString('hex')).reverse());
    expect(reversed.proof).toHaveLength(0);
  });

  it('Ext returns the transaction cells themselves', async () => {
    const shardBlock = wc.chain.tops()[0]!;
    const id = tlBlockId({ id: shardBlock });
    const res = await client.query('listBlockTransactionsExt', { id, mode: 7, count: 5 });
    expect(res.incomplete).toBe(true);
    const cells = Cell.fromBoc(res.transactions);
    expect(cells).toHaveLength(5);
    const hashes = new Set(decodeBlock(wc.chain.block(shardBlock.rootHash)!.boc).transactions.map((t) => t.hash));
    for (const c of cells) expect(hashes.has(c.hash().toString('hex'))).toBe(true);
  });
});

describe('ArchiveLiteServer: lookupBlock and sendMessage', () => {
  it('lookupBlock by lt and by utime finds the block holding them', async () => {
    for (let n = 1; n <= wc.chain.masterchainSeqno; n++) {
      const mc = wc.chain.masterchainBlock(n)!;
      const byLt = await client.query('lookupBlock', { mode: 2, id: { workchain: -1, shard: -(1n << 63n), seqno: 0 }, lt: mc.info.startLt });
      expect(byLt.id).toEqual(tlBlockId(mc));
      const byTime = await client.query('lookupBlock', { mode: 4, id: { workchain: -1, shard: -(1n << 63n), seqno: 0 }, utime: mc.info.genUtime });
      expect(byTime.id).toEqual(tlBlockId(mc));
    }
    const beyond = await rejection(client.query('lookupBlock', { mode: 2, id: { workchain: -1, shard: -(1n << 63n), seqno: 0 }, lt: 1n << 60n }));
    expect(beyond.code).toBe(651);
  });

  it('sendMessage takes an inbound external message; internal messages and junk are refused; no sink, no sending', async () => {
    const internalMessage = beginCell().store(storeMessage({
      info: {
        type: 'internal', ihrDisabled: true, bounce: false, bounced: false, src: new Address(0, Buffer.alloc(32, 2)), dest: new Address(0, Buffer.alloc(32, 1)),
        value: { coins: 1n }, ihrFee: 0n, forwardFee: 0n, createdLt: 1n, createdAt: 1,
      },
      body: beginCell().endCell(),
    })).endCell();
    expect((await rejection(client.query('sendMessage', { body: internalMessage.toBoc() }))).message).toMatch(/inbound external messages, not internal/);
    expect((await rejection(client.query('sendMessage', { body: Buffer.from('junk') }))).message).toMatch(/not a message BoC/);
    expect((await rejection(bare.query('sendMessage', { body: Buffer.from('junk') }))).message).toMatch(/sendMessage is not served here/);
  });
});
