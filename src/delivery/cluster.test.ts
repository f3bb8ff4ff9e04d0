// Many delivery workers on one PostgreSQL schema, delivering to a real loopback receiver: three
// engines in this process (each its own pool), then three worker processes of which two are
// killed with SIGKILL while a delivery of theirs is at the receiver. Every webhook arrives, the
// first arrivals of each ordering key come in order, and a repeat carries its first attempt's
// webhook-id and Idempotency-Key; a killed worker's keys are resumed within seconds (its liveness
// lock ends with its process), never while it could still be sending.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { allMigrations } from '../components.js';
import { openStore, type Store } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { dialects, dropTestStore, PG_URL, uniqueSchema } from '../../test/support/stores.js';
import { checkReceipts } from '../../test/support/receipts.js';
import { Receiver, until, type ReceivedRequest } from '../../test/support/webhooks.js';
import { ROOT } from '../../test/support/service.js';
import { DeliveryEngine } from './engine.js';
import { KeyLeases } from './leases.js';
import { tryMemberLock } from '../store/locks.js';
import { deliveryDb } from './tables.js';
import type { DeliveryIntent } from './types.js';

const TIMEOUT_MS = 500;
/** Idle keys are given back after this; longer than the 5 s a killed worker's keys may wait. */
const LEASE_MS = 10_000;

/** `keys` ordered keys of `perKey` deliveries each, interleaved, plus `unordered` ones. */
function intents(endpointId: number, keys: number, perKey: number, unordered: number): DeliveryIntent[] {
  const out: DeliveryIntent[] = [];
  for (let seq = 0; seq < perKey; seq++) {
    for (let k = 0; k < keys; k++) out.push({ endpointId, orderingKey: `k${k}`, eventType: 'account_tx', body: { key: `k${k}`, seq } });
  }
  for (let seq = 0; seq < unordered; seq++) out.push({ endpointId, orderingKey: null, eventType: 'mempool', body: { key: 'unordered', seq } });
  return out;
}

const workerOf = (r: ReceivedRequest) => String(r.headers['user-agent']).split(' ')[1] ?? '?';

/** The receipt checks (test/support/receipts.ts) for enqueued intents; returns the number of repeats. */
const checkIntents = (requests: readonly ReceivedRequest[], expected: readonly DeliveryIntent[]) =>
  checkReceipts(requests, expected.map((i) => ({ body: JSON.stringify(i.body), key: i.orderingKey ?? null })));

async function outboxStates(store: Store): Promise<Record<string, number>> {
  const rows = await deliveryDb(store.db).selectFrom('delivery_outbox').select(['state', (eb) => eb.fn.countAll<string>().as('n')]).groupBy('state').execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

describe.skipIf(!dialects.includes('postgres'))('delivery across workers on one PostgreSQL', () => {
  let schema: string;
  const stores: Store[] = [];
  const engines: DeliveryEngine[] = [];
  const children: ChildProcess[] = [];
  let receiver: Receiver;

  async function openShared(): Promise<Store> {
    const store = await openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 4 });
    stores.push(store);
    return store;
  }

  /** A fresh schema, migrated, with one endpoint at the receiver. */
  async function setup(): Promise<{ store: Store; endpointId: number }> {
    schema = uniqueSchema('cluster');
    const store = await openShared();
    await migrate(store, allMigrations);
    receiver = await new Receiver().listen(0);
    const endpoint = await new DeliveryEngine({ store, allowLoopback: true }).createEndpoint({ producer: 'test', owner: 'key-1', url: receiver.url });
    return { store, endpointId: endpoint.id };
  }

  function engineOn(store: Store, name: string): DeliveryEngine {
    const engine = new DeliveryEngine({ store, allowLoopback: true, timeoutMs: TIMEOUT_MS, leaseMs: LEASE_MS, pollIntervalMs: 200, workerId: name, userAgent: `tonwatch-webhooks/test ${name}` });
    engines.push(engine);
    return engine;
  }

  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const engine of engines.splice(0)) await engine.stop();
    await receiver?.close();
    const [first, ...rest] = stores.splice(0);
    for (const s of rest) await s.close();
    if (first) await dropTestStore(first);
  });

  it('leases: one holder per key while it lives; a dead holder\'s keys are free after a grace, kept by itself before', async () => {
    const { store } = await setup();
    const other = await openShared();
    /** A worker's leases with its liveness lock held on a session of its own. */
    const worker = async (db: Store, name: string, previous: string | null = null) => {
      const session = await db.connect!(`test ${name}`);
      expect(await tryMemberLock(session, 'deliveryWorker', name)).toBe(true);
      const leases = new KeyLeases(db.db, 1500);
      await leases.begin(name, previous);
      return { leases, session };
    };
    const a = await worker(store, 'a');
    const b = await worker(other, 'b');
    const key = { key: '1|k', endpointId: 1, orderingKey: 'k' };
    expect([...(await a.leases.claim([key])).fresh]).toEqual(['1|k']);
    expect(a.leases.holds('1|k')).toBe(true);
    const byB = await b.leases.claim([key]);
    expect(byB.fresh.size + byB.resumed.size).toBe(0);
    expect(b.leases.holds('1|k')).toBe(false);
    // a's own claim again continues its lease (not fresh: the row was there); no expiry while a lives.
    expect([...(await a.leases.claim([key])).resumed]).toEqual(['1|k']);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await b.leases.markDead()).toBe(0);
    expect(await b.leases.takeExpired(10)).toEqual([]);
    // a's session ends: b finds its lock free and marks its lease and presence row; the grace runs first.
    await a.session.end();
    expect(await b.leases.markDead()).toBe(2);
    expect((await b.leases.claim([key])).resumed.size).toBe(0);
    // Taken by a again under a new name before the grace ran out: its key is kept.
    const again = await worker(store, 'a~2', 'a');
    expect(again.leases.holds('1|k')).toBe(true);
    await again.session.end();
    expect(await b.leases.markDead()).toBe(2);
    await until(async () => (await b.leases.claim([key])).resumed.size === 1, 5000, "b to take the dead worker's key after the grace");
    expect(b.leases.holds('1|k')).toBe(true);
    await b.session.end();
  });

  it('three engines share the keys: each webhook exactly once, in order per key; a stopped engine hands its keys over at once', async () => {
    const { store, endpointId } = await setup();
    const names = ['e1', 'e2', 'e3'];
    for (const name of names) await engineOn(await openShared(), name).start();
    // Each key's first delivery goes to one engine directly (notify), so the keys spread over all three.
    const all = intents(endpointId, 12, 30, 20);
    const batches = [...all.slice(0, 12).map((intent) => [intent]), ...Array.from({ length: Math.ceil((all.length - 12) / 50) }, (_, i) => all.slice(12 + i * 50, 12 + (i + 1) * 50))];
    for (const [i, batch] of batches.entries()) {
      const engine = engines[i % 3]!;
      const receipt = await store.db.transaction().execute((trx) => engine.enqueue(trx, batch));
      engine.notify(receipt);
    }
    await until(() => receiver.requests.length >= all.length / 3, 30_000, 'a third delivered');
    // A clean stop releases the leases: the others resume its keys without waiting for expiry.
    await engines[0]!.stop();
    await until(async () => (await outboxStates(store)).pending === undefined, 30_000, 'every delivery recorded');
    const repeats = checkIntents(receiver.requests, all);
    expect(repeats).toBe(0);
    expect(new Set(receiver.requests.map(workerOf)).size).toBe(3);
    expect(await outboxStates(store)).toEqual({ delivered: all.length });
  }, 60_000);

  it('workers started later get a share of the keys: the first one gives the excess away, nothing repeated', async () => {
    const { store, endpointId } = await setup();
    receiver.respond = () => ({ status: 200, delayMs: 20 });
    const first = engineOn(await openShared(), 'e1');
    await first.start();
    const all = intents(endpointId, 18, 150, 0);
    const receipt = await store.db.transaction().execute((trx) => first.enqueue(trx, all));
    first.notify(receipt);
    await until(() => receiver.requests.length >= 18, 10_000, 'e1 delivering');
    for (const name of ['e2', 'e3']) await engineOn(await openShared(), name).start();
    await until(async () => (await outboxStates(store)).pending === undefined, 60_000, 'every delivery recorded');
    expect(checkIntents(receiver.requests, all)).toBe(0);
    const byWorker = new Map<string, number>();
    for (const r of receiver.requests) byWorker.set(workerOf(r), (byWorker.get(workerOf(r)) ?? 0) + 1);
    console.log(`rebalanced: deliveries per worker ${JSON.stringify(Object.fromEntries(byWorker))}`);
    expect([...byWorker.keys()].sort()).toEqual(['e1', 'e2', 'e3']);
  }, 90_000);

  it('changes made through another node reach the worker holding the keys: new URL, back-online after a 410', async () => {
    const { store, endpointId } = await setup();
    const [e1, e2] = [engineOn(await openShared(), 'e1'), engineOn(await openShared(), 'e2')];
    await e1.start();
    await e2.start();
    receiver.respond = () => ({ status: 410 });
    const all = intents(endpointId, 1, 3, 0);
    const receipt = await store.db.transaction().execute((trx) => e2.enqueue(trx, all));
    e2.notify(receipt);
    await until(async () => (await e1.getEndpoint(endpointId))?.status === 'suspended', 10_000, 'the endpoint suspended in the store');
    // Either engine may take the key (each hears the other's announcements); the 410 stops it after one request.
    const holder = workerOf(receiver.requests[0]!);
    expect(receiver.requests.map(workerOf)).toEqual([holder]);
    // The other engine (the API node here) holds none of the keys; the holder learns both changes from the store.
    const apiNode = holder === 'e1' ? e2 : e1;
    const moved = await new Receiver().listen(0);
    try {
      await apiNode.updateEndpointUrl(endpointId, moved.url);
      await apiNode.backOnline(endpointId);
      await moved.waitFor(3, 20_000);
      expect(moved.requests.map(workerOf)).toEqual([holder, holder, holder]);
      expect(moved.bodies()).toEqual(all.map((i) => i.body));
      expect(moved.requests[0]!.headers['webhook-id']).toBe(receiver.requests[0]!.headers['webhook-id']);
    } finally {
      await moved.close();
    }
  }, 40_000);

  it('worker processes killed mid-delivery: another resumes their keys within 5 s, repeats keep their ids', async () => {
    const { store, endpointId } = await setup();
    const spawnWorker = async (name: string): Promise<ChildProcess> => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/support/delivery-worker.ts')], {
        cwd: ROOT,
        env: { ...process.env, WORKER_DATABASE_URL: PG_URL, WORKER_SCHEMA: schema, WORKER_NAME: name, WORKER_TIMEOUT_MS: String(TIMEOUT_MS), WORKER_LEASE_MS: String(LEASE_MS) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        child.once('exit', (code, signal) => reject(new Error(`worker ${name} exited (${code ?? signal}) before it was ready`)));
      });
      return child;
    };
    const workers = new Map<string, ChildProcess>();
    for (const name of ['w1', 'w2', 'w3']) workers.set(name, await spawnWorker(name));
    // Once armed, the next request's worker is the victim: it gets no answer, its attempt is cut and never recorded.
    let armed = false;
    let victim: string | null = null;
    receiver.respond = (r) => {
      if (armed && victim === null) victim = workerOf(r);
      return { status: 200, delayMs: workerOf(r) === victim ? 10_000 : 5 };
    };
    const all = intents(endpointId, 16, 25, 16);
    /** Enqueues `intents` in transactions of 16, as producers elsewhere would (the workers poll for them). */
    const enqueue = async (part: readonly DeliveryIntent[]) => {
      for (let i = 0; i < part.length; i += 16) {
        await store.db.transaction().execute((trx) => new DeliveryEngine({ store, allowLoopback: true }).enqueue(trx, part.slice(i, i + 16)));
      }
    };
    // The second half after the first kill: a killed worker's keys move on within seconds, and the
    // second kill needs deliveries still to come.
    const half = 16 * 13;
    await enqueue(all.slice(0, half));

    /** Kills the worker of the next request while that request waits at the receiver for an answer; returns the request. */
    const killMidDelivery = async () => {
      const from = receiver.requests.length;
      armed = true;
      let index = -1;
      await until(() => victim !== null && (index = receiver.requests.findIndex((r, i) => i >= from && workerOf(r) === victim)) >= 0, 30_000, 'a request to hold');
      const name = victim!;
      const child = workers.get(name)!;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      workers.delete(name);
      armed = false;
      victim = null;
      return { name, index, body: receiver.requests[index]!.body, at: Date.now() };
    };
    await until(() => receiver.requests.length >= 60, 30_000, 'deliveries under way');
    const first = await killMidDelivery();
    workers.set('w4', await spawnWorker('w4'));
    await enqueue(all.slice(half));
    await until(() => receiver.requests.length >= 250, 60_000, 'more deliveries');
    const second = await killMidDelivery();

    await until(async () => (await outboxStates(store)).pending === undefined, 90_000, 'every delivery recorded');
    const repeats = checkIntents(receiver.requests, all);
    console.log(`cluster delivery: ${all.length} webhooks, ${receiver.requests.length} requests, ${repeats} repeats (killed mid-delivery: ${first.name}, ${second.name})`);
    for (const killed of [first, second]) {
      // The attempt cut by the kill was never recorded: another worker sent it again, with the same
      // id, within 5 s of the kill (the lease is far longer: the dead worker's lock told).
      const again = receiver.requests.filter((r, i) => r.body === killed.body && i > killed.index);
      expect(again.length).toBeGreaterThan(0);
      console.log(`killed ${killed.name}: its held delivery sent again ${again[0]!.at - killed.at} ms after the kill`);
      expect(again[0]!.at - killed.at).toBeLessThanOrEqual(5000);
    }
    expect(await outboxStates(store)).toEqual({ delivered: all.length });
    // The survivors stop cleanly and leave no live lease behind.
    expect(workers.size).toBe(2);
    const survivors = [...workers.keys()];
    for (const child of workers.values()) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    // Given back: a survivor's rows are marked expired (0). The killed workers' rows may remain until
    // someone's next takeover pass deletes them, but they expired long ago.
    const live = await sql<{ lease_key: string; owner: string }>`select lease_key, owner from delivery_leases
      where expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint or (owner = any(${survivors}::text[]) and expires_at > 0)`.execute(store.db);
    expect(live.rows).toEqual([]);
  }, 180_000);
});
