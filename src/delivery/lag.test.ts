// Delivery lag on /readyz and /metrics (issue 35): a worker that cannot start due attempts is not
// ready, and the lag shows on /metrics; a receiver that stops answering shows its lag under its own
// state and leaves readiness alone. Real stores, real receivers, the real app on a port.
import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { startTestApp, type TestApp } from '../../test/support/app.js';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import { Receiver, until } from '../../test/support/webhooks.js';
import type { Store } from '../store/db.js';
import { DeliveryEngine, type DeliveryEngineOptions } from './engine.js';
import type { Endpoint } from './types.js';

interface Ready {
  ok: boolean;
  checks: { delivery: { ok: boolean; lag_seconds: Record<string, number>; waiting: Record<string, number>; max_lag_seconds: number | null } };
}

describe.each(dialects)('delivery lag on %s', (dialect) => {
  let store: Store;
  let engine: DeliveryEngine;
  let app: TestApp;
  const receivers: Receiver[] = [];
  const releases: Array<() => void> = [];

  async function setup(opts: Partial<DeliveryEngineOptions>): Promise<void> {
    store = await openTestStore(dialect);
    const metrics = new Registry();
    engine = new DeliveryEngine({ store, allowLoopback: true, metrics, readyMaxLagMs: 1000, ...opts });
    await engine.start();
    app = await startTestApp({ store, metrics, health: { delivery: () => engine.readiness() } });
  }

  /**
   * A receiver answering 200 to its first `answered` requests (after `delayMs`) and holding the rest
   * until the test ends (or `release`).
   */
  async function receiver(answered = Infinity, delayMs = 0): Promise<{ endpoint: Endpoint; receiver: Receiver; release: () => void }> {
    const r = await new Receiver().listen(0);
    receivers.push(r);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    releases.push(release);
    r.respond = (_req, n) => (n < answered ? { status: 200, delayMs } : { status: 200, until: held });
    return { endpoint: await engine.createEndpoint({ producer: 'test', owner: 'o', url: r.url }), receiver: r, release };
  }

  async function send(endpoint: Endpoint, n: number, tag: string): Promise<void> {
    const intents = Array.from({ length: n }, (_v, i) => ({ endpointId: endpoint.id, orderingKey: `${tag}${i}`, eventType: 'e', body: { tag, i } }));
    await store.db.transaction().execute((trx) => engine.enqueue(trx, intents));
    engine.notify();
  }

  const ready = async () => {
    const res = await fetch(`${app.url}/readyz`);
    return { status: res.status, body: (await res.json()) as Ready };
  };
  const lagMetric = async (state: string) => {
    const text = await (await fetch(`${app.url}/metrics`)).text();
    const m = new RegExp(`^tonwatch_webhook_delivery_lag_seconds\\{state="${state}"\\} (\\S+)$`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
  };

  afterEach(async () => {
    for (const release of releases.splice(0)) release();
    await engine?.stop();
    await app?.close();
    for (const r of receivers.splice(0)) await r.close();
    if (store) await dropTestStore(store);
  });

  it('a held queue: due deliveries to a healthy endpoint that cannot start fail /readyz and show on /metrics, then recover', async () => {
    // One attempt at a time over all endpoints, and it is held at its receiver: the worker is stuck.
    await setup({ concurrency: 1 });
    const stuck = await receiver(0);
    const healthy = await receiver();
    await send(stuck.endpoint, 1, 's');
    await until(() => stuck.receiver.requests.length === 1, 10_000, 'the held attempt reached its receiver');
    await send(healthy.endpoint, 5, 'h');
    expect((await ready()).status).toBe(200);
    await until(async () => (await ready()).status === 503, 10_000, '/readyz failing');
    const { body } = await ready();
    expect(body.checks.delivery.ok).toBe(false);
    expect(body.checks.delivery.waiting.online).toBe(5);
    expect(body.checks.delivery.lag_seconds.online).toBeGreaterThanOrEqual(1);
    expect(body.checks.delivery.max_lag_seconds).toBe(1);
    expect(await lagMetric('online')).toBeGreaterThanOrEqual(1);
    expect(healthy.receiver.requests).toHaveLength(0);
    stuck.release();
    await until(() => healthy.receiver.requests.length === 5, 10_000, 'the healthy endpoint served');
    await until(async () => (await ready()).status === 200, 10_000, '/readyz ok again');
    expect(await lagMetric('online')).toBe(0);
  });

  it('a receiver that stops answering: its lag shows under its own state, /readyz stays ok while a healthy one is served', async () => {
    await setup({ perEndpointConcurrency: 2, timeoutMs: 800 });
    // Answering at first, slower than 100 ms: its window stays one attempt per connection (worker.ts).
    const dead = await receiver(3, 150);
    const healthy = await receiver();
    await send(dead.endpoint, 3, 'warm');
    await until(() => dead.receiver.requests.length === 3, 10_000, 'the receiver answered at first');
    // Now it holds every request: two hang (its window), the rest wait behind them and then retry.
    await send(dead.endpoint, 12, 'd');
    const started = Date.now();
    let round = 0;
    while (Date.now() - started < 3000) {
      await send(healthy.endpoint, 2, `h${round++}-`);
      const r = await ready();
      expect(r.status).toBe(200);
      expect(r.body.checks.delivery.ok).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const { body } = await ready();
    const stalled = body.checks.delivery.lag_seconds;
    // The dead receiver's waiting deliveries: slow (window full) while it was online, offline after its first timeout.
    expect(Math.max(stalled.slow!, stalled.offline!)).toBeGreaterThan(1);
    expect(body.checks.delivery.waiting.offline + body.checks.delivery.waiting.slow).toBeGreaterThan(0);
    expect(stalled.online).toBeLessThan(1);
    expect(Math.max(await lagMetric('offline'), await lagMetric('slow'))).toBeGreaterThan(1);
    await until(() => healthy.receiver.requests.length === 2 * round, 10_000, 'every healthy delivery served');
  });
});
