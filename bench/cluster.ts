// Cluster mode (issue 22): events delivered per second to SSE clients with 1, 2 and 3 `tonwatch serve`
// processes on one PostgreSQL schema. One process leads and appends the replayed chain; every process
// serves the same log (announced with NOTIFY, read from the table) to the clients spread over the
// nodes. Baseline: the same load on one process. On two cores the processes share the CPU, so the
// interesting part is the shape of the curve (what a second node costs or brings), not absolute gain.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { spawnService, type SpawnedService } from '../test/support/service.js';
import type { Benchmark, BenchRow } from './harness.js';
import { BENCH_PG_URL, postgresReachable } from './lib/store.js';

const CLIENTS = 12;
const RATE = 3000;
const BLOCK_INTERVAL_MS = 250;

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

async function runCluster(nodes: number, seconds: number, tmp: string, progress: (m: string) => void) {
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
    TONWATCH_REPLAY_ACCOUNTS: '1000',
    TONWATCH_BLOCK_INTERVAL_MS: String(BLOCK_INTERVAL_MS),
    TONWATCH_REPLAY_START: String(Date.now()),
    TONWATCH_STREAM_ANON_LIMIT: '0',
  };
  const procs: SpawnedService[] = [];
  try {
    for (let i = 0; i < nodes; i++) procs.push(await spawnService({ dataDir: mkdtempSync(join(tmp, `n${i}-`)), adminKey: key, env }));
    progress(`${nodes} process(es) up; ${CLIENTS} SSE clients`);
    const clients = Array.from({ length: CLIENTS }, (_, i) => countingClient(`${procs[i % nodes]!.url}/v2/sse/accounts/transactions?accounts=ALL`, key));
    await new Promise((r) => setTimeout(r, 3000));
    const load = loadavg()[0]!;
    const before = clients.map((c) => c.count());
    const [{ n: appendedBefore }] = (await admin.query(`select coalesce(sum(event_count), 0)::int8 as n from ${schema}.event_batches`)).rows;
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const after = clients.map((c) => c.count());
    const [{ n: appendedAfter }] = (await admin.query(`select coalesce(sum(event_count), 0)::int8 as n from ${schema}.event_batches`)).rows;
    for (const c of clients) c.close();
    const received = after.reduce((s, v, i) => s + v - before[i]!, 0);
    return { eventsPerSecond: received / seconds, appendedPerSecond: (Number(appendedAfter) - Number(appendedBefore)) / seconds, load };
  } finally {
    for (const p of procs) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

const bench: Benchmark = {
  name: 'cluster',
  description: `Events/s delivered to ${CLIENTS} SSE clients (every account's transactions, replay at ${RATE} tx/s) by 1, 2 and 3 processes on one PostgreSQL; baseline: one process.`,
  issue: 22,
  budgetSeconds: 150,
  async run(ctx) {
    if (!(await postgresReachable())) return [{ metric: 'cluster benchmark', value: 0, unit: '', note: `PostgreSQL not reachable at ${BENCH_PG_URL}: skipped` }];
    const seconds = Math.max(5, Math.round(15 * ctx.scale));
    const tmp = mkdtempSync(join(ctx.tmpDir, 'cluster-'));
    const rows: BenchRow[] = [];
    let one: number | null = null;
    try {
      for (const nodes of [1, 2, 3]) {
        const r = await runCluster(nodes, seconds, tmp, ctx.progress);
        one ??= r.eventsPerSecond;
        rows.push({
          metric: `events/s to ${CLIENTS} SSE clients, ${nodes} process${nodes > 1 ? 'es' : ''}`,
          value: Math.round(r.eventsPerSecond),
          unit: 'events/s',
          ...(nodes > 1 ? { baseline: { name: 'one process', value: Math.round(one) }, ratio: r.eventsPerSecond / one } : {}),
          note: `${seconds} s measured; the leader appended ${Math.round(r.appendedPerSecond)} events/s (all kinds) meanwhile, so at most ${Math.round(r.appendedPerSecond * CLIENTS)} could reach the clients (transactions are most of them); clients spread round-robin over the processes, all in the benchmark's process; load average ${r.load.toFixed(1)} on 2 cores`,
        });
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
    return rows;
  },
};

export default bench;
