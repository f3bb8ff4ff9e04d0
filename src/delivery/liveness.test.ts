// Delivery latency on PostgreSQL when nothing is wrong and when the store goes away (issue 35): a key
// quiet for spells up to longer than a lease gets its next webhook at once, and a worker whose every
// connection is reset (a TCP proxy between it and the server, cut for 3 s under load) delivers again
// within 2 s of the store answering — after a 3 s blip and after a 15 s stop — losing nothing and
// keeping each key's order.
import { afterEach, describe, expect, it } from 'vitest';
import { allMigrations } from '../components.js';
import { openStore, type Store } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { checkReceipts } from '../../test/support/receipts.js';
import { dialects, dropTestStore, PG_URL, uniqueSchema } from '../../test/support/stores.js';
import { TcpProxy } from '../../test/support/tcp-proxy.js';
import { Receiver, until } from '../../test/support/webhooks.js';
import { DeliveryEngine } from './engine.js';
import { deliveryDb } from './tables.js';
import type { DeliveryIntent } from './types.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!dialects.includes('postgres'))('webhook delivery latency on PostgreSQL', () => {
  const stores: Store[] = [];
  const engines: DeliveryEngine[] = [];
  let receiver: Receiver | undefined;
  let proxy: TcpProxy | undefined;

  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    await receiver?.close();
    await proxy?.close();
    const [first, ...rest] = stores.splice(0);
    for (const s of rest) await s.close();
    if (first) await dropTestStore(first);
  });

  /** A migrated schema (reached directly), a receiver and an endpoint at it. */
  async function setup(): Promise<{ store: Store; schema: string; endpointId: number; producer: DeliveryEngine }> {
    const schema = uniqueSchema('live');
    const store = await openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 4 });
    stores.push(store);
    await migrate(store, allMigrations);
    receiver = await new Receiver().listen(0);
    const producer = new DeliveryEngine({ store, allowLoopback: true });
    const endpoint = await producer.createEndpoint({ producer: 'test', owner: 'key-1', url: receiver.url });
    return { store, schema, endpointId: endpoint.id, producer };
  }

  const intent = (endpointId: number, key: string, seq: number): DeliveryIntent => ({ endpointId, orderingKey: key, eventType: 'account_tx', body: { key, seq } });

  it('a key quiet for spells up to longer than a lease gets its next webhook at once', async () => {
    const { store, endpointId } = await setup();
    // Before issue 35 a lease with less than twice the timeout left held a key's work until the next
    // renewal (every quarter lease, 4 s here): spells of 11.75–16 s waited up to 4 s.
    const engine = new DeliveryEngine({ store, allowLoopback: true, timeoutMs: 2000, leaseMs: 16_000, workerId: 'quiet' });
    engines.push(engine);
    await engine.start();
    const quietMs = [3000, 7000, 12_500, 13_500, 14_500, 15_500, 18_000];
    const first = quietMs.map((_, i) => intent(endpointId, `q${i}`, 0));
    engine.notify(await store.db.transaction().execute((trx) => engine.enqueue(trx, first)));
    await receiver!.waitFor(first.length, 10_000);
    const start = Date.now();
    const latencies = await Promise.all(
      quietMs.map(async (quiet, i) => {
        await sleep(start + quiet - Date.now());
        const body = JSON.stringify(intent(endpointId, `q${i}`, 1).body);
        const enqueued = Date.now();
        engine.notify(await store.db.transaction().execute((trx) => engine.enqueue(trx, [intent(endpointId, `q${i}`, 1)])));
        await until(() => receiver!.requests.some((r) => r.body === body), 15_000, `the webhook after ${quiet} ms quiet`);
        return receiver!.requests.find((r) => r.body === body)!.at - enqueued;
      }),
    );
    console.log(`after quiet spells of ${quietMs.join(', ')} ms (lease 16 s): webhook ${latencies.join(', ')} ms after the enqueue`);
    // Normal delivery latency on loopback is milliseconds (more on a loaded machine); a renewal tick's wait was up to 4 s.
    for (const ms of latencies) expect(ms).toBeLessThan(1000);
  }, 60_000);

  it.each([3, 15])('every connection reset and refused for %i s under load: deliveries resume within 2 s of the store answering, none lost, in order', async (cutSeconds) => {
    const { store, schema, endpointId, producer } = await setup();
    proxy = await TcpProxy.start({ host: '127.0.0.1', port: 5432 });
    const viaProxy = await openStore({ databaseUrl: PG_URL.replace(/@[^/]+\//, `@127.0.0.1:${proxy.port}/`), pgSchema: schema, pgPoolSize: 4 });
    stores.push(viaProxy);
    // The worker reaches the store through the proxy; the producer (another process's role) directly.
    const worker = new DeliveryEngine({ store: viaProxy, allowLoopback: true, timeoutMs: 1000, leaseMs: 4000, pollIntervalMs: 100, workerId: 'blip' });
    engines.push(worker);
    await worker.start();
    receiver!.respond = () => ({ status: 200, delayMs: 5 });
    const sent: Array<{ intent: DeliveryIntent; at: number }> = [];
    let producing = true;
    const producing$ = (async () => {
      for (let seq = 0; producing; seq++) {
        const batch = Array.from({ length: 10 }, (_, k) => intent(endpointId, `k${k}`, seq));
        await store.db.transaction().execute((trx) => producer.enqueue(trx, batch));
        const at = Date.now();
        for (const i of batch) sent.push({ intent: i, at });
        await sleep(50);
      }
    })();
    await sleep(2000);
    const cutAt = Date.now();
    proxy.cut();
    await sleep(cutSeconds * 1000);
    proxy.restore();
    const restoredAt = Date.now();
    await sleep(3000);
    producing = false;
    await producing$;
    await until(async () => (await deliveryDb(store.db).selectFrom('delivery_outbox').select('id').where('state', '=', 'pending').limit(1).execute()).length === 0, 30_000, 'every delivery recorded');
    // The first webhook written during the cut to arrive.
    const during = new Set(sent.filter((s) => s.at >= cutAt).map((s) => JSON.stringify(s.intent.body)));
    const resumed = receiver!.requests.find((r) => during.has(r.body))!;
    const resumeMs = resumed.at - restoredAt;
    const repeats = checkReceipts(receiver!.requests, sent.map((s) => ({ body: JSON.stringify(s.intent.body), key: s.intent.orderingKey ?? null })));
    console.log(`store cut ${cutSeconds} s under load: ${sent.length} webhooks, ${repeats} repeats, first delivery ${resumeMs} ms after the store answered again (${proxy.refused} connections refused or reset)`);
    expect(resumeMs).toBeLessThanOrEqual(2000);
    const states = await deliveryDb(store.db).selectFrom('delivery_outbox').select(['state', (eb) => eb.fn.countAll<string>().as('n')]).groupBy('state').execute();
    expect(Object.fromEntries(states.map((r) => [r.state, Number(r.n)]))).toEqual({ delivered: sent.length });
  }, 90_000);
});
