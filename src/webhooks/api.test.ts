// The webhooks API over HTTP on SQLite and PostgreSQL: every endpoint's shape, validation with the
// field named, ownership (another key gets 404), SSRF refusals, and routing of events from a real
// event log to a real receiver (cursors, failures, unsubscribe, delete). Devnet end-to-end: e2e.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { account, hashOf, message, transaction } from '../../test/support/model.js';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import { toFriendly } from '../chain/address.js';
import type { Store } from '../store/db.js';
import { FakeClock } from '../delivery/clock.js';
import { deliveryDb } from '../delivery/tables.js';
import { mempoolBatch, Receiver, startWebhookTestbed, txBatch, until, type WebhookTestbed } from '../../test/support/webhooks.js';

const MIN = 60_000;

describe.each(dialects)('webhooks API on %s', (dialect) => {
  let store: Store;
  let bed: WebhookTestbed;
  let receiver: Receiver;
  let key: string;

  async function setup(opts: Parameters<typeof startWebhookTestbed>[1] = {}) {
    store = await openTestStore(dialect);
    receiver = await new Receiver().listen(0);
    bed = await startWebhookTestbed(store, opts);
    key = await bed.key('webhooks');
  }

  async function createWebhook(k = key): Promise<{ webhook_id: number; token: string; signing_secret: string }> {
    const res = await bed.call(k, 'POST', '/webhooks', { endpoint: receiver.url });
    expect(res.status).toBe(200);
    return res.body;
  }

  /** Lets attempts in flight finish and their outcomes reach the store. */
  async function settle(): Promise<void> {
    await until(() => bed.component.webhooks.engine.health().in_flight === 0);
    await bed.component.webhooks.engine.flush();
  }

  afterEach(async () => {
    await bed?.close();
    await receiver?.close();
    if (store) await dropTestStore(store);
  });

  it('creates, lists, rotates and deletes webhooks with the original shapes', async () => {
    await setup();
    const created = await createWebhook();
    expect(Object.keys(created).sort()).toEqual(['signing_secret', 'token', 'webhook_id']);
    expect(created.signing_secret).toMatch(/^whsec_/);
    const list = await bed.call(key, 'GET', '/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.webhooks).toHaveLength(1);
    const w = list.body.webhooks[0];
    expect(w).toMatchObject({
      id: created.webhook_id,
      endpoint: receiver.url,
      token: created.token,
      signing_secret: created.signing_secret,
      subscribed_accounts: 0,
      subscribed_msg_opcodes: 0,
      subscribed_to_mempool: false,
      subscribed_to_new_contracts: false,
      status: 'online',
      status_failed_attempts: 0,
    });
    expect(new Date(w.status_updated_at).toISOString()).toBe(w.status_updated_at);
    expect(new Date(w.last_online_at).toISOString()).toBe(w.last_online_at);

    const id = created.webhook_id;
    const acct = account(7);
    expect((await bed.call(key, 'POST', `/webhooks/${id}/account-tx/subscribe`, { accounts: [{ account_id: toFriendly(acct) }, { account_id: account(8) }] })).status).toBe(200);
    expect((await bed.call(key, 'POST', `/webhooks/${id}/subscribe-msg-opcode/0x0F8A7EA5`)).status).toBe(200);
    expect((await bed.call(key, 'POST', `/webhooks/${id}/subscribe-new-contracts`)).body).toEqual({});
    expect((await bed.call(key, 'POST', `/webhooks/${id}/mempool/subscribe`)).body).toEqual({});
    const after = (await bed.call(key, 'GET', '/webhooks')).body.webhooks[0];
    expect(after).toMatchObject({ subscribed_accounts: 2, subscribed_msg_opcodes: 1, subscribed_to_mempool: true, subscribed_to_new_contracts: true });
    const subs = await bed.call(key, 'GET', `/webhooks/${id}/account-tx/subscriptions`);
    expect(subs.body).toEqual({ account_tx_subscriptions: [{ account_id: acct, last_delivered_lt: 0 }, { account_id: account(8), last_delivered_lt: 0 }] });
    const page = await bed.call(key, 'GET', `/webhooks/${id}/account-tx/subscriptions?offset=1&limit=1`);
    expect(page.body.account_tx_subscriptions.map((s: any) => s.account_id)).toEqual([account(8)]);
    expect((await bed.call(key, 'GET', `/webhooks/${id}/msg-opcode/subscriptions`)).body).toEqual({ subscriptions: [{ opcode: '0x0f8a7ea5', status: 'active' }] });

    const rotated = await bed.call(key, 'POST', `/webhooks/${id}/generate-new-token`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.token).not.toBe(created.token);
    expect(rotated.body.signing_secret).not.toBe(created.signing_secret);
    expect((await bed.call(key, 'GET', '/webhooks')).body.webhooks[0].token).toBe(rotated.body.token);

    expect((await bed.call(key, 'GET', `/webhooks/${id}/logs`)).body).toEqual({ logs: [] });
    const usage = await bed.call(key, 'GET', '/usage-stats');
    expect(usage.body).toMatchObject({ account_subscriptions: 2, webhooks_delivered: 0, webhooks_failed: 0 });
    expect(usage.body.period_started_at).toMatch(/^\d{4}-\d{2}-01T00:00:00.000Z$/);

    expect((await bed.call(key, 'DELETE', `/webhooks/${id}`)).body).toEqual({});
    expect((await bed.call(key, 'GET', '/webhooks')).body).toEqual({ webhooks: [] });
    expect((await bed.call(key, 'GET', `/webhooks/${id}/account-tx/subscriptions`)).status).toBe(404);
    for (const table of ['webhook_account_subs', 'webhook_opcode_subs', 'webhook_feed_subs', 'delivery_endpoints']) {
      expect(await store.db.selectFrom(table).selectAll().execute()).toEqual([]);
    }
  });

  it('answers 400 naming the field for every kind of bad input', async () => {
    await setup();
    const { webhook_id: id } = await createWebhook();
    const cases: Array<[string, string, unknown, string, RegExp]> = [
      ['POST', '/webhooks', { endpoint: 'ftp://example.com/x' }, 'endpoint', /http or https/],
      ['POST', '/webhooks', { endpoint: 'not a url' }, 'endpoint', /^endpoint must be an absolute/],
      ['POST', `/webhooks/${id}/account-tx/replay`, { account_id: account(1), from_lt: 123456789012345678901 }, 'from_lt', /past 2\^53 .*string of digits/],
      ['POST', '/webhooks', { endpoint: 'http://user:pw@example.com/' }, 'endpoint', /credentials/],
      ['POST', '/webhooks', {}, 'endpoint', /endpoint/],
      ['POST', `/webhooks/${id}/account-tx/subscribe`, { accounts: [{ account_id: account(1) }, { account_id: '0:zz' }] }, 'accounts.1.account_id', /invalid address/],
      ['POST', `/webhooks/${id}/account-tx/subscribe`, { accounts: [] }, 'accounts', /fewer than 1/],
      ['POST', `/webhooks/${id}/account-tx/subscribe`, { accounts: Array.from({ length: 1001 }, (_, i) => ({ account_id: account(i) })) }, 'accounts', /more than 1000/],
      ['POST', `/webhooks/${id}/account-tx/unsubscribe`, { accounts: ['EQnope'] }, 'accounts.0', /invalid address/],
      ['POST', `/webhooks/${id}/subscribe-msg-opcode/0x123456789`, undefined, 'opcode', /1 to 8 hex digits/],
      ['POST', `/webhooks/${id}/subscribe-msg-opcode/0x`, undefined, 'opcode', /1 to 8 hex digits/],
      ['POST', `/webhooks/${id}/subscribe-msg-opcode/7362d09c`, undefined, 'opcode', /0x followed by/],
      ['POST', `/webhooks/${id}/unsubscribe-msg-opcode/0x7362d09g`, undefined, 'opcode', /hex/],
      ['GET', `/webhooks/${id}/account-tx/subscriptions?limit=1001`, undefined, 'limit', /1000/],
      ['GET', `/webhooks/${id}/account-tx/subscriptions?offset=-1`, undefined, 'offset', /0/],
      ['GET', `/webhooks/${id}/logs?offset=x`, undefined, 'offset', /integer/],
      ['GET', `/webhooks/abc/logs`, undefined, 'webhook_id', /integer/],
      ['POST', `/webhooks/${id}/redeliver`, {}, 'message_id', /message_id/],
    ];
    for (const [method, path, body, field, message] of cases) {
      const res = await bed.call(key, method, path, body);
      expect({ path, status: res.status, field: res.body.field }).toEqual({ path, status: 400, field });
      expect(res.body.error).toMatch(message);
    }
    // A bodiless POST may still say it is JSON; a broken or poisoned body is a 400.
    const raw = (path: string, body?: string) => fetch(`${bed.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    expect((await raw(`/webhooks/${id}/mempool/subscribe`)).status).toBe(200);
    const broken = await raw('/webhooks', '{"endpoint": ');
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: string }).error).toMatch(/JSON/i);
    expect((await raw('/webhooks', '{"endpoint":"http://127.0.0.1/","__proto__":{"x":1}}')).status).toBe(400);
  });

  it('keeps webhooks to their key: another key gets 404, no key 401, a key without the scope 403', async () => {
    await setup();
    const { webhook_id: id } = await createWebhook();
    const other = await bed.key('webhooks');
    expect((await bed.call(other, 'GET', '/webhooks')).body).toEqual({ webhooks: [] });
    for (const [method, path, body] of [
      ['DELETE', `/webhooks/${id}`, undefined],
      ['POST', `/webhooks/${id}/generate-new-token`, undefined],
      ['POST', `/webhooks/${id}/back-online`, undefined],
      ['GET', `/webhooks/${id}/logs`, undefined],
      ['POST', `/webhooks/${id}/account-tx/subscribe`, { accounts: [{ account_id: account(1) }] }],
      ['GET', `/webhooks/${id}/account-tx/subscriptions`, undefined],
      ['POST', `/webhooks/${id}/subscribe-msg-opcode/0x00000000`, undefined],
      ['POST', `/webhooks/${id}/mempool/subscribe`, undefined],
      ['POST', `/webhooks/${id}/redeliver`, { message_id: 'msg_x' }],
    ] as const) {
      const res = await bed.call(other, method, path, body);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.body.error).toBe(`webhook ${id} not found`);
    }
    expect((await bed.call(null, 'GET', '/webhooks')).status).toBe(401);
    expect((await bed.call(await bed.key('streaming'), 'GET', '/webhooks')).status).toBe(403);
    expect((await bed.call(key, 'GET', '/webhooks')).body.webhooks).toHaveLength(1);
    expect((await bed.call(key, 'GET', `/webhooks/999999/logs`)).status).toBe(404);
  });

  it('refuses private, metadata and loopback endpoints (also by name) unless loopback is allowed', async () => {
    store = await openTestStore(dialect);
    receiver = await new Receiver().listen(0);
    const resolve = async (host: string) => (host === 'intranet.example' ? [{ address: '127.0.0.1', family: 4 }] : host === 'public.example' ? [{ address: '93.184.216.34', family: 4 }] : Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })));
    bed = await startWebhookTestbed(store, { env: { TONWATCH_WEBHOOK_ALLOW_LOOPBACK: 'false' }, resolve });
    key = await bed.key('webhooks');
    const refused: Array<[string, RegExp]> = [
      ['http://10.0.0.1/', /10\.0\.0\.1 is a private network address/],
      ['http://169.254.169.254/latest/meta-data', /cloud metadata address/],
      ['http://intranet.example:8080/hook', /intranet\.example resolves to 127\.0\.0\.1 is a loopback address/],
      ['http://[::1]:9/', /loopback/],
      ['http://[::ffff:192.168.1.1]/', /private/],
      ['http://0.0.0.0/', /reserved/],
    ];
    for (const [endpoint, reason] of refused) {
      const res = await bed.call(key, 'POST', '/webhooks', { endpoint });
      expect({ endpoint, status: res.status, field: res.body.field }).toEqual({ endpoint, status: 400, field: 'endpoint' });
      expect(res.body.error).toMatch(reason);
    }
    expect((await bed.call(key, 'POST', '/webhooks', { endpoint: 'https://public.example/hook' })).status).toBe(200);
    // a name that does not resolve now is taken: every connection checks its own DNS answer
    expect((await bed.call(key, 'POST', '/webhooks', { endpoint: 'http://nowhere.invalid/' })).status).toBe(200);
    await bed.close();
    await dropTestStore(store);
    // Loopback allowed (the devnet default): loopback and private pass, metadata never does.
    store = await openTestStore(dialect);
    const allowed = await startWebhookTestbed(store, { resolve });
    const k2 = await allowed.key('webhooks');
    expect((await allowed.call(k2, 'POST', '/webhooks', { endpoint: 'http://intranet.example/' })).status).toBe(200);
    expect((await allowed.call(k2, 'POST', '/webhooks', { endpoint: 'http://10.0.0.1/' })).status).toBe(200);
    expect((await allowed.call(k2, 'POST', '/webhooks', { endpoint: 'http://169.254.169.254/' })).status).toBe(400);
    bed = allowed;
  });

  it('routes events from the log: cursors, failures, ordering, new contracts, opcodes, mempool, unsubscribe', async () => {
    const clock = new FakeClock(Date.now());
    await setup({ clock });
    const { webhook_id: id, token } = await createWebhook();
    const a = account(0xa);
    const b = account(0xb);
    await bed.call(key, 'POST', `/webhooks/${id}/account-tx/subscribe`, { accounts: [{ account_id: a }, { account_id: b }] });
    let failA2 = true;
    receiver.respond = (req) => ({ status: failA2 && JSON.parse(req.body).lt === 2002 ? 500 : 200 });
    await bed.append(txBatch(2, [transaction({ account: a, lt: 2001n, mcSeqno: 2 }), transaction({ account: account(0xc), lt: 2005n, mcSeqno: 2 })]));
    await receiver.waitFor(1);
    const first = receiver.requests[0]!;
    expect(first.body).toBe(`{"account_id":"${a}","lt":2001,"tx_hash":"${hashOf(`${a}:2001`)}"}`);
    expect(first.headers.authorization).toBe(`Bearer ${token}`);
    expect(first.headers['webhook-event-type']).toBe('account_tx');
    await bed.append(txBatch(3, [transaction({ account: a, lt: 2002n, mcSeqno: 3 }), transaction({ account: b, lt: 3001n, mcSeqno: 3 })]));
    // A2002's failure is recorded before block 4, so B3002 goes through after it (its 500 and
    // B3001's 200 may come back in either order).
    await until(() => receiver.requests.length === 3);
    await settle();
    await bed.append(txBatch(4, [transaction({ account: a, lt: 2003n, mcSeqno: 4 }), transaction({ account: b, lt: 3002n, mcSeqno: 4 })]));
    await until(() => receiver.requests.length === 4);
    await until(async () => (await bed.component.webhooks.engine.pendingCount()) === 2);
    await settle();
    const subs = async () => (await bed.call(key, 'GET', `/webhooks/${id}/account-tx/subscriptions`)).body.account_tx_subscriptions;
    const stuck = (await subs()).find((s: any) => s.account_id === a);
    expect(stuck).toMatchObject({ last_delivered_lt: 2001, failed_lt: 2002, failed_attempts: 1 });
    expect(new Date(stuck.failed_at).getTime()).toBe(clock.now());
    expect((await subs()).find((s: any) => s.account_id === b)).toEqual({ account_id: b, last_delivered_lt: 3002 });
    // B's deliveries went through after A's failure: the endpoint itself is reachable.
    expect((await bed.call(key, 'GET', '/webhooks')).body.webhooks[0].status).toBe('online');
    const logs = (await bed.call(key, 'GET', `/webhooks/${id}/logs`)).body.logs;
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ event_type: 'account_tx', attempt: 1, status_code: 500 });
    expect(logs[0].message).toMatch(/^attempt 1 failed: HTTP 500/);

    failA2 = false;
    clock.advance(MIN);
    await until(() => receiver.requests.length === 6);
    await settle();
    const order = receiver.bodies().map((x: any) => x.lt);
    expect(order.filter((lt: number) => lt < 3000)).toEqual([2001, 2002, 2002, 2003]);
    expect(order.filter((lt: number) => lt > 3000)).toEqual([3001, 3002]);
    expect((await subs()).find((s: any) => s.account_id === a)).toEqual({ account_id: a, last_delivered_lt: 2003 });
    expect((await bed.call(key, 'GET', '/webhooks')).body.webhooks[0]).toMatchObject({ status: 'online', status_failed_attempts: 0 });
    expect((await bed.call(key, 'GET', '/usage-stats')).body).toMatchObject({ webhooks_delivered: 5, webhooks_failed: 1 });

    // Redeliver by webhook-id.
    const msgId = String(receiver.requests[0]!.headers['webhook-id']);
    expect((await bed.call(key, 'POST', `/webhooks/${id}/redeliver`, { message_id: msgId })).body).toEqual({});
    await receiver.waitFor(7);
    expect(receiver.requests[6]!.headers['webhook-id']).toBe(msgId);
    expect((await bed.call(key, 'POST', `/webhooks/${id}/redeliver`, { message_id: 'msg_nope' })).status).toBe(404);

    // Unsubscribe b; subscribe to new contracts, an opcode and the mempool.
    await bed.call(key, 'POST', `/webhooks/${id}/account-tx/unsubscribe`, { accounts: [b] });
    await bed.call(key, 'POST', `/webhooks/${id}/subscribe-new-contracts`);
    await bed.call(key, 'POST', `/webhooks/${id}/subscribe-msg-opcode/0x7362d09c`);
    await bed.call(key, 'POST', `/webhooks/${id}/mempool/subscribe`);
    const notify = { ...message(hashOf('m1'), 'internal', account(0xd), account(0xe)), opcode: 0x7362d09c };
    const deploy = { ...transaction({ account: account(0xf), lt: 5001n, mcSeqno: 5 }), origStatus: 'uninit' as const, endStatus: 'active' as const };
    await bed.append(txBatch(5, [transaction({ account: b, lt: 3003n, mcSeqno: 5 }), transaction({ account: account(0xe), lt: 5002n, inMsg: notify, mcSeqno: 5 }), deploy]));
    await bed.append(mempoolBatch(5, 1, { hash: hashOf('ext'), boc: 'te6cckEBAQEAAgAAAEysuc0=', destination: a, receivedAt: 0, involvedAccounts: null }));
    await receiver.waitFor(10);
    await new Promise((r) => setTimeout(r, 100));
    const late = receiver.requests.slice(7).map((r) => [r.headers['webhook-event-type'], r.body]);
    expect(late).toHaveLength(3);
    expect(late).toContainEqual(['msg_opcode', `{"account_id":"${account(0xe)}","lt":5002,"tx_hash":"${hashOf(`${account(0xe)}:5002`)}"}`]);
    expect(late).toContainEqual(['new_contract', `{"account_id":"${account(0xf)}","lt":5001,"tx_hash":"${hashOf(`${account(0xf)}:5001`)}"}`]);
    expect(late).toContainEqual(['mempool', '{"boc":"te6cckEBAQEAAgAAAEysuc0="}']);

    // Unsubscribing from everything stops every kind.
    await bed.call(key, 'POST', `/webhooks/${id}/account-tx/unsubscribe`, { accounts: [a] });
    await bed.call(key, 'POST', `/webhooks/${id}/unsubscribe-new-contracts`);
    await bed.call(key, 'POST', `/webhooks/${id}/unsubscribe-msg-opcode/0x7362d09c`);
    await bed.call(key, 'POST', `/webhooks/${id}/mempool/unsubscribe`);
    await bed.append(txBatch(6, [transaction({ account: a, lt: 6001n, mcSeqno: 6 }), { ...deploy, account: account(0x10), lt: 6002n }, transaction({ account: account(0xe), lt: 6003n, inMsg: notify, mcSeqno: 6 })]));
    await bed.append(mempoolBatch(6, 1, { hash: hashOf('ext2'), boc: 'te6cckEBAQEAAgAAAEysuc0=', destination: a, receivedAt: 0, involvedAccounts: null }));
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests).toHaveLength(10);
    expect(await deliveryDb(store.db).selectFrom('delivery_outbox').select('id').where('state', '=', 'pending').execute()).toEqual([]);
  });

  it('disables an opcode subscription that matches too often, and re-subscribing activates it', async () => {
    await setup({ env: { TONWATCH_WEBHOOK_OPCODE_MAX_PER_MINUTE: '2' } });
    const { webhook_id: id } = await createWebhook();
    await bed.call(key, 'POST', `/webhooks/${id}/subscribe-msg-opcode/0x00000001`);
    const msg = (n: number) => ({ ...message(hashOf(`op${n}`), 'internal', account(1), account(2)), opcode: 1 });
    await bed.append(txBatch(2, [1, 2, 3, 4].map((n) => transaction({ account: account(2), lt: BigInt(n), inMsg: msg(n), mcSeqno: 2 }))));
    await receiver.waitFor(2);
    await until(async () => (await bed.call(key, 'GET', `/webhooks/${id}/msg-opcode/subscriptions`)).body.subscriptions[0].status === 'disabled');
    const [sub] = (await bed.call(key, 'GET', `/webhooks/${id}/msg-opcode/subscriptions`)).body.subscriptions;
    expect(sub).toMatchObject({ opcode: '0x00000001', status: 'disabled', disabled_reason: 'more than 2 matching messages in one minute' });
    expect((await bed.call(key, 'GET', '/webhooks')).body.webhooks[0].subscribed_msg_opcodes).toBe(0);
    await bed.call(key, 'POST', `/webhooks/${id}/subscribe-msg-opcode/0x00000001`);
    expect((await bed.call(key, 'GET', `/webhooks/${id}/msg-opcode/subscriptions`)).body.subscriptions).toEqual([{ opcode: '0x00000001', status: 'active' }]);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.requests).toHaveLength(2);
  });

  it('accepts an opcode path of 0x and 1 to 8 hex digits (rt.yml: 0x123456) as the 32-bit value, and matches it', async () => {
    await setup();
    const { webhook_id: id } = await createWebhook();
    expect((await bed.call(key, 'POST', `/webhooks/${id}/subscribe-msg-opcode/0x123456`)).status).toBe(200);
    expect((await bed.call(key, 'POST', `/webhooks/${id}/subscribe-msg-opcode/0X0000AbC`)).status).toBe(200);
    expect((await bed.call(key, 'GET', `/webhooks/${id}/msg-opcode/subscriptions`)).body.subscriptions.map((s: any) => s.opcode).sort()).toEqual(['0x00000abc', '0x00123456']);
    const msg = (n: number, opcode: number) => ({ ...message(hashOf(`short${n}`), 'internal', account(1), account(2)), opcode });
    await bed.append(txBatch(2, [transaction({ account: account(2), lt: 1n, inMsg: msg(1, 0x12345600), mcSeqno: 2 }), transaction({ account: account(2), lt: 2n, inMsg: msg(2, 0x00123456), mcSeqno: 2 })]));
    await receiver.waitFor(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.requests.map((r) => [r.headers['webhook-event-type'], r.body])).toEqual([['msg_opcode', `{"account_id":"${account(2)}","lt":2,"tx_hash":"${hashOf(`${account(2)}:2`)}"}`]]);
    expect((await bed.call(key, 'POST', `/webhooks/${id}/unsubscribe-msg-opcode/0x123456`)).status).toBe(200);
    expect((await bed.call(key, 'GET', `/webhooks/${id}/msg-opcode/subscriptions`)).body.subscriptions.map((s: any) => s.opcode)).toEqual(['0x00000abc']);
  });

  it('documents every route in the OpenAPI document and exposes delivery metrics', async () => {
    await setup();
    const { webhook_id: id } = await createWebhook();
    await bed.call(key, 'POST', `/webhooks/${id}/mempool/subscribe`);
    await bed.append(mempoolBatch(1, 1, { hash: hashOf('m'), boc: 'te6cckEBAQEAAgAAAEysuc0=', destination: account(1), receivedAt: 0, involvedAccounts: null }));
    await receiver.waitFor(1);
    const doc = (await bed.call(null, 'GET', '/docs/json')).body;
    for (const path of [
      '/webhooks',
      '/webhooks/{webhook_id}',
      '/webhooks/{webhook_id}/generate-new-token',
      '/webhooks/{webhook_id}/back-online',
      '/webhooks/{webhook_id}/logs',
      '/usage-stats',
      '/webhooks/{webhook_id}/account-tx/subscribe',
      '/webhooks/{webhook_id}/account-tx/unsubscribe',
      '/webhooks/{webhook_id}/account-tx/subscriptions',
      '/webhooks/{webhook_id}/account-tx/replay',
      '/webhooks/{webhook_id}/msg-opcode/subscriptions',
      '/webhooks/{webhook_id}/subscribe-new-contracts',
      '/webhooks/{webhook_id}/unsubscribe-new-contracts',
      '/webhooks/{webhook_id}/subscribe-msg-opcode/{opcode}',
      '/webhooks/{webhook_id}/unsubscribe-msg-opcode/{opcode}',
      '/webhooks/{webhook_id}/mempool/subscribe',
      '/webhooks/{webhook_id}/mempool/unsubscribe',
      '/webhooks/{webhook_id}/redeliver',
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(doc.paths['/webhooks'].post.responses['200'].content['application/json'].schema.properties.signing_secret).toBeDefined();
    // The outcome is recorded in the store within a flush interval: then the outbox is empty.
    await until(async () => /^tonwatch_webhook_outbox_depth 0$/m.test(await (await fetch(`${bed.url}/metrics`)).text()));
    const metrics = await (await fetch(`${bed.url}/metrics`)).text();
    expect(metrics).toMatch(/^tonwatch_webhook_deliveries_total\{result="delivered"\} 1$/m);
    expect(metrics).toMatch(/^tonwatch_webhook_attempt_seconds_count 1$/m);
    expect(metrics).toMatch(/^tonwatch_webhook_endpoints\{status="online"\} 1$/m);
  });

  it('limits webhooks per key and accounts per webhook', async () => {
    await setup({ env: { TONWATCH_WEBHOOK_MAX_PER_KEY: '2', TONWATCH_WEBHOOK_MAX_ACCOUNTS: '3' } });
    const { webhook_id: id } = await createWebhook();
    await createWebhook();
    const third = await bed.call(key, 'POST', '/webhooks', { endpoint: receiver.url });
    expect(third.status).toBe(400);
    expect(third.body.error).toMatch(/already has 2 webhooks/);
    const sub = (n: number[]) => bed.call(key, 'POST', `/webhooks/${id}/account-tx/subscribe`, { accounts: n.map((i) => ({ account_id: account(i) })) });
    expect((await sub([1, 2])).status).toBe(200);
    expect((await sub([1, 2, 3])).status).toBe(200); // 1 and 2 again do not count
    const over = await sub([4]);
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ field: 'accounts', error: 'a webhook may follow at most 3 accounts (it has 3, this adds 1)' });
  });
});
