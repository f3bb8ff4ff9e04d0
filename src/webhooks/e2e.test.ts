// End to end on the devnet: the real service (devnet, follower, event log, webhooks component)
// with real transactions, a real local receiver and the manual clock for the retry schedule.
import { webhooksMigrations } from './migrations.js';
import { Cell } from '@ton/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestService, type TestService } from '../../test/support/service.js';
import type { TransactionModel } from '../chain/model.js';
import type { ComponentFactory } from '../service/component.js';
import { FakeClock } from '../delivery/clock.js';
import { sha256Hex } from '../delivery/signing.js';
import { createWebhooksComponent } from './component.js';
import { Receiver, until } from '../../test/support/webhooks.js';

const MIN = 60_000;

describe('webhooks on the devnet', () => {
  const clock = new FakeClock(Date.now());
  let service: TestService;
  let key: string;
  let wallets: Record<string, string>;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    service = await startTestService({
      components: [
        { name: 'devnet', load: async () => (await import('../service/devnet.js')).devnetComponent },
        { name: 'webhooks', migrations: webhooksMigrations, load: async (): Promise<ComponentFactory> => (ctx) => createWebhooksComponent(ctx) },
      ],
      delivery: { clock },
    });
    key = await service.key('webhooks');
    const list = (await (await service.api('/devnet/wallets')).json()) as Array<{ name: string; address: string; jettons: Array<{ key: string; wallet: string }> }>;
    wallets = Object.fromEntries(list.flatMap((w) => [[w.name, w.address], ...w.jettons.map((j) => [`${w.name}.${j.key}`, j.wallet])]));
  });

  afterAll(async () => {
    await service?.close();
  });

  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });

  const call = async (method: string, path: string, json?: unknown) => {
    const res = await service.api(path, { method, json, auth: key });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  async function webhook(): Promise<{ id: number; secret: string; token: string; receiver: Receiver }> {
    const receiver = await new Receiver().listen(0);
    receivers.push(receiver);
    const { body } = await call('POST', '/webhooks', { endpoint: receiver.url });
    return { id: body.webhook_id, secret: body.signing_secret, token: body.token, receiver };
  }

  /** Runs a devnet action, settles the chain, and returns the transactions of the new blocks. */
  async function onChain(action: () => Promise<unknown>): Promise<TransactionModel[]> {
    const before = (await service.source.getMasterchainHead()).seqno;
    await action();
    await service.settle();
    const head = (await service.source.getMasterchainHead()).seqno;
    const txs: TransactionModel[] = [];
    for (let s = before + 1; s <= head; s++) txs.push(...(await service.source.getFinalizedBlock(s))!.transactions);
    return txs;
  }

  const send = (from: string, to: string, comment = 'hello') =>
    service.api('/devnet/send', { method: 'POST', json: { from, to, amount: '10000000', comment } }).then(async (r) => {
      expect(r.status).toBe(200);
      return (await r.json()) as { message_hash: string };
    });

  const engine = () => (service.components.find((c) => c.name === 'webhooks') as ReturnType<typeof createWebhooksComponent>).webhooks.engine;

  it('a transfer to a subscribed account gives one POST with the exact body and headers, signed', async () => {
    const hook = await webhook();
    await call('POST', `/webhooks/${hook.id}/account-tx/subscribe`, { accounts: [{ account_id: wallets.bob }] });
    const txs = await onChain(() => send('alice', 'bob'));
    const bobTx = txs.filter((t) => t.account === wallets.bob);
    expect(bobTx).toHaveLength(1);
    await hook.receiver.waitFor(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(hook.receiver.requests).toHaveLength(1);
    const req = hook.receiver.requests[0]!;
    const body = `{"account_id":"${wallets.bob}","lt":${bobTx[0]!.lt},"tx_hash":"${bobTx[0]!.hash}"}`;
    expect(req.body).toBe(body);
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: `Bearer ${hook.token}`,
      'idempotency-key': sha256Hex(body),
      'webhook-event-type': 'account_tx',
    });
    expect(req.headers['user-agent']).toMatch(/^tonwatch-webhooks\//);
    const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
    const verifier = new Webhook(hook.secret);
    expect(verifier.verify(req.body, headers)).toEqual(JSON.parse(body));
    const tampered = req.body.slice(0, -3) + (req.body.at(-3) === 'a' ? 'b' : 'a') + req.body.slice(-2);
    expect(tampered).toHaveLength(req.body.length);
    expect(() => verifier.verify(tampered, headers)).toThrow();

    // Replay from that lt: the same event again, with the same webhook-id.
    const replay = await call('POST', `/webhooks/${hook.id}/account-tx/replay`, { account_id: wallets.bob, from_lt: String(bobTx[0]!.lt) });
    expect(replay.body).toEqual({ replayed: 1, first_lt: Number(bobTx[0]!.lt), last_lt: Number(bobTx[0]!.lt) });
    await hook.receiver.waitFor(2);
    expect(hook.receiver.requests[1]!.body).toBe(body);
    expect(hook.receiver.requests[1]!.headers['webhook-id']).toBe(req.headers['webhook-id']);
    expect((await call('POST', `/webhooks/${hook.id}/account-tx/replay`, { account_id: wallets.carol, from_lt: 0 })).body.field).toBe('account_id');
  });

  it('500 three times then 200: four identical attempts on the schedule; offline then online; failed_* then a new cursor', async () => {
    const hook = await webhook();
    hook.receiver.respond = (_r, n) => ({ status: n < 3 ? 500 : 200 });
    await call('POST', `/webhooks/${hook.id}/account-tx/subscribe`, { accounts: [{ account_id: wallets.carol }] });
    const txs = await onChain(() => send('alice', 'carol'));
    const tx = txs.find((t) => t.account === wallets.carol)!;
    await hook.receiver.waitFor(1);
    const sub = async () => (await call('GET', `/webhooks/${hook.id}/account-tx/subscriptions`)).body.account_tx_subscriptions[0];
    const status = async () => (await call('GET', '/webhooks')).body.webhooks.find((w: any) => w.id === hook.id);
    for (let attempt = 1; attempt <= 3; attempt++) {
      await until(async () => (await sub()).failed_attempts === attempt, 10_000, `failed_attempts = ${attempt}`);
      expect(await sub()).toMatchObject({ account_id: wallets.carol, last_delivered_lt: 0, failed_lt: Number(tx.lt), failed_attempts: attempt });
      expect(await status()).toMatchObject({ status: 'offline', status_failed_attempts: attempt });
      clock.advance(MIN);
      await hook.receiver.waitFor(attempt + 1);
    }
    await until(async () => (await sub()).failed_attempts === undefined, 10_000, 'failure cleared');
    expect(await sub()).toEqual({ account_id: wallets.carol, last_delivered_lt: Number(tx.lt) });
    expect(await status()).toMatchObject({ status: 'online', status_failed_attempts: 0 });
    const reqs = hook.receiver.requests;
    expect(reqs).toHaveLength(4);
    const t0 = Number(reqs[0]!.headers['webhook-timestamp']);
    expect(reqs.map((r) => Number(r.headers['webhook-timestamp']) - t0)).toEqual([0, 60, 120, 180]);
    for (const r of reqs) {
      expect(r.body).toBe(reqs[0]!.body);
      expect(r.headers['idempotency-key']).toBe(reqs[0]!.headers['idempotency-key']);
      expect(r.headers['webhook-id']).toBe(reqs[0]!.headers['webhook-id']);
    }
    const logs = (await call('GET', `/webhooks/${hook.id}/logs`)).body.logs;
    expect(logs.map((l: any) => [l.attempt, l.status_code])).toEqual([[3, 500], [2, 500], [1, 500]]);
  });

  it('lt1 < lt2 < lt3 of one account with lt2 failing arrive in order after recovery, while another account keeps flowing', async () => {
    const hook = await webhook();
    await call('POST', `/webhooks/${hook.id}/account-tx/subscribe`, { accounts: [{ account_id: wallets.dave }, { account_id: wallets.exchange }] });
    const daveLts: string[] = [];
    let failing = true;
    hook.receiver.respond = (req) => {
      const b = JSON.parse(req.body);
      if (b.account_id !== wallets.dave) return { status: 200 };
      if (!daveLts.includes(String(b.lt))) daveLts.push(String(b.lt));
      return { status: failing && daveLts.indexOf(String(b.lt)) === 1 ? 503 : 200 };
    };
    const lts: bigint[] = [];
    for (let i = 0; i < 3; i++) {
      const txs = await onChain(async () => {
        await send('alice', 'dave', `A${i}`);
        await send('bob', 'exchange', `B${i}`);
      });
      lts.push(txs.find((t) => t.account === wallets.dave)!.lt);
    }
    expect(lts[0]! < lts[1]! && lts[1]! < lts[2]!).toBe(true);
    const of = (acct: string) => hook.receiver.bodies().filter((b: any) => b.account_id === acct).map((b: any) => BigInt(b.lt));
    await until(() => of(wallets.exchange!).length === 3, 10_000, 'the other account delivered');
    await new Promise((r) => setTimeout(r, 200));
    expect(of(wallets.dave!)).toEqual([lts[0], lts[1]]); // lt3 waits behind the failing lt2
    failing = false;
    clock.advance(MIN);
    await until(() => of(wallets.dave!).length === 4, 10_000, 'dave recovered');
    expect(of(wallets.dave!)).toEqual([lts[0], lts[1], lts[1], lts[2]]);
  });

  it('new-contract, opcode (on an unrelated account) and mempool subscriptions deliver; unsubscribing stops them', async () => {
    const hook = await webhook();
    await call('POST', `/webhooks/${hook.id}/subscribe-new-contracts`);
    await call('POST', `/webhooks/${hook.id}/subscribe-msg-opcode/0x0f8a7ea5`);
    await call('POST', `/webhooks/${hook.id}/mempool/subscribe`);
    let deployed = '';
    let sent = '';
    const txs = await onChain(async () => {
      deployed = ((await (await service.api('/devnet/scenarios/deploy', { method: 'POST', json: { from: 'carol' } })).json()) as { address: string }).address;
      sent = ((await (await service.api('/devnet/jetton/send', { method: 'POST', json: { from: 'alice', jetton: 'usdt', to: 'bob', amount: '1000' } })).json()) as { message_hash: string }).message_hash;
    });
    const deployTx = txs.find((t) => t.account === deployed && t.endStatus === 'active')!;
    const transferTx = txs.find((t) => t.inMessage?.opcode === 0x0f8a7ea5)!;
    expect(transferTx.account).toBe(wallets['alice.usdt']);
    await hook.receiver.waitFor(4);
    await new Promise((r) => setTimeout(r, 300));
    const got = hook.receiver.requests.map((r) => [r.headers['webhook-event-type'], JSON.parse(r.body)]);
    expect(got.filter(([t]) => t === 'new_contract')).toEqual([['new_contract', { account_id: deployed, lt: Number(deployTx.lt), tx_hash: deployTx.hash }]]);
    expect(got.filter(([t]) => t === 'msg_opcode')).toEqual([['msg_opcode', { account_id: wallets['alice.usdt'], lt: Number(transferTx.lt), tx_hash: transferTx.hash }]]);
    const mempool = got.filter(([t]) => t === 'mempool').map(([, b]) => Cell.fromBase64(b.boc).hash().toString('hex'));
    expect(mempool).toHaveLength(2);
    expect(mempool).toContain(sent);

    await call('POST', `/webhooks/${hook.id}/unsubscribe-new-contracts`);
    await call('POST', `/webhooks/${hook.id}/unsubscribe-msg-opcode/0x0f8a7ea5`);
    await call('POST', `/webhooks/${hook.id}/mempool/unsubscribe`);
    const before = hook.receiver.requests.length;
    await onChain(async () => {
      await service.api('/devnet/scenarios/deploy', { method: 'POST', json: { from: 'carol' } });
      await service.api('/devnet/jetton/send', { method: 'POST', json: { from: 'alice', jetton: 'usdt', to: 'bob', amount: '1000' } });
    });
    await until(() => engine().health().in_flight === 0);
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.receiver.requests).toHaveLength(before);
  });

  it('unsubscribing an account stops it; deleting a webhook removes it and its subscriptions', async () => {
    const hook = await webhook();
    await call('POST', `/webhooks/${hook.id}/account-tx/subscribe`, { accounts: [{ account_id: wallets.merchant }, { account_id: wallets.bob }] });
    await onChain(() => send('alice', 'merchant'));
    await hook.receiver.waitFor(1);
    await call('POST', `/webhooks/${hook.id}/account-tx/unsubscribe`, { accounts: [wallets.merchant] });
    await onChain(() => send('alice', 'merchant'));
    await onChain(() => send('alice', 'bob'));
    await hook.receiver.waitFor(2);
    expect(hook.receiver.bodies().map((b: any) => b.account_id)).toEqual([wallets.merchant, wallets.bob]);
    expect((await call('DELETE', `/webhooks/${hook.id}`)).body).toEqual({});
    expect((await call('GET', '/webhooks')).body.webhooks.map((w: any) => w.id)).not.toContain(hook.id);
    expect((await call('GET', `/webhooks/${hook.id}/account-tx/subscriptions`)).status).toBe(404);
    await onChain(() => send('alice', 'bob'));
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.receiver.requests).toHaveLength(2);
    expect(await service.store.db.selectFrom('webhook_account_subs').selectAll().where('webhook_id', '=', BigInt(hook.id)).execute()).toEqual([]);
  });
});
