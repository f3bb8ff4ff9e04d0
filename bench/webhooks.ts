// Webhook deliveries through the durable outbox (#5). A receiver runs in its own process; the
// baseline is autocannon alone posting the same bodies (same headers, same connection count) to
// the same receiver in the same run. Measured: sustained deliveries/s of the delivery engine (a
// producer enqueuing in its own transactions) on each store, the same for events appended to the
// event log (router → outbox → worker → HTTP), and p99 from a block's append to the first attempt —
// on SQLite, and on PostgreSQL with 1 and 3 workers and accounts quiet longer than a lease in the mix.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { account, transaction } from '../test/support/model.js';
import { StoreEventLog } from '../src/bus/store-log.js';
import { loadConfig } from '../src/config.js';
import { MAINNET_PROFILE } from '../src/chain/profile.js';
import type { ChainSource } from '../src/chain/source.js';
import type { ServiceContext } from '../src/service/component.js';
import type { DialectName } from '../src/store/db.js';
import { createWebhooksComponent } from '../src/webhooks/component.js';
import { DeliveryEngine, deliveryOptionsFromConfig } from '../src/delivery/engine.js';
import { deliveryHeaders } from '../src/delivery/sender.js';
import { transactionBody } from '../src/webhooks/router.js';
import { txBatch } from '../test/support/webhooks.js';
import type { Benchmark, BenchContext, BenchRow } from './harness.js';
import { openStore } from '../src/store/db.js';
import { BENCH_PG_URL, openBenchStore, postgresReachable } from './lib/store.js';
import { percentile, perSecond, sleep } from './lib/stats.js';

// autocannon ships no types: the part used here.
type Autocannon = (opts: { url: string; method: string; body: string; headers: Record<string, string>; connections: number; duration: number; warmup?: { connections: number; duration: number } }) => Promise<{ requests: { average: number } }>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const ACCOUNTS = 1000;
const CONNECTIONS = 64;
const THROUGHPUT_TARGET = 5000;
const LATENCY_TARGET_MS = 100;

/** The receiver process: answers 204 to every POST, counts them, and records arrival times when asked. */
const RECEIVER = `
const http = require('node:http');
let count = 0; let recording = false; const arrivals = [];
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    count++;
    if (recording) arrivals.push([Buffer.concat(chunks).toString(), performance.timeOrigin + performance.now()]);
    res.writeHead(204); res.end();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
// Ends with the benchmark, even when the benchmark is killed.
process.on('disconnect', () => process.exit(0));
process.on('message', (m) => {
  if (m.cmd === 'count') process.send({ count });
  if (m.cmd === 'record') { recording = m.on; if (m.on) arrivals.length = 0; process.send({ ok: true }); }
  if (m.cmd === 'arrivals') process.send({ arrivals });
});`;

export class ReceiverProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(): Promise<ReceiverProcess> {
    const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const [msg] = (await once(child, 'message')) as [{ port: number }];
    return new ReceiverProcess(child, msg.port);
  }

  private ask<T>(cmd: object): Promise<T> {
    this.child.send(cmd);
    return once(this.child, 'message').then(([m]) => m as T);
  }

  count = () => this.ask<{ count: number }>({ cmd: 'count' }).then((m) => m.count);
  record = (on: boolean) => this.ask({ cmd: 'record', on });
  arrivals = () => this.ask<{ arrivals: Array<[string, number]> }>({ cmd: 'arrivals' }).then((m) => m.arrivals);

  stop(): void {
    this.child.kill();
  }
}

/** autocannon alone: the same body and headers, the same connection count, for `seconds`. */
async function autocannonAlone(port: number, body: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const result = await autocannon({ url: `http://127.0.0.1:${port}/hook`, method: 'POST', body, headers, connections: CONNECTIONS, duration: seconds, warmup: { connections: CONNECTIONS, duration: 1 } });
  return result.requests.average;
}

const now = () => performance.timeOrigin + performance.now();

/** PostgreSQL latency runs: a short lease, so accounts quiet for seconds have given their keys back. */
const SHORT_LEASE = { TONWATCH_WEBHOOK_TIMEOUT_MS: '1000', TONWATCH_WORKER_LEASE_SECONDS: '4' };

async function pipeline(ctx: BenchContext, dialect: DialectName, receiver: ReceiverProcess, name: string, env: Record<string, string> = {}, extraWorkers = 0) {
  const { store, schema, close } = await openBenchStore(dialect, ctx.tmpDir, `webhooks_${name}_${dialect}`);
  const config = loadConfig({ TONWATCH_CHAIN: 'devnet', TONWATCH_WEBHOOK_MAX_ACCOUNTS: String(ACCOUNTS), ...env });
  const events = new StoreEventLog(store, { retentionMs: 3_600_000 });
  await events.open();
  const logger = pino({ level: 'silent' });
  const metrics = new Registry();
  const delivery = new DeliveryEngine({ store, ...deliveryOptionsFromConfig(config), logger, metrics });
  const serviceCtx: ServiceContext = { config, store, source: null as unknown as ChainSource, profile: MAINNET_PROFILE, events, delivery, logger, metrics, now: Date.now };
  const component = createWebhooksComponent(serviceCtx);
  await delivery.start();
  // Other worker processes' engines on the same schema (here in this process, each with its own pool).
  const workers: Array<{ engine: DeliveryEngine; close(): Promise<void> }> = [];
  for (let i = 0; i < extraWorkers; i++) {
    const own = await openStore({ databaseUrl: BENCH_PG_URL, pgSchema: schema, pgPoolSize: 4 });
    const engine = new DeliveryEngine({ store: own, ...deliveryOptionsFromConfig(config), logger, workerId: `bench-worker-${i + 2}` });
    await engine.start();
    workers.push({ engine, close: () => own.close() });
  }
  await component.startLeader!();
  const owner = 'bench';
  const endpoint = await component.webhooks.create(owner, `http://127.0.0.1:${receiver.port}/hook`);
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => account(i + 1));
  await component.webhooks.subscribeAccounts(owner, endpoint.id, accounts);
  let seqno = 1;
  let lt = 1_000_000n;
  /** A block of `txCount` transactions, on `on(i)`'s accounts (default: a window moving over all of them). */
  const append = async (txCount: number, on?: (i: number, seqno: number) => string): Promise<{ at: number; bodies: string[] }> => {
    seqno++;
    const txs = Array.from({ length: txCount }, (_, i) => transaction({ account: on ? on(i, seqno) : accounts[(seqno * 7 + i) % ACCOUNTS]!, lt: lt++, mcSeqno: seqno }));
    const batch = txBatch(seqno, txs);
    await store.db.transaction().execute((trx) => events.append(trx, batch));
    const at = now();
    events.published(batch);
    return { at, bodies: txs.map(transactionBody) };
  };
  return {
    endpoint,
    append,
    pending: async () => {
      await component.webhooks.engine.flush();
      return component.webhooks.engine.pendingCount();
    },
    accounts,
    async close() {
      await component.stopLeader!();
      for (const w of workers) await w.engine.stop();
      await delivery.stop();
      for (const w of workers) await w.close();
      await close();
    },
  };
}

/**
 * CPU time of the local PostgreSQL server's processes so far (µs), exited backends included (they
 * are the postmaster's children); null where /proc cannot tell.
 */
function postgresCpuMicros(): number | null {
  try {
    const ticksPerSecond = 100; // USER_HZ on Linux
    let ticks = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      } catch {
        continue;
      }
      if (!stat.includes('(postgres)')) continue;
      // Fields after the command: utime, stime, cutime, cstime are the 12th to 15th.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    }
    return ticks === 0 ? null : (ticks / ticksPerSecond) * 1e6;
  } catch {
    return null;
  }
}

/** Keeps at most this many deliveries waiting, so the rate measured is what is sustained, not a burst. */
const BACKLOG = 5_000;

/**
 * The delivery engine on its own: a producer writes deliveries into the durable outbox in its own
 * transactions (1,000 per transaction, over 1,000 ordering keys) while the worker delivers them.
 */
async function engineThroughput(ctx: BenchContext, dialect: DialectName, receiver: ReceiverProcess, total: number, maxSeconds: number) {
  const { store, close } = await openBenchStore(dialect, ctx.tmpDir, `webhooks_engine_${dialect}`);
  const engine = new DeliveryEngine({ store, allowLoopback: true });
  try {
    await engine.start();
    const endpoint = await engine.createEndpoint({ producer: 'bench', owner: 'bench', url: `http://127.0.0.1:${receiver.port}/hook` });
    // The event bodies' parts, made once: the producer's own work is not what is measured.
    const accounts = Array.from({ length: ACCOUNTS }, (_, i) => account(i + 1));
    const orderingKeys = accounts.map((_, i) => `account:${i}`);
    const txHash = 'cd'.repeat(32);
    const startCount = await receiver.count();
    const started = now();
    let enqueued = 0;
    let lastReport = started;
    const cpu = process.cpuUsage();
    const serverCpu = dialect === 'postgres' ? postgresCpuMicros() : null;
    // The sustained rate is taken once the first tenth is delivered: connections, the sender
    // thread's JIT and the first batches' ramp are behind by then (autocannon warms up likewise).
    let warm: { at: number; delivered: number } | null = null;
    const observe = (delivered: number) => {
      if (!warm && delivered >= total / 10) warm = { at: now(), delivered };
      return delivered;
    };
    while (enqueued < total && now() - started < maxSeconds * 1000) {
      const delivered = observe((await receiver.count()) - startCount);
      if (delivered < enqueued - BACKLOG) {
        await sleep(10);
        continue;
      }
      const intents = Array.from({ length: 1000 }, (_, i) => {
        const n = enqueued + i;
        return { endpointId: endpoint.id, orderingKey: orderingKeys[n % ACCOUNTS]!, eventType: 'account_tx', body: transactionBody({ account: accounts[n % ACCOUNTS]!, lt: BigInt(n), hash: txHash }) };
      });
      const receipt = await store.db.transaction().execute((trx) => engine.enqueue(trx, intents));
      engine.notify(receipt);
      enqueued += 1000;
      if (now() - lastReport > 2000) {
        lastReport = now();
        ctx.progress(`engine on ${dialect}: ${enqueued}/${total} enqueued, ${delivered} delivered`);
      }
    }
    const deadline = now() + 30_000;
    while (observe((await receiver.count()) - startCount) < enqueued && now() < deadline) await sleep(10);
    const delivered = (await receiver.count()) - startCount;
    const ms = now() - started;
    const from = warm ?? { at: started, delivered: 0 };
    const used = process.cpuUsage(cpu);
    const serverUsed = serverCpu === null ? null : (postgresCpuMicros() ?? serverCpu) - serverCpu;
    const rate = perSecond(delivered - from.delivered, now() - from.at);
    await engine.flush();
    return {
      perSecond: rate,
      wholeRunPerSecond: perSecond(delivered, ms),
      delivered,
      pending: await engine.pendingCount(),
      cpuMicros: (used.user + used.system) / Math.max(1, delivered),
      serverCpuMicros: serverUsed === null ? null : serverUsed / Math.max(1, delivered),
    };
  } finally {
    await engine.stop();
    await close();
  }
}

/** Deliveries/s for `total` events appended in blocks of 1,000 while the outbox stays below a bound. */
async function pipelineThroughput(ctx: BenchContext, dialect: DialectName, receiver: ReceiverProcess, total: number, maxSeconds: number) {
  const p = await pipeline(ctx, dialect, receiver, 'throughput');
  try {
    const startCount = await receiver.count();
    const started = now();
    let appended = 0;
    let lastReport = started;
    while (appended < total && now() - started < maxSeconds * 1000) {
      if ((await receiver.count()) - startCount < appended - BACKLOG) {
        await sleep(10);
        continue;
      }
      await p.append(1000);
      appended += 1000;
      if (now() - lastReport > 2000) {
        lastReport = now();
        ctx.progress(`${dialect}: ${appended}/${total} events appended, ${(await receiver.count()) - startCount} delivered`);
      }
    }
    const deadline = now() + 30_000;
    while ((await receiver.count()) - startCount < appended && now() < deadline) await sleep(10);
    const delivered = (await receiver.count()) - startCount;
    return { perSecond: perSecond(delivered, now() - started), delivered, pending: await p.pending() };
  } finally {
    await p.close();
  }
}

/** Accounts of the latency runs with a transaction in every block (the rest are visited in turn). */
const BUSY = 90;

/**
 * Blocks of `perBlock` transactions every 100 ms: from each block's append to the first attempt of
 * each of its deliveries. PostgreSQL (`workers`): each block has BUSY transactions on busy accounts
 * and the rest on the other accounts in turn, each quiet ~9 s in between (longer than the lease).
 */
async function latency(ctx: BenchContext, receiver: ReceiverProcess, seconds: number, perBlock: number, pg?: { workers: number }) {
  const p = pg ? await pipeline(ctx, 'postgres', receiver, `latency${pg.workers}`, SHORT_LEASE, pg.workers - 1) : await pipeline(ctx, 'sqlite', receiver, 'latency');
  const appendedAt = new Map<string, number>();
  /** Bodies of transactions on accounts quiet before (PostgreSQL runs). */
  const quietBodies = new Set<string>();
  const quietOnes = perBlock - BUSY;
  const mixed = (i: number, seqno: number) => p.accounts[i < BUSY ? i : BUSY + ((seqno * quietOnes + i - BUSY) % (ACCOUNTS - BUSY))]!;
  try {
    // Warm: every account's key seen once (the run then starts with the quiet ones given back).
    if (pg) for (let i = 0; i < ACCOUNTS; i += perBlock) await p.append(perBlock, (j) => p.accounts[(i + j) % ACCOUNTS]!);
    if (pg) await sleep(2000);
    await receiver.record(true);
    const end = now() + seconds * 1000;
    while (now() < end) {
      const tick = now();
      const { at, bodies } = await p.append(perBlock, pg ? mixed : undefined);
      bodies.forEach((b, i) => {
        appendedAt.set(b, at);
        if (pg && i >= BUSY) quietBodies.add(b);
      });
      await sleep(Math.max(0, 100 - (now() - tick)));
    }
    await sleep(1000);
    const arrivals = await receiver.arrivals();
    await receiver.record(false);
    const seen = new Set<string>();
    const latencies: number[] = [];
    const quiet: number[] = [];
    for (const [body, at] of arrivals) {
      if (seen.has(body) || !appendedAt.has(body)) continue;
      seen.add(body);
      latencies.push(at - appendedAt.get(body)!);
      if (quietBodies.has(body)) quiet.push(at - appendedAt.get(body)!);
    }
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), quietP99: quiet.length ? percentile(quiet, 99) : null, count: latencies.length, expected: appendedAt.size };
  } finally {
    await p.close();
  }
}

const bench: Benchmark = {
  name: 'webhooks',
  description: 'Event log → webhook router → durable outbox → worker → local receiver (deliveries/s, block → first attempt); baseline: autocannon alone posting the same bodies.',
  issue: 5,
  budgetSeconds: 180,
  async run(ctx) {
    const rows: BenchRow[] = [];
    const receiver = await ReceiverProcess.start();
    try {
      const sampleBody = transactionBody(transaction({ account: account(1), lt: 1_000_000n }));
      // The headers an attempt carries (same names and sizes), for autocannon to send too.
      const sampleEndpoint = { url: '', token: 'x'.repeat(32), secret: 'whsec_' + Buffer.alloc(32, 7).toString('base64'), previousSecret: null, previousSecretUntil: null };
      const headers = deliveryHeaders(sampleEndpoint, { messageId: 'msg_' + 'a'.repeat(32), eventType: 'account_tx', body: sampleBody }, Date.now(), 'tonwatch-webhooks/0.1');
      // autocannon runs before and after the deliveries and the two are averaged, so a change in
      // the machine's load during the run does not favour either side.
      const seconds = Math.max(2, Math.round(4 * ctx.scale));
      ctx.progress(`autocannon alone: ${CONNECTIONS} connections for ${seconds} s`);
      const before = await autocannonAlone(receiver.port, sampleBody, headers, seconds);

      const dialects: DialectName[] = ['sqlite'];
      if (await postgresReachable()) dialects.push('postgres');
      else ctx.progress('PostgreSQL not reachable: its row is skipped');
      const engineRuns: Array<{ dialect: DialectName; run: Awaited<ReturnType<typeof engineThroughput>> }> = [];
      for (const dialect of dialects) {
        const total = Math.round((dialect === 'sqlite' ? 120_000 : 40_000) * ctx.scale);
        ctx.progress(`engine on ${dialect}: ${total} deliveries over ${ACCOUNTS} ordering keys`);
        engineRuns.push({ dialect, run: await engineThroughput(ctx, dialect, receiver, total, dialect === 'sqlite' ? 20 : 12) });
      }
      const pipelineTotal = Math.round(50_000 * ctx.scale);
      ctx.progress(`event log → router → delivery on SQLite: ${pipelineTotal} events`);
      const pipe = await pipelineThroughput(ctx, 'sqlite', receiver, pipelineTotal, 12);

      ctx.progress(`autocannon alone again: ${seconds} s`);
      const after = await autocannonAlone(receiver.port, sampleBody, headers, seconds);
      const baselineRate = (before + after) / 2;
      const baseline = { name: `autocannon alone (${CONNECTIONS} connections, same bodies and headers)`, value: baselineRate };
      rows.push({ metric: 'autocannon alone: POSTs/s to the receiver', value: baselineRate, unit: 'req/s', note: `receiver in its own process answering 204; ${Math.round(before)} before and ${Math.round(after)} after the deliveries, ${seconds} s each after a 1 s warm-up` });

      for (const { dialect, run } of engineRuns) {
        const ratio = run.perSecond / baselineRate;
        const common = `${run.delivered.toLocaleString('en-US')} deliveries, one endpoint, ${ACCOUNTS} ordering keys: a producer enqueues 1,000 per transaction; each is signed, POSTed and its outcome recorded in the store; rate from the first tenth delivered to the last (whole run, ramp-up included: ${Math.round(run.wholeRunPerSecond).toLocaleString('en-US')}/s); ${Math.round(run.cpuMicros)} µs of this process's CPU per delivery (producer included); ${run.pending} left pending at the end`;
        // The target is checked on the embedded default; PostgreSQL is the same engine with the
        // database server's own work on the same two cores, reported beside it.
        rows.push(
          dialect === 'sqlite'
            ? { metric: 'deliveries/s through the durable outbox (SQLite, the default)', value: run.perSecond, unit: 'deliveries/s', baseline, ratio, target: `≥ 0.5 of baseline and ≥ ${THROUGHPUT_TARGET.toLocaleString('en-US')}/s`, met: ratio >= 0.5 && run.perSecond >= THROUGHPUT_TARGET, note: common }
            : { metric: 'deliveries/s through the durable outbox (PostgreSQL)', value: run.perSecond, unit: 'deliveries/s', baseline, ratio, note: `${common}; the PostgreSQL server used ${run.serverCpuMicros === null ? 'an unmeasured amount' : `${Math.round(run.serverCpuMicros)} µs`} of CPU per delivery on the same cores` },
        );
      }
      rows.push({
        metric: 'events/s from the event log to delivered webhooks (SQLite)',
        value: pipe.perSecond,
        unit: 'deliveries/s',
        baseline,
        ratio: pipe.perSecond / baselineRate,
        note: `${pipe.delivered.toLocaleString('en-US')} account_tx events in blocks of 1,000 over ${ACCOUNTS} subscribed accounts: the event log append (the follower's share), the router's match and outbox insert, delivery, and the subscriptions' cursors; ${pipe.pending} left pending at the end`,
      });

      const latSeconds = Math.max(3, Math.round(10 * ctx.scale));
      ctx.progress(`latency: 100 transactions per block, 10 blocks/s, ${latSeconds} s`);
      const lat = await latency(ctx, receiver, latSeconds, 100);
      rows.push({
        metric: 'block appended → first attempt received, p99 (SQLite)',
        value: lat.p99,
        unit: 'ms',
        target: `< ${LATENCY_TARGET_MS} ms`,
        met: lat.p99 < LATENCY_TARGET_MS && lat.count === lat.expected,
        note: `p50 ${lat.p50.toFixed(1)} ms; ${lat.count} of ${lat.expected} deliveries timed (1,000 deliveries/s: blocks of 100 every 100 ms)`,
      });
      if (dialects.includes('postgres')) {
        for (const workers of [1, 3]) {
          ctx.progress(`latency on PostgreSQL, ${workers} worker(s): 100 transactions per block (${BUSY} on busy accounts, ${100 - BUSY} on quiet ones), 10 blocks/s, ${latSeconds} s`);
          const run = await latency(ctx, receiver, latSeconds, 100, { workers });
          rows.push({
            metric: `block appended → first attempt received, p99 (PostgreSQL, ${workers} worker${workers > 1 ? 's' : ''}, idle keys in the mix)`,
            value: run.p99,
            unit: 'ms',
            target: '< 50 ms',
            met: run.p99 < 50 && run.count === run.expected,
            note: `p50 ${run.p50.toFixed(1)} ms, p99 of the quiet accounts' ${run.quietP99?.toFixed(1)} ms; ${run.count} of ${run.expected} deliveries timed; each block ${BUSY} transactions on busy accounts and ${100 - BUSY} on accounts quiet ~9 s before (lease 4 s, attempt timeout 1 s: their keys were given back and are claimed again); ${workers > 1 ? `${workers} delivery engines on one schema, each with its own pool (in this process), the router's beside the first` : 'one delivery engine'}`,
          });
        }
      }
    } finally {
      receiver.stop();
    }
    return rows;
  },
};

export default bench;
