// The devnet control API over real HTTP (Fastify on port 0): each route works on a real devnet,
// and every invalid parameter is a 400 whose JSON error names the field, with nothing submitted.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginCell, internal } from '@ton/core';
import { ChainRejectedError } from '../source.js';
import { highloadQueries, highloadTransfer, nextHighloadQueryId } from './wallets.js';
import { settle } from './genesis.js';
import { devnetComponent } from '../../service/devnet.js';
import type { ServiceContext } from '../../service/component.js';
import { openTestDevnet, serveControlApi, transactionsAfter, type TestDevnet } from '../../../test/support/devnet.js';

let devnet: TestDevnet;
let api: { url: string; close: () => Promise<void> };
let base: string;

beforeAll(async () => {
  devnet = await openTestDevnet();
  api = await serveControlApi(devnet);
  base = api.url;
});
afterAll(async () => {
  await api?.close();
  await devnet?.close();
});

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const id = (name: string) => devnet.directory.wallets.find((w) => w.name === name)!.id;

describe('devnet control API', () => {
  it('lists wallets with TON and jetton balances', async () => {
    const { status, json } = await call('GET', '/devnet/wallets');
    expect(status).toBe(200);
    expect(json.map((w: { name: string }) => w.name)).toEqual(devnet.directory.wallets.map((w) => w.name));
    const alice = json.find((w: { name: string }) => w.name === 'alice');
    expect(alice).toMatchObject({ version: 'v4', address: id('alice'), status: 'active' });
    expect(alice.friendly).toMatch(/^UQ/);
    expect(BigInt(alice.balance)).toBeGreaterThan(0n);
    expect(alice.jettons.find((j: { key: string }) => j.key === 'usdt')).toMatchObject({ symbol: 'USDT', decimals: 6, balance: '10000000000' });
  });

  it('describes the devnet', async () => {
    const { status, json } = await call('GET', '/devnet/info');
    expect(status).toBe(200);
    expect(json.head.seqno).toBe(devnet.chain.masterchainSeqno);
    expect(json.manual).toBe(true);
    expect(json.dns).toMatchObject({ root: devnet.directory.dns.rootId, names: { 'alice.ton': 'alice' } });
    expect(json.jettons.map((j: { key: string }) => j.key)).toEqual(['usdt', 'gram', 'fake-usdt']);
  });

  it('shows the validators and rotates them with a key block', async () => {
    const before = await call('GET', '/devnet/validators');
    expect(before.status).toBe(200);
    expect(before.json).toMatchObject({ set: 0, catchain_seqno: 0, rotation_pending: false });
    expect(before.json.public_keys).toHaveLength(4);
    const rotated = await call('POST', '/devnet/validators/rotate');
    expect(rotated.status).toBe(200);
    expect(rotated.json).toMatchObject({ set: 1, catchain_seqno: 1, rotation_pending: false, key_block: { seqno: devnet.chain.masterchainSeqno } });
    expect(rotated.json.public_keys).not.toEqual(before.json.public_keys);
    expect(devnet.chain.archive().masterchainBlock(rotated.json.key_block.seqno)!.keyBlock).toBe(true);
    expect((await call('GET', '/devnet/validators')).json).toEqual({ ...rotated.json, key_block: undefined });
  });

  it('sends TON, produces blocks on request, and the transfer lands', async () => {
    const before = devnet.chain.masterchainSeqno;
    const sent = await call('POST', '/devnet/send', { from: 'alice', to: 'bob', amount: '1000000000', comment: 'via http' });
    expect(sent.status).toBe(200);
    expect(sent.json.message_hash).toMatch(/^[0-9a-f]{64}$/);
    const first = await call('POST', '/devnet/blocks');
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ workchain: -1, seqno: before + 1, mc_seqno: before + 1 });
    expect(first.json.start_lt).toMatch(/^[0-9]+$/);
    await call('POST', '/devnet/blocks');
    const txs = await transactionsAfter(devnet.chain, before);
    expect(txs[0]!.inMessage!.hash).toBe(sent.json.message_hash);
    expect(txs.find((t) => t.account === id('bob'))!.inMessage!.decoded).toEqual({ kind: 'text_comment', text: 'via http' });
  });

  it('sends a payout batch in one external message; the message\'s timeline names its block and when it was made', async () => {
    const before = devnet.chain.masterchainSeqno;
    const batch = [{ to: 'carol', amount: '2000000', comment: 'payout 2' }, { to: 'dave', amount: '3000000' }];
    const sent = await call('POST', '/devnet/send', { from: 'exchange', to: 'bob', amount: '1000000', comment: 'payout 1', batch });
    expect(sent.status).toBe(200);
    const admitted = await call('GET', `/devnet/messages/${sent.json.message_hash}`);
    expect(admitted).toMatchObject({ status: 200, json: { message_hash: sent.json.message_hash, block: null, produced_at_ms: null, committed_at_ms: null } });
    await call('POST', '/devnet/blocks');
    await call('POST', '/devnet/blocks');
    const txs = await transactionsAfter(devnet.chain, before);
    const root = txs.find((t) => t.inMessage?.hash === sent.json.message_hash)!;
    expect(root.outMessages.map((m) => m.destination).sort()).toEqual([id('bob'), id('carol'), id('dave')].sort());
    expect(txs.find((t) => t.account === id('carol'))!.inMessage!.decoded).toEqual({ kind: 'text_comment', text: 'payout 2' });
    const { json } = await call('GET', `/devnet/messages/${sent.json.message_hash.toUpperCase()}`);
    expect(json.block).toEqual({ workchain: root.block.workchain, shard: root.block.shard, seqno: root.block.seqno });
    expect(json.admitted_at_ms).toBeLessThanOrEqual(json.produced_at_ms);
    expect(json.produced_at_ms).toBeLessThanOrEqual(json.committed_at_ms);
    expect((await call('GET', `/devnet/messages/${'ab'.repeat(32)}`)).status).toBe(404);
  });

  it('sends a highload payout batch of 60 transfers in one external message; every payee gets its amount', async () => {
    const wallet = devnet.directory.wallets.find((w) => w.name === 'highload')!;
    expect((await call('GET', '/devnet/wallets')).json.find((w: { name: string }) => w.name === 'highload')).toMatchObject({ version: 'highload-v2', status: 'active' });
    // fresh payees, so each balance is exactly what the batch paid
    const payees = Array.from({ length: 60 }, (_, i) => `0:${(0xa000 + i).toString(16).padStart(64, '0')}`);
    const amount = (i: number) => String(1_000_000 + i);
    const before = devnet.chain.masterchainSeqno;
    const queriesBefore = highloadQueries(devnet.chain.pendingAccount(wallet.id).data);
    const sent = await call('POST', '/devnet/send', {
      from: 'highload', to: payees[0], amount: amount(0), comment: 'payout 0',
      batch: payees.slice(1).map((to, i) => ({ to, amount: amount(i + 1), comment: `payout ${i + 1}` })),
    });
    expect(sent.status, JSON.stringify(sent.json)).toBe(200);
    // a second send in the same devnet second gets its own query id and lands too; its payee, a deployed
    // wallet, changes in the same block as 60 new accounts (the state's account list once held it twice then)
    const carolBefore = (await devnet.chain.getAccountState(id('carol'))).balance;
    const second = await call('POST', '/devnet/send', { from: 'highload', to: 'carol', amount: '5000000' });
    expect(second.status, JSON.stringify(second.json)).toBe(200);
    await settle(devnet.chain);
    const txs = await transactionsAfter(devnet.chain, before);
    const root = txs.find((t) => t.inMessage?.hash === sent.json.message_hash)!;
    expect(root.account).toBe(wallet.id);
    expect(root.outMessages).toHaveLength(60);
    expect(txs.some((t) => t.inMessage?.hash === second.json.message_hash && t.account === wallet.id)).toBe(true);
    expect((await devnet.chain.getAccountState(id('carol'))).balance).toBeGreaterThan(carolBefore + 4_000_000n);
    for (const [i, payee] of payees.entries()) {
      expect((await devnet.chain.getAccountState(payee)).balance, payee).toBe(BigInt(amount(i)));
    }
    expect(txs.find((t) => t.account === payees[7])!.inMessage!.decoded).toEqual({ kind: 'text_comment', text: 'payout 7' });
    const added = highloadQueries(devnet.chain.pendingAccount(wallet.id).data).filter((q) => !queriesBefore.includes(q));
    expect(added).toHaveLength(2);
    expect(added[0]! >> 32n).toBeGreaterThan(BigInt(devnet.chain.now()));
  });

  it('refuses a highload message whose query id the wallet has already processed', async () => {
    const wallet = devnet.directory.wallets.find((w) => w.name === 'highload')!;
    const pay = (queryId: bigint, text: string) =>
      highloadTransfer(wallet, { queryId, deploy: false, messages: [internal({ to: devnet.directory.wallets.find((w) => w.name === 'dave')!.address, value: 1_000_000n, body: text })] }).toBoc();
    const queryId = nextHighloadQueryId(devnet.chain.pendingAccount(wallet.id).data, devnet.chain.now());
    const before = devnet.chain.masterchainSeqno;
    const first = await devnet.chain.sendExternalMessage(pay(queryId, 'first'));
    // while the first is pending the replay competes with it (a liteserver checks the committed state and
    // admits both); the block takes the first and the wallet refuses the second
    const competing = await devnet.chain.sendExternalMessage(pay(queryId, 'replay while pending'));
    await settle(devnet.chain);
    const landed = (await transactionsAfter(devnet.chain, before)).filter((t) => t.account === wallet.id).map((t) => t.inMessage?.hash);
    expect(landed).toEqual([first.hash]);
    expect(landed).not.toContain(competing.hash);
    expect(highloadQueries(devnet.chain.pendingAccount(wallet.id).data)).toContain(queryId);
    // once committed, a replay is refused at admission
    const replay = devnet.chain.sendExternalMessage(pay(queryId, 'replay after commit'));
    await expect(replay).rejects.toBeInstanceOf(ChainRejectedError);
    await expect(replay).rejects.toMatchObject({ code: 'not_accepted', message: expect.stringContaining('exit code 32') });
    // the same wallet and signer with the next query id is accepted
    await devnet.chain.sendExternalMessage(pay(nextHighloadQueryId(devnet.chain.pendingAccount(wallet.id).data, devnet.chain.now()), 'next'));
    await settle(devnet.chain);
  });

  it('sends jettons, pays links and runs every scenario', async () => {
    const ok = async (path: string, body: unknown) => {
      const res = await call('POST', path, body);
      expect(res.status, `${path} ${JSON.stringify(res.json)}`).toBe(200);
      expect(res.json.message_hash).toMatch(/^[0-9a-f]{64}$/);
      return res.json;
    };
    await ok('/devnet/jetton/send', { from: 'bob', jetton: 'usdt', to: 'merchant', amount: '1000000', comment: 'x', comment_in_ref: true });
    await ok('/devnet/pay', { from: 'carol', link: `ton://transfer/${id('merchant')}?amount=1000000&text=hi` });
    expect((await ok('/devnet/scenarios/bounce', { from: 'carol' })).to).toMatch(/^0:[0-9a-f]{64}$/);
    expect((await ok('/devnet/scenarios/failed-jetton-transfer', { from: 'dave', jetton: 'gram', to: 'alice' })).amount).toBe('1000000000001');
    expect((await ok('/devnet/scenarios/forged-internal-transfer', { from: 'mallory', jetton: 'usdt', to: 'exchange' })).target).toMatch(/^0:/);
    await ok('/devnet/scenarios/forged-notification', { from: 'mallory', to: 'exchange', comment: 'paid?' });
    expect((await ok('/devnet/scenarios/deploy', { from: 'alice' })).address).toMatch(/^0:[0-9a-f]{64}$/);
    expect(devnet.chain.mempoolSize).toBe(7);
    await settle(devnet.chain);
  });
});

describe('devnet control API: bad input', () => {
  const longComment = 'x'.repeat(1001);
  const inlineTooLong = 'y'.repeat(200);
  const cases: Array<[string, string, unknown, string | null]> = [
    ['send without from', '/devnet/send', { to: 'bob', amount: '1' }, 'from'],
    ['send from an unknown wallet', '/devnet/send', { from: 'zed', to: 'bob', amount: '1' }, 'from'],
    ['send to a bad address', '/devnet/send', { from: 'alice', to: 'EQnotanaddress', amount: '1' }, 'to'],
    ['send a non-integer amount', '/devnet/send', { from: 'alice', to: 'bob', amount: '1.5' }, 'amount'],
    ['send a JSON number amount', '/devnet/send', { from: 'alice', to: 'bob', amount: 1000000000 }, 'amount'],
    ['jetton send with a JSON number forward amount', '/devnet/jetton/send', { from: 'alice', jetton: 'usdt', to: 'bob', amount: '1', forward_ton_amount: 123456789012345677 }, 'forward_ton_amount'],
    ['send zero', '/devnet/send', { from: 'alice', to: 'bob', amount: '0' }, 'amount'],
    ['send more than Coins hold', '/devnet/send', { from: 'alice', to: 'bob', amount: (2n ** 121n).toString() }, 'amount'],
    ['send more than the balance', '/devnet/send', { from: 'alice', to: 'bob', amount: '1000000000000000000' }, 'amount'],
    ['send a comment too long', '/devnet/send', { from: 'alice', to: 'bob', amount: '1', comment: longComment }, 'comment'],
    ['send a bad payload BoC', '/devnet/send', { from: 'alice', to: 'bob', amount: '1', payload_boc: 'bm90IGEgYm9j' }, 'payload_boc'],
    ['send both comment and payload', '/devnet/send', { from: 'alice', to: 'bob', amount: '1', comment: 'a', payload_boc: beginCell().endCell().toBoc().toString('base64') }, 'payload_boc'],
    ['send a non-boolean bounce', '/devnet/send', { from: 'alice', to: 'bob', amount: '1', bounce: 'maybe' }, 'bounce'],
    ['send a batch past what a v4 wallet carries', '/devnet/send', { from: 'alice', to: 'bob', amount: '1', batch: Array.from({ length: 4 }, () => ({ to: 'bob', amount: '1' })) }, 'batch'],
    ['send a batch past what the highload wallet carries', '/devnet/send', { from: 'highload', to: 'bob', amount: '1', batch: Array.from({ length: 254 }, () => ({ to: 'bob', amount: '1' })) }, 'batch'],
    ['send a batch to a bad address', '/devnet/send', { from: 'exchange', to: 'bob', amount: '1', batch: [{ to: '0:zz', amount: '1' }] }, 'batch[0].to'],
    ['jetton send of an unknown jetton', '/devnet/jetton/send', { from: 'alice', jetton: 'doge', to: 'bob', amount: '1' }, 'jetton'],
    ['jetton send on an address that is no master', '/devnet/jetton/send', { from: 'alice', jetton: `0:${'11'.repeat(32)}`, to: 'bob', amount: '1' }, 'jetton'],
    ['jetton send of more than the balance', '/devnet/jetton/send', { from: 'alice', jetton: 'usdt', to: 'bob', amount: '999999999999999' }, 'amount'],
    ['jetton send to a bad address', '/devnet/jetton/send', { from: 'alice', jetton: 'usdt', to: '1:xyz', amount: '1' }, 'to'],
    ['jetton send with a non-boolean comment_in_ref', '/devnet/jetton/send', { from: 'alice', jetton: 'usdt', to: 'bob', amount: '1', comment_in_ref: 'yes' }, 'comment_in_ref'],
    ['jetton send with a bad forward amount', '/devnet/jetton/send', { from: 'alice', jetton: 'usdt', to: 'bob', amount: '1', forward_ton_amount: '-1' }, 'forward_ton_amount'],
    ['jetton send of a comment too long to be inline', '/devnet/jetton/send', { from: 'alice', jetton: 'usdt', to: 'bob', amount: '1', comment: inlineTooLong, comment_in_ref: false }, 'comment'],
    ['pay without a link', '/devnet/pay', { from: 'alice' }, 'link'],
    ['pay a link that is not ton://transfer', '/devnet/pay', { from: 'alice', link: 'https://pay.example/1' }, 'link'],
    ['pay a link without amount', '/devnet/pay', { from: 'alice', link: 'ton://transfer/bob' }, 'link'],
    ['pay an expired link', '/devnet/pay', { from: 'alice', link: `ton://transfer/${`0:${'22'.repeat(32)}`}?amount=1&exp=1000` }, 'link'],
    ['pay with a non-boolean ignore_expiry', '/devnet/pay', { from: 'alice', link: 'ton://transfer/x?amount=1', ignore_expiry: 'x' }, 'ignore_expiry'],
    ['bounce towards a deployed wallet', '/devnet/scenarios/bounce', { from: 'alice', to: 'bob' }, 'to'],
    ['failed jetton transfer of an unknown jetton', '/devnet/scenarios/failed-jetton-transfer', { from: 'alice', jetton: 'nope', to: 'bob' }, 'jetton'],
    ['forged internal transfer to a bad owner', '/devnet/scenarios/forged-internal-transfer', { from: 'mallory', jetton: 'usdt', to: '0:zz' }, 'to'],
    ['forged notification with a bad claimed sender', '/devnet/scenarios/forged-notification', { from: 'mallory', to: 'bob', sender: 'nobody?' }, 'sender'],
    ['deploy with a bad amount', '/devnet/scenarios/deploy', { from: 'alice', amount: 'lots' }, 'amount'],
    ['a body that is not JSON', '/devnet/send', '{"from": "alice",', null],
  ];

  it.each(cases)('%s → 400 naming the field', async (_what, path, body, field) => {
    const { status, json } = await call('POST', path, body);
    expect(status).toBe(400);
    expect(typeof json.error).toBe('string');
    if (field === null) expect(json.field).toBeUndefined();
    else {
      expect(json.field).toBe(field);
      expect(json.error).toContain(field);
    }
    expect(devnet.chain.mempoolSize).toBe(0);
  });
});

describe('devnet service component', () => {
  it('registers the control routes and reports health for a devnet source only', async () => {
    const component = await devnetComponent({ source: devnet.chain, config: { devnetControl: 'local' } } as unknown as ServiceContext);
    const other = Fastify();
    await component.routes!(other);
    const res = await other.inject({ method: 'GET', url: '/devnet/info' });
    expect(res.statusCode).toBe(200);
    expect(res.json().head.seqno).toBe(devnet.chain.masterchainSeqno);
    await other.close();
    expect(await component.health!()).toMatchObject({ ok: true, masterchain_seqno: devnet.chain.masterchainSeqno, mempool: 0 });
    const elsewhere = await devnetComponent({ source: { network: 'mainnet' } } as unknown as ServiceContext);
    expect(elsewhere).toEqual({ name: 'devnet' });
  });
});
