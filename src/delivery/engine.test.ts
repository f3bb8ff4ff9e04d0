// The delivery engine against real stores (SQLite and PostgreSQL), a real local receiver and the
// manual clock: headers and signatures, the retry schedule, ordering per key, 410, redirects,
// Retry-After, giving up, rotation, redelivery and a receiver down for an hour.
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { Registry } from 'prom-client';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import type { Store } from '../store/db.js';
import { Receiver, until, type ReceiverAnswer } from '../../test/support/webhooks.js';
import { FakeClock } from './clock.js';
import { DeliveryEngine, type DeliveryEngineOptions } from './engine.js';
import { sha256Hex } from './signing.js';
import { deliveryDb } from './tables.js';
import type { DeliveryIntent, Endpoint } from './types.js';

const MIN = 60_000;

describe.each(dialects)('delivery engine on %s', (dialect) => {
  let store: Store;
  let engine: DeliveryEngine;
  let receiver: Receiver;
  let clock: FakeClock;

  async function setup(opts: Partial<DeliveryEngineOptions> = {}): Promise<Endpoint> {
    store = await openTestStore(dialect);
    receiver = await new Receiver().listen(0);
    clock = new FakeClock(Date.now());
    engine = new DeliveryEngine({ store, allowLoopback: true, clock, timeoutMs: 2000, metrics: new Registry(), ...opts });
    await engine.start();
    return engine.createEndpoint({ producer: 'test', owner: 'key-1', url: receiver.url });
  }

  async function send(intents: DeliveryIntent[]): Promise<void> {
    await store.db.transaction().execute((trx) => engine.enqueue(trx, intents));
    engine.notify();
  }

  /** Lets in-flight attempts finish and their outcomes reach the store. */
  async function settle(): Promise<void> {
    await until(() => engine.health().in_flight === 0, 10_000, 'no attempt in flight');
    await engine.flush();
  }

  afterEach(async () => {
    await engine?.stop();
    await receiver?.close();
    if (store) await dropTestStore(store);
  });

  it('posts the exact body with the original and Standard Webhooks headers', async () => {
    const endpoint = await setup({ clock: undefined });
    const body = '{"account_id":"0:' + 'ab'.repeat(32) + '","lt":47000000000001,"tx_hash":"' + 'cd'.repeat(32) + '"}';
    await send([{ endpointId: endpoint.id, orderingKey: 'a', eventType: 'account_tx', body }]);
    await receiver.waitFor(1);
    const req = receiver.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/hook');
    expect(req.body).toBe(body);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toMatch(/^tonwatch-webhooks\//);
    expect(req.headers.authorization).toBe(`Bearer ${endpoint.token}`);
    expect(req.headers['idempotency-key']).toBe(sha256Hex(body));
    expect(req.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{32}$/);
    expect(req.headers['webhook-event-type']).toBe('account_tx');
    expect(Math.abs(Number(req.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const verifier = new Webhook(endpoint.secret);
    expect(verifier.verify(req.body, headers)).toEqual(JSON.parse(body));
    // One byte changed: the signature no longer matches.
    expect(() => verifier.verify(req.body.replace('"lt":47000000000001', '"lt":47000000000002'), headers)).toThrow();
    await settle();
    const row = await deliveryDb(store.db).selectFrom('delivery_outbox').selectAll().executeTakeFirstOrThrow();
    expect(row.state).toBe('delivered');
    expect(row.attempts).toBe(1n);
  });

  it('retries 500s on the schedule with the same body, key and id; offline then online; logs each failure', async () => {
    const endpoint = await setup();
    receiver.respond = (_req, n) => ({ status: n < 3 ? 500 : 200 });
    const t0 = clock.now();
    await send([{ endpointId: endpoint.id, orderingKey: 'a', eventType: 'account_tx', body: { account_id: 'x', lt: 1 } }]);
    await receiver.waitFor(1);
    await settle();
    expect((await engine.getEndpoint(endpoint.id))!.status).toBe('offline');
    const sentAt: number[] = [Number(receiver.requests[0]!.headers['webhook-timestamp'])];
    for (let attempt = 2; attempt <= 4; attempt++) {
      clock.advance(MIN - 1);
      await new Promise((r) => setTimeout(r, 30));
      expect(receiver.requests).toHaveLength(attempt - 1); // not a millisecond early
      clock.advance(1);
      await receiver.waitFor(attempt);
      await settle();
      sentAt.push(Number(receiver.requests[attempt - 1]!.headers['webhook-timestamp']));
    }
    expect(sentAt.map((s) => s - Math.floor(t0 / 1000))).toEqual([0, 60, 120, 180]);
    const first = receiver.requests[0]!;
    for (const r of receiver.requests) {
      expect(r.body).toBe(first.body);
      expect(r.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
      expect(r.headers['webhook-id']).toBe(first.headers['webhook-id']);
    }
    const live = (await engine.getEndpoint(endpoint.id))!;
    expect(live.status).toBe('online');
    expect(live.failedAttempts).toBe(0);
    const log = await engine.failureLog(endpoint.id, 0, 10);
    expect(log.entries.map((e) => [e.attempt, e.statusCode])).toEqual([[3, 500], [2, 500], [1, 500]]);
    expect(log.entries[0]!.message).toMatch(/^attempt 3 failed: HTTP 500 after \d+ ms; next attempt in 60 s$/);
    expect(log.entries.every((e) => e.latencyMs >= 0 && e.eventType === 'account_tx')).toBe(true);
    const usage = await engine.usage('test', 'key-1');
    expect(usage).toMatchObject({ delivered: 1, failed: 3 });
    // The stored endpoint agrees with the live one.
    const stored = await deliveryDb(store.db).selectFrom('delivery_endpoints').selectAll().executeTakeFirstOrThrow();
    expect(stored.status).toBe('online');
  });

  it('holds back only the failing key: A lt1 < lt2 < lt3 in order after recovery while B flows', async () => {
    const endpoint = await setup();
    let failLt2 = true;
    receiver.respond = (req) => ({ status: failLt2 && JSON.parse(req.body).lt === 2 ? 503 : 200 });
    const ev = (acct: string, lt: number): DeliveryIntent => ({ endpointId: endpoint.id, orderingKey: `account:${acct}`, eventType: 'account_tx', body: { account_id: acct, lt } });
    await send([ev('A', 1), ev('A', 2), ev('A', 3), ev('B', 10)]);
    await until(() => receiver.requests.length >= 3);
    await settle();
    await send([ev('B', 11), ev('B', 12)]);
    await receiver.waitFor(5);
    await settle();
    const seen = () => receiver.bodies().map((b: any) => `${b.account_id}${b.lt}`);
    expect(seen().filter((s) => s.startsWith('A'))).toEqual(['A1', 'A2']); // A3 waits behind A2
    expect(seen().filter((s) => s.startsWith('B'))).toEqual(['B10', 'B11', 'B12']);
    failLt2 = false;
    clock.advance(MIN);
    await receiver.waitFor(7);
    await settle();
    expect(seen().filter((s) => s.startsWith('A'))).toEqual(['A1', 'A2', 'A2', 'A3']);
  });

  it('a receiver down for a simulated hour gets everything, in order per account, once back', async () => {
    const endpoint = await setup();
    const port = receiver.port;
    await receiver.close();
    const ev = (acct: string, lt: number): DeliveryIntent => ({ endpointId: endpoint.id, orderingKey: `account:${acct}`, eventType: 'account_tx', body: { account_id: acct, lt } });
    let lt = 0;
    for (let minute = 0; minute < 60; minute++) {
      if (minute % 10 === 0) {
        await send([ev('A', ++lt), ev('B', lt), ev('C', lt)]);
        await until(() => engine.health().in_memory === 3 * lt);
        await settle();
      }
      clock.advance(MIN);
      await settle();
    }
    expect((await engine.getEndpoint(endpoint.id))!.status).toBe('offline');
    const log = await engine.failureLog(endpoint.id, 0, 1000);
    // Per account: attempts at minutes 0…10 (every minute), then 15, 20, … 60 (every 5 minutes).
    expect(log.entries).toHaveLength(3 * 21);
    expect(log.entries[0]!.error).toMatch(/ECONNREFUSED/);
    await receiver.listen(port);
    // Attempt 21 (minute 60) failed: the next comes 10 minutes later and finds the receiver back.
    clock.advance(10 * MIN - 1);
    await new Promise((r) => setTimeout(r, 30));
    expect(receiver.requests).toHaveLength(0);
    clock.advance(1);
    await receiver.waitFor(18);
    await settle();
    const bodies = receiver.bodies() as Array<{ account_id: string; lt: number }>;
    for (const acct of ['A', 'B', 'C']) expect(bodies.filter((b) => b.account_id === acct).map((b) => b.lt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await engine.pendingCount()).toBe(0);
    expect((await engine.getEndpoint(endpoint.id))!.status).toBe('online');
  });

  it("keeps at most perKeyLimit rows of a key in memory, flags the rest in the store, and delivers them all in order", async () => {
    const endpoint = await setup({ perKeyLimit: 3 });
    let down = true;
    receiver.respond = (req) => ({ status: down && JSON.parse(req.body).account_id === 'A' ? 500 : 200 });
    const ev = (acct: string, lt: number): DeliveryIntent => ({ endpointId: endpoint.id, orderingKey: `account:${acct}`, eventType: 'account_tx', body: { account_id: acct, lt } });
    await send([1, 2, 3, 4, 5].map((lt) => ev('A', lt)).concat(ev('B', 1)));
    await receiver.waitFor(2);
    await settle();
    // Rows that arrive while the key is over its cap are left in the store too.
    await send([6, 7, 8].map((lt) => ev('A', lt)));
    await until(async () => (await deliveryDb(store.db).selectFrom('delivery_outbox').select('id').where('parked', '=', 1).execute()).length === 5, 5000, 'A4…A8 flagged');
    expect(engine.health().in_memory).toBe(3);
    down = false;
    clock.advance(MIN);
    await receiver.waitFor(10);
    await settle();
    // The key's queue has drained its parked rows: a later event joins it at once.
    await send([ev('A', 9)]);
    await receiver.waitFor(11);
    await settle();
    const lts = (acct: string) => (receiver.bodies() as Array<{ account_id: string; lt: number }>).filter((b) => b.account_id === acct).map((b) => b.lt);
    expect(lts('A')).toEqual([1, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(lts('B')).toEqual([1]);
    expect(await engine.pendingCount()).toBe(0);
    expect(engine.health().in_memory).toBe(0);
  });

  it('410 suspends the endpoint and holds deliveries until back-online', async () => {
    const endpoint = await setup();
    let gone = true;
    receiver.respond = () => ({ status: gone ? 410 : 200 });
    await send([{ endpointId: endpoint.id, orderingKey: 'k', eventType: 'e', body: { n: 1 } }, { endpointId: endpoint.id, orderingKey: 'j', eventType: 'e', body: { n: 2 } }]);
    await receiver.waitFor(1);
    await settle();
    clock.advance(2 * 60 * MIN);
    await new Promise((r) => setTimeout(r, 50));
    const live = (await engine.getEndpoint(endpoint.id))!;
    expect(live.status).toBe('suspended');
    expect(live.statusReason).toMatch(/410/);
    expect(await engine.pendingCount()).toBe(2);
    // Both keys may have been in flight when the first 410 came back; nothing is sent after it.
    const before = receiver.requests.length;
    expect(before).toBeLessThanOrEqual(2);
    gone = false;
    expect(await engine.backOnline(endpoint.id)).toBe(true);
    await until(async () => (await engine.pendingCount()) === 0);
    expect(receiver.requests.length).toBeGreaterThan(before);
    expect((await engine.getEndpoint(endpoint.id))!.status).toBe('online');
  });

  it('does not follow redirects, does not retry a 3xx or a plain 4xx, and honours Retry-After', async () => {
    const endpoint = await setup();
    receiver.respond = (req): ReceiverAnswer => {
      const n = JSON.parse(req.body).n;
      if (n === 1) return { status: 302, headers: { location: `http://127.0.0.1:${receiver.port}/elsewhere` } };
      if (n === 2) return { status: 404 };
      return { status: 503, headers: { 'retry-after': '300' } };
    };
    await send([1, 2, 3].map((n) => ({ endpointId: endpoint.id, orderingKey: `k${n}`, eventType: 'e', body: { n } })));
    await receiver.waitFor(3);
    await settle();
    expect(receiver.requests.every((r) => r.url === '/hook')).toBe(true);
    const rows = await deliveryDb(store.db).selectFrom('delivery_outbox').select(['body', 'state', 'next_attempt_at', 'last_status']).orderBy('id').execute();
    expect(rows.map((r) => [r.state, Number(r.last_status)])).toEqual([['failed', 302], ['failed', 404], ['pending', 503]]);
    expect(Number(rows[2]!.next_attempt_at) - clock.now()).toBe(300_000);
    clock.advance(4 * MIN);
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.requests).toHaveLength(3); // not at the schedule's 1 min: Retry-After said 5
    clock.advance(MIN);
    await receiver.waitFor(4);
    const log = await engine.failureLog(endpoint.id, 0, 10);
    expect(log.entries.find((e) => e.statusCode === 404)!.message).toMatch(/not retried/);
  });

  it('gives up after 3 days, says so in the log, and suspends an endpoint that never answered', async () => {
    const endpoint = await setup();
    receiver.respond = () => ({ status: 500 });
    await send([{ endpointId: endpoint.id, orderingKey: 'k', eventType: 'e', body: { n: 1 } }]);
    await receiver.waitFor(1);
    for (let hours = 0; hours < 73; hours++) {
      clock.advance(60 * MIN);
      await settle();
    }
    const row = await deliveryDb(store.db).selectFrom('delivery_outbox').selectAll().executeTakeFirstOrThrow();
    expect(row.state).toBe('failed');
    const log = await engine.failureLog(endpoint.id, 0, 1);
    expect(log.entries[0]!.message).toMatch(/gave up: still failing after 3 days/);
    expect(log.more).toBe(true);
    expect((await engine.getEndpoint(endpoint.id))!.status).toBe('suspended');
  });

  it('gives the same event the same webhook-id whenever it is enqueued (replays), and other events other ids', async () => {
    const endpoint = await setup();
    const body = '{"account_id":"0:' + 'ef'.repeat(32) + '","lt":5,"tx_hash":"' + '01'.repeat(32) + '"}';
    const eventTimeMs = 1_700_000_000_000;
    await send([{ endpointId: endpoint.id, orderingKey: 'a', eventType: 'account_tx', body, eventTimeMs }]);
    await receiver.waitFor(1);
    await clock.advance(60_000);
    await send([
      { endpointId: endpoint.id, orderingKey: 'a', eventType: 'account_tx', body, eventTimeMs },
      { endpointId: endpoint.id, orderingKey: 'a', eventType: 'account_tx', body: body.replace('"lt":5', '"lt":6'), eventTimeMs },
      { endpointId: endpoint.id, orderingKey: 'a', eventType: 'account_tx', body },
    ]);
    await receiver.waitFor(4);
    const ids = receiver.requests.map((r) => String(r.headers['webhook-id']));
    expect(ids[1]).toBe(ids[0]);
    expect(new Set(ids).size).toBe(3);
    // The time prefix: the event's time for the first three, the enqueue time for the last.
    expect(ids[0]!.slice(4, 16)).toBe(eventTimeMs.toString(16).padStart(12, '0'));
    expect(ids[3]!.slice(4, 16)).toBe(clock.now().toString(16).padStart(12, '0'));
  });

  it.runIf(dialect === 'postgres')('delivers a row whose id committed after a later one (the rescan finds it)', { timeout: 20_000 }, async () => {
    const endpoint = await setup({ clock: undefined });
    const body = (n: number) => `{"n":${n}}`;
    // The first transaction takes the lower id but commits last.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const insertedFirst = new Promise<void>((r) => (inserted = r));
    const slow = store.db.transaction().execute(async (trx) => {
      await engine.enqueue(trx, [{ endpointId: endpoint.id, orderingKey: 'late', eventType: 'account_tx', body: body(1) }]);
      inserted();
      await held;
    });
    await insertedFirst;
    await send([{ endpointId: endpoint.id, orderingKey: 'early', eventType: 'account_tx', body: body(2) }]);
    await receiver.waitFor(1);
    release();
    await slow;
    engine.notify();
    await receiver.waitFor(2, 15_000);
    expect(receiver.requests.map((r) => r.body).sort()).toEqual([body(1), body(2)]);
  });

  it('signs with both secrets during a rotation overlap, and redelivers with the same webhook-id', async () => {
    const endpoint = await setup({ clock: undefined, secretOverlapMs: 3_600_000 });
    const rotated = (await engine.rotateCredentials(endpoint.id))!;
    expect(rotated.token).not.toBe(endpoint.token);
    expect(rotated.secret).not.toBe(endpoint.secret);
    await send([{ endpointId: endpoint.id, orderingKey: null, eventType: 'mempool', body: { boc: 'te6' } }]);
    await receiver.waitFor(1);
    const req = receiver.requests[0]!;
    expect(req.headers.authorization).toBe(`Bearer ${rotated.token}`);
    expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': String(req.headers['webhook-id']), 'webhook-timestamp': String(req.headers['webhook-timestamp']), 'webhook-signature': String(req.headers['webhook-signature']) };
    expect(new Webhook(endpoint.secret).verify(req.body, headers)).toEqual({ boc: 'te6' });
    expect(new Webhook(rotated.secret).verify(req.body, headers)).toEqual({ boc: 'te6' });
    await settle();
    expect(await engine.redeliver(endpoint.id, String(req.headers['webhook-id']))).toBe(true);
    expect(await engine.redeliver(endpoint.id, 'msg_unknown')).toBe(false);
    await receiver.waitFor(2);
    expect(receiver.requests[1]!.headers['webhook-id']).toBe(req.headers['webhook-id']);
    expect(receiver.requests[1]!.body).toBe(req.body);
  });

  it('refuses to connect when the endpoint is not allowed at send time', async () => {
    const endpoint = await setup();
    await engine.stop();
    engine = new DeliveryEngine({ store, allowLoopback: false, clock, timeoutMs: 2000 });
    await engine.start();
    await send([{ endpointId: endpoint.id, orderingKey: 'k', eventType: 'e', body: { n: 1 } }]);
    await until(async () => (await engine.failureLog(endpoint.id, 0, 1)).entries.length === 1);
    const [entry] = (await engine.failureLog(endpoint.id, 0, 1)).entries;
    expect(entry!.error).toMatch(/refused: 127\.0\.0\.1 is a loopback address/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('deleting an endpoint removes its deliveries and logs', async () => {
    const endpoint = await setup();
    receiver.respond = () => ({ status: 500 });
    await send([{ endpointId: endpoint.id, orderingKey: 'k', eventType: 'e', body: { n: 1 } }]);
    await receiver.waitFor(1);
    await settle();
    expect(await engine.deleteEndpoint(endpoint.id)).toBe(true);
    expect(await engine.getEndpoint(endpoint.id)).toBeNull();
    expect(await engine.pendingCount()).toBe(0);
    expect((await engine.failureLog(endpoint.id, 0, 10)).entries).toHaveLength(0);
    clock.advance(MIN);
    await new Promise((r) => setTimeout(r, 50));
    expect(receiver.requests).toHaveLength(1);
  });

  it("enqueue's receipt holds the rows as stored, and a receipt that is not the next ids is read instead, never twice", async () => {
    const endpoint = await setup({ clock: undefined });
    // 700 rows: two insert statements, their ids matched to the rows by RETURNING.
    const intents = Array.from({ length: 700 }, (_, i) => ({ endpointId: endpoint.id, orderingKey: `k${i % 7}`, eventType: 'account_tx', body: { i }, meta: { i } }));
    const receipt = await store.db.transaction().execute((trx) => engine.enqueue(trx, intents));
    const stored = await deliveryDb(store.db).selectFrom('delivery_outbox').selectAll().orderBy('id').execute();
    expect(receipt.rows).not.toBeNull();
    expect(receipt.rows!.map((r) => [r.id, r.messageId, r.orderingKey, r.body, r.meta])).toEqual(stored.map((r) => [Number(r.id), r.message_id, r.ordering_key, r.body, r.meta]));
    // Another producer commits and notifies without a receipt first: the worker reads both.
    const later = await store.db.transaction().execute((trx) => engine.enqueue(trx, [{ endpointId: endpoint.id, orderingKey: 'z', eventType: 'e', body: { later: true } }]));
    engine.notify();
    engine.notify(receipt);
    engine.notify(later);
    await receiver.waitFor(701);
    await settle();
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.requests).toHaveLength(701);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(701);
    expect(await engine.pendingCount()).toBe(0);
  });

  it('sends from the sender thread, handing a quick endpoint more attempts than connections and a slow one no more', async () => {
    const endpoint = await setup({ clock: undefined, perEndpointConcurrency: 2, timeoutMs: 20_000 });
    expect(engine.health().sender).toBe('thread');
    let peak = 0;
    const sample = setInterval(() => (peak = Math.max(peak, engine.health().in_flight)), 1);
    try {
      // Quick: answered at once, so up to 8 per connection are in flight, queued in the thread.
      await send(Array.from({ length: 400 }, (_, i) => ({ endpointId: endpoint.id, orderingKey: `q${i}`, eventType: 'e', body: { i } })));
      await receiver.waitFor(400);
      await settle();
      expect(peak).toBeGreaterThan(2);
      expect(peak).toBeLessThanOrEqual(16);
      // Slow: once its answers take 200 ms, no more attempts than its 2 connections.
      receiver.respond = () => ({ status: 200, delayMs: 200 });
      await send(Array.from({ length: 40 }, (_, i) => ({ endpointId: endpoint.id, orderingKey: `s${i}`, eventType: 'e', body: { s: i } })));
      await receiver.waitFor(402);
      await until(() => engine.health().in_flight <= 2, 10_000, 'the window shrinks to the connections');
      peak = 0;
      await receiver.waitFor(Math.min(440, receiver.requests.length + 10));
      expect(peak).toBeLessThanOrEqual(2);
    } finally {
      clearInterval(sample);
    }
  });
});
