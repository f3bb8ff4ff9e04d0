// After a receiver answers 410, no new attempt starts to its endpoint (issue 35): attempts already
// handed to the sender thread and waiting for a connection are not sent, the ones in flight finish,
// and nothing is logged for the attempts that never went out. A real receiver counts what reaches it.
import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import type { Store } from '../store/db.js';
import { Receiver, until } from '../../test/support/webhooks.js';
import { DeliveryEngine } from './engine.js';
import { deliveryDb } from './tables.js';
import type { Endpoint } from './types.js';

describe.each(dialects)('a 410 stops the endpoint at once on %s', (dialect) => {
  let store: Store;
  let engine: DeliveryEngine;
  let receiver: Receiver;

  async function setup(perEndpointConcurrency: number): Promise<Endpoint> {
    store = await openTestStore(dialect);
    receiver = await new Receiver().listen(0);
    engine = new DeliveryEngine({ store, allowLoopback: true, timeoutMs: 5000, metrics: new Registry(), perEndpointConcurrency });
    await engine.start();
    expect(engine.health().sender).toBe('thread');
    return engine.createEndpoint({ producer: 'test', owner: 'key-1', url: receiver.url });
  }

  async function send(endpoint: Endpoint, n: number): Promise<void> {
    const intents = Array.from({ length: n }, (_v, i) => ({ endpointId: endpoint.id, orderingKey: `k${i}`, eventType: 'e', body: { n: i } }));
    await store.db.transaction().execute((trx) => engine.enqueue(trx, intents));
    engine.notify();
  }

  afterEach(async () => {
    await engine?.stop();
    await receiver?.close();
    if (store) await dropTestStore(store);
  });

  it('attempts queued behind the 410 never reach the receiver, and go out after back-online', async () => {
    // One connection: once the 410 is read nothing else of this endpoint is on the wire, so every
    // later request would be a new attempt. Quick answers first open the thread's window (8 per connection).
    const endpoint = await setup(1);
    const QUICK = 60;
    const TOTAL = 300;
    let gone = true;
    receiver.respond = (_req, n) => ({ status: n < QUICK || !gone ? 200 : 410 });
    await send(endpoint, TOTAL);
    await receiver.waitFor(QUICK + 1);
    await until(async () => (await engine.getEndpoint(endpoint.id))!.status === 'suspended', 10_000, 'the endpoint suspended');
    await new Promise((r) => setTimeout(r, 1000));
    await until(() => engine.health().in_flight === 0, 10_000, 'no attempt in flight');
    expect(receiver.requests).toHaveLength(QUICK + 1);
    await engine.flush();
    // One failed attempt logged (the 410); the cancelled ones were never attempts.
    const log = await engine.failureLog(endpoint.id, 0, 100);
    expect(log.entries.map((e) => e.statusCode)).toEqual([410]);
    const rows = await deliveryDb(store.db).selectFrom('delivery_outbox').select(['state', 'attempts']).where('state', '=', 'pending').execute();
    expect(rows).toHaveLength(TOTAL - QUICK);
    expect(rows.filter((r) => Number(r.attempts) > 0)).toHaveLength(1);
    // Back online: every held delivery goes out, each once.
    gone = false;
    await engine.backOnline(endpoint.id);
    await until(async () => (await engine.pendingCount()) === 0, 30_000, 'every delivery delivered');
    expect(receiver.requests).toHaveLength(TOTAL + 1);
    expect(new Set(receiver.bodies().map((b) => (b as { n: number }).n)).size).toBe(TOTAL);
  });

  it('attempts in flight when the 410 comes finish and are recorded; none starts after', async () => {
    const endpoint = await setup(3);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // The first three are held at the receiver (all in flight together); the third answers 410, the others 200.
    receiver.respond = (_req, n) => (n < 3 ? { status: n === 2 ? 410 : 200, until: n === 2 ? Promise.resolve() : held } : { status: 410 });
    await send(endpoint, 50);
    await receiver.waitFor(3);
    await until(async () => (await engine.getEndpoint(endpoint.id))!.status === 'suspended', 10_000, 'the endpoint suspended');
    release();
    await until(() => engine.health().in_flight === 0, 10_000, 'no attempt in flight');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests).toHaveLength(3);
    await engine.flush();
    const states = await deliveryDb(store.db).selectFrom('delivery_outbox').select(['state']).execute();
    expect(states.filter((r) => r.state === 'delivered')).toHaveLength(2);
    expect(await engine.pendingCount()).toBe(48);
  });
});
