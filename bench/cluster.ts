// Cluster mode (issue 22), in one run: webhook deliveries/s and events/s to SSE clients with 1, 2 and
// 3 `tonwatch serve` processes (every role in each) on one PostgreSQL schema. One process leads:
// it follows the replayed chain, appends it and routes every transaction of the subscribed accounts
// into the outbox; every process delivers a share of the outbox (leases per account) and streams the
// log (announced with NOTIFY, read from the table) to the SSE clients spread over them. The chain
// offers more than one process can follow, route, deliver and stream on two cores: each row reports
// what was delivered of what was offered. Baseline: the same load on one process. On two cores the processes share the CPU, so the
// shape of the curve (what a second node costs or brings) is the point, not absolute gain.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { StoreEventLog } from '../src/bus/store-log.js';
import { openStore } from '../src/store/db.js';
import { spawnService, type SpawnedService } from '../test/support/service.js';
import type { Benchmark, BenchRow } from './harness.js';
import { BENCH_PG_URL, postgresReachable } from './lib/store.js';
import { ReceiverProcess } from './webhooks.js';

const CLIENTS = 48;
/** What the leader can follow alone on two cores with room to spare (the replay keeps ~16 s of it for a follower behind). */
const RATE = 3000;
const ACCOUNTS = 1000;
const BLOCK_INTERVAL_MS = 250;
/** Webhooks, each on every account: every transaction is this many deliveries (24,000/s offered: more than one process routes on two cores). */
const WEBHOOKS = 8;

/** Counts SSE message frames on a stream without parsing them (the bench process shares the 2 cores). */
function countingClient(url: string, key: string): { count: () => number; close: () => void } {
  let count = 0;
  let tail = '';
  const req = http.get(url, { headers: { authorization: `Bearer ${key}` }, agent: false }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const text = tail + chunk;
      for (let i = text.indexOf('event: message'); i >= 0; i = text.indexOf('event: message', i + 1)) count++;
      // a marker split across chunks is counted once: keep 13 characters, one short of a whole marker
      const cut = Math.max(0, text.length - 13);
      tail = text.slice(cut);
    });
  });
  req.on('error', () => {});
  return { count: () => count, close: () => req.destroy() };
}

/** The log's transactions after `after` up to `upTo` (all of them when `after` is -1), read from the store. */
async function transactionsInLog(schema: string, after = -1, upTo = Number.MAX_SAFE_INTEGER): Promise<string[]> {
  const store = await openStore({ databaseUrl: BENCH_PG_URL, pgSchema: schema, pgPoolSize: 1 });
  try {
    const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await log.open();
    const batches = await log.readAfter(after, 1_000_000);
    return batches.flatMap((b) => b.events.flatMap((e) => (e.type === 'transaction' && e.position > after && e.position <= upTo ? [e.tx.account] : [])));
  } finally {
    await store.close();
  }
}

interface ClusterRun {
  eventsPerSecond: number;
  /** Transactions appended per second: each SSE client is offered every one. */
  transactionsPerSecond: number;
  deliveriesPerSecond: number;
  /** Deliveries the router put into the outbox per second (the webhook load offered). */
  routedPerSecond: number;
  /** Deliveries waiting at the end of the window. */
  backlog: number;
  subscribed: number;
  load: number;
  /** The leader fell so far behind that the replay no longer had its next block (it stops following). */
  fellOut: boolean;
}

async function runCluster(nodes: number, seconds: number, tmp: string, receiver: ReceiverProcess, progress: (m: string) => void): Promise<ClusterRun> {
  const schema = `bench_cluster_${nodes}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BENCH_PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const key = `tw_bench_admin_${randomBytes(12).toString('hex')}`;
  const env = {
    DATABASE_URL: `${BENCH_PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    TONWATCH_CLUSTER: 'true',
    TONWATCH_CHAIN: 'replay',
    TONWATCH_REPLAY_RATE: String(RATE),
    TONWATCH_REPLAY_ACCOUNTS: String(ACCOUNTS),
    TONWATCH_BLOCK_INTERVAL_MS: String(BLOCK_INTERVAL_MS),
    TONWATCH_REPLAY_START: String(Date.now()),
    TONWATCH_STREAM_ANON_LIMIT: '0',
    TONWATCH_WEBHOOK_ALLOW_LOOPBACK: 'true',
  };
  const count = async (sql: string) => Number((await admin.query(sql.replaceAll('$schema', schema))).rows[0].n);
  const procs: SpawnedService[] = [];
  try {
    procs.push(...(await Promise.all(Array.from({ length: nodes }, (_, i) => spawnService({ dataDir: mkdtempSync(join(tmp, `n${i}-`)), adminKey: key, env })))));
    // a webhook, made through the first node, following every account the replay has used after a few blocks
    await new Promise((r) => setTimeout(r, 3000));
    const accounts = [...new Set(await transactionsInLog(schema))];
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${procs[0]!.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<any>;
    };
    for (let w = 0; w < WEBHOOKS; w++) {
      const { webhook_id } = await call('/webhooks', { endpoint: `http://127.0.0.1:${receiver.port}/hook` });
      // at most 1,000 accounts per call
      for (let i = 0; i < accounts.length; i += 1000) {
        await call(`/webhooks/${webhook_id}/account-tx/subscribe`, { accounts: accounts.slice(i, i + 1000).map((account_id) => ({ account_id })) });
      }
    }
    progress(`${nodes} process(es) up; ${WEBHOOKS} webhooks on ${accounts.length} accounts; ${CLIENTS} SSE clients`);
    const clients = Array.from({ length: CLIENTS }, (_, i) => countingClient(`${procs[i % nodes]!.url}/v2/sse/accounts/transactions?accounts=ALL`, key));
    await new Promise((r) => setTimeout(r, 3000));

    const load = loadavg()[0]!;
    const head = () => count('select coalesce(max(last_position), -1)::int8 as n from $schema.event_batches');
    const routed = () => count('select coalesce(max(id), 0)::int8 as n from $schema.delivery_outbox');
    const before = { events: clients.map((c) => c.count()), head: await head(), routed: await routed(), delivered: await receiver.count(), at: performance.now() };
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const after = { events: clients.map((c) => c.count()), head: await head(), routed: await routed(), delivered: await receiver.count(), at: performance.now() };
    for (const c of clients) c.close();
    const elapsed = (after.at - before.at) / 1000;
    const backlog = await count("select count(*)::int8 as n from $schema.delivery_outbox where state = 'pending'");
    return {
      eventsPerSecond: after.events.reduce((s, v, i) => s + v - before.events[i]!, 0) / elapsed,
      transactionsPerSecond: (await transactionsInLog(schema, before.head, after.head)).length / elapsed,
      deliveriesPerSecond: (after.delivered - before.delivered) / elapsed,
      routedPerSecond: (after.routed - before.routed) / elapsed,
      backlog,
      subscribed: accounts.length,
      load,
      fellOut: procs.some((p) => p.output().includes('is no longer available: the replay source keeps')),
    };
  } finally {
    for (const p of procs) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

const bench: Benchmark = {
  name: 'cluster',
  description: `Webhook deliveries/s and events/s to ${CLIENTS} SSE clients with 1, 2 and 3 serve processes (every role) on one PostgreSQL, in one run: replay at ${RATE} tx/s over ${ACCOUNTS} accounts, ${WEBHOOKS} webhooks on all of them, every client on every account; baseline: one process.`,
  issue: 22,
  budgetSeconds: 240,
  async run(ctx) {
    if (!(await postgresReachable())) return [{ metric: 'cluster benchmark', value: 0, unit: '', note: `PostgreSQL not reachable at ${BENCH_PG_URL}: skipped` }];
    const seconds = Math.max(5, Math.round(15 * ctx.scale));
    const tmp = mkdtempSync(join(ctx.tmpDir, 'cluster-'));
    const receiver = await ReceiverProcess.start();
    const runs: Array<{ nodes: number; run: ClusterRun }> = [];
    try {
      for (const nodes of [1, 2, 3]) runs.push({ nodes, run: await runCluster(nodes, seconds, tmp, receiver, ctx.progress) });
    } finally {
      receiver.stop();
      rmSync(tmp, { recursive: true, force: true });
    }
    const one = runs[0]!.run;
    const rows: BenchRow[] = [];
    const processes = (n: number) => `${n} process${n > 1 ? 'es' : ''}`;
    for (const { nodes, run } of runs) {
      const offered = run.transactionsPerSecond * CLIENTS;
      rows.push({
        metric: `webhook deliveries/s, ${processes(nodes)}`,
        value: Math.round(run.deliveriesPerSecond),
        unit: 'deliveries/s',
        ...(nodes > 1 ? { baseline: { name: 'one process', value: Math.round(one.deliveriesPerSecond) }, ratio: run.deliveriesPerSecond / one.deliveriesPerSecond } : {}),
        note: `${seconds} s measured; the router put ${Math.round(run.routedPerSecond).toLocaleString('en-US')}/s into the outbox (${WEBHOOKS} webhooks on the ${run.subscribed.toLocaleString('en-US')} accounts seen: about ${WEBHOOKS} deliveries per transaction the leader appended): delivered/routed ${(run.deliveriesPerSecond / Math.max(1, run.routedPerSecond)).toFixed(2)}, ${run.backlog.toLocaleString('en-US')} waiting at the end; every process delivers (leases per account); receiver in its own process; load average ${run.load.toFixed(1)} on 2 cores at the window's start`,
      });
      rows.push({
        metric: `events/s to ${CLIENTS} SSE clients, ${processes(nodes)}`,
        value: Math.round(run.eventsPerSecond),
        unit: 'events/s',
        ...(nodes > 1 ? { baseline: { name: 'one process', value: Math.round(one.eventsPerSecond) }, ratio: run.eventsPerSecond / one.eventsPerSecond } : {}),
        note: `same run; the chain offered ${RATE.toLocaleString('en-US')} transactions/s and the leader appended ${Math.round(run.transactionsPerSecond).toLocaleString('en-US')}/s (${run.fellOut ? 'it fell out of the replay\'s window of recent blocks and stopped following: the processes were far below the load' : run.transactionsPerSecond < RATE * 0.95 ? 'it fell behind the chain: the processes were the limit' : 'it kept up with the chain'}), so ${Math.round(offered).toLocaleString('en-US')} events/s were offered to the clients: delivered/offered ${(run.eventsPerSecond / Math.max(1, offered)).toFixed(2)}; clients spread round-robin over the processes, all in the benchmark's process`,
      });
    }
    return rows;
  },
};

export default bench;
