// PostgreSQL's disk full under webhook delivery load (issue 35): a private server whose data directory
// is a small tmpfs, a delivery worker and a producer on it, the disk filled to the last byte for 15 s
// and then freed. Inserts needing a new page fail while it is full; with a WAL-heavy writer beside them
// the server PANICs on a WAL write and its crash recovery cannot write either, so the postmaster stops
// and is started again once the space is back (as a supervisor would). Afterwards deliveries resume
// within seconds, nothing committed is lost, first receipts keep each key's order and every repeat
// carries its first webhook-id. Never touches the server on 5432.
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { allMigrations } from '../../src/components.js';
import { DeliveryEngine } from '../../src/delivery/engine.js';
import { deliveryDb } from '../../src/delivery/tables.js';
import type { DeliveryIntent } from '../../src/delivery/types.js';
import { openStore, type Store } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { PrivatePostgres, privatePostgresUnavailable } from '../support/private-postgres.js';
import { checkReceipts } from '../support/receipts.js';
import { Receiver, until } from '../support/webhooks.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Updates one row in a loop (WAL without new pages) until stopped; errors are the fault's, and ignored. */
async function walChurner(url: string): Promise<{ stop(): Promise<number> }> {
  let running = true;
  let updates = 0;
  const loop = (async () => {
    while (running) {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => {}); // the PANIC ends the session; the query's rejection says so
      try {
        await client.connect();
        await client.query('create table if not exists public.churn (id int primary key, v bigint) with (fillfactor = 10)');
        await client.query('insert into public.churn values (1, 0) on conflict do nothing');
        while (running) {
          await client.query('update public.churn set v = v + 1 where id = 1');
          updates++;
        }
      } catch {
        await sleep(100);
      } finally {
        await client.end().catch(() => {});
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return updates;
    },
  };
}
const FULL_SECONDS = 15;

const unavailable = await privatePostgresUnavailable();
if (unavailable) console.warn(`PostgreSQL disk-full test skipped: ${unavailable}`);

describe.skipIf(unavailable !== null)('PostgreSQL disk full under webhook delivery load', () => {
  let server: PrivatePostgres | undefined;
  const stores: Store[] = [];
  const engines: DeliveryEngine[] = [];
  let receiver: Receiver | undefined;

  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.stop();
    await receiver?.close();
    for (const s of stores.splice(0)) await s.close().catch(() => {});
    await server?.stop();
  });

  const intent = (endpointId: number, key: string, seq: number): DeliveryIntent => ({ endpointId, orderingKey: key, eventType: 'account_tx', body: { key, seq } });

  // `backlog`: a slow receiver (300 ms) keeps attempts in flight and rows pending, so outcomes must be
  // recorded while the disk is full (updates and WAL, where PostgreSQL may PANIC); `idle`: the worker
  // is caught up and only the producer's inserts fail; `wal`: another writer on the database keeps
  // updating one row (no new pages, only WAL) so the server runs out of WAL segments.
  it.each(['idle', 'backlog', 'wal'] as const)(`the disk full for ${FULL_SECONDS} s (worker %s): deliveries resume within 5 s of the space coming back, none lost, in order`, async (mode) => {
    server = await PrivatePostgres.start(96);
    const store = await openStore({ databaseUrl: server.url, pgSchema: 'diskfull', pgPoolSize: 4 });
    stores.push(store);
    await migrate(store, allMigrations);
    receiver = await new Receiver().listen(0);
    let receiverDelayMs = mode === 'backlog' ? 300 : 5;
    receiver.respond = () => ({ status: 200, delayMs: receiverDelayMs });
    // The producer stands for the router of another process; the worker has its own pool.
    const producer = new DeliveryEngine({ store, allowLoopback: true });
    const endpointId = (await producer.createEndpoint({ producer: 'test', owner: 'key-1', url: receiver.url })).id;
    const workerStore = await openStore({ databaseUrl: server.url, pgSchema: 'diskfull', pgPoolSize: 4 });
    stores.push(workerStore);
    const worker = new DeliveryEngine({ store: workerStore, allowLoopback: true, timeoutMs: 1000, leaseMs: 4000, pollIntervalMs: 100, workerId: 'full' });
    engines.push(worker);
    await worker.start();

    // Only what committed is owed; a batch the full disk refused is the producer's to retry.
    const sent: Array<{ intent: DeliveryIntent; at: number }> = [];
    let refused = 0;
    let producing = true;
    const producing$ = (async () => {
      for (let seq = 0; producing; seq++) {
        const batch = Array.from({ length: 10 }, (_, k) => intent(endpointId, `k${k}`, seq));
        try {
          await store.db.transaction().execute((trx) => producer.enqueue(trx, batch));
          const at = Date.now();
          for (const i of batch) sent.push({ intent: i, at });
        } catch {
          refused++;
          seq--;
        }
        await sleep(50);
      }
    })();
    const churner = mode === 'wal' ? await walChurner(server.url) : undefined;
    await sleep(2000);
    const fullAt = Date.now();
    const filled = server.fill();
    // What /readyz would say meanwhile: the delivery check (lag) and the store check (`select 1`).
    const notReady: string[] = [];
    let storeChecks = 0;
    let storeCheckFailures = 0;
    while (Date.now() - fullAt < FULL_SECONDS * 1000) {
      const r = worker.readiness();
      if (!r.ok) notReady.push(JSON.stringify(r));
      storeChecks++;
      await sql`select 1`.execute(store.db).catch(() => storeCheckFailures++);
      await sleep(500);
    }
    const refusedWhileFull = refused;
    const receivedWhileFull = receiver.requests.filter((r) => r.at >= fullAt).length;
    server.free();
    const freedAt = Date.now();
    receiverDelayMs = 5;
    await churner?.stop();
    // A PANIC on a WAL write restarts the server on its own; if the postmaster itself gave up
    // (recovery could not write either), it is started again, as a supervisor would.
    const status = await server.ctl('status');
    const restarted = status.includes('no server running') ? await server.ctl('start').then(() => Date.now() - freedAt) : null;
    const log = readFileSync(server.logFile, 'utf8');
    const panics = (log.match(/PANIC:/g) ?? []).length;
    await sleep(5000);
    producing = false;
    await producing$;
    await until(async () => (await deliveryDb(store.db).selectFrom('delivery_outbox').select('id').where('state', '=', 'pending').limit(1).execute()).length === 0, 30_000, 'every delivery recorded');

    // The first webhook sent for the first time once the space was back.
    const before = new Set(receiver.requests.filter((r) => r.at < freedAt).map((r) => r.body));
    const resumed = receiver.requests.find((r) => r.at >= freedAt && !before.has(r.body))!;
    const resumeMs = resumed.at - freedAt;
    const afterBack = restarted === null ? '' : ` (${resumeMs - restarted} ms after it accepted connections again)`;
    let gap = 0;
    for (let i = 1; i < receiver.requests.length; i++) gap = Math.max(gap, receiver.requests[i]!.at - receiver.requests[i - 1]!.at);
    const repeats = checkReceipts(receiver.requests, sent.map((s) => ({ body: JSON.stringify(s.intent.body), key: s.intent.orderingKey ?? null })));
    console.log(
      `PostgreSQL disk full for ${FULL_SECONDS} s under load (worker ${mode}): ${sent.length} webhooks, ${repeats} repeats, first delivery ${resumeMs} ms after the space was freed${afterBack}; ` +
        `${(filled / 2 ** 20).toFixed(0)} MB filler, ${refusedWhileFull} enqueue batches refused and ${receivedWhileFull} requests received while full, ${panics} PANIC(s) in the server log, ` +
        `longest silence at the receiver ${gap} ms, worker not ready ${notReady.length}× during the fault (${notReady[0] ?? 'never'}), the store's select 1 failed ${storeCheckFailures} of ${storeChecks}; pg_ctl status after freeing: ${status.split('\n')[0]}${restarted === null ? '' : `, started again in ${restarted} ms`}`,
    );
    const errors = [...new Set(log.match(/(ERROR|PANIC|FATAL|LOG):  [^\n]*(space|No space|could not (write|extend))[^\n]*/g) ?? [])].slice(0, 4);
    console.log(`server log on the fault: ${errors.join(' | ') || '(nothing)'}`);
    expect(refusedWhileFull, 'the full disk refused writes').toBeGreaterThan(0);
    expect(resumeMs).toBeLessThanOrEqual(5000);
    const states = await deliveryDb(store.db).selectFrom('delivery_outbox').select(['state', (eb) => eb.fn.countAll<string>().as('n')]).groupBy('state').execute();
    expect(Object.fromEntries(states.map((r) => [r.state, Number(r.n)]))).toEqual({ delivered: sent.length });
  }, 90_000);
});
