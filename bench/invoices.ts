// Invoicing (#6) on the embedded store: invoice creation over HTTP, with load generators in their
// own processes (autocannon for the most it takes, an open-loop client for a sustained 1,000/s),
// against a baseline of
// GET /healthz on the same server in the same run; and the time from the devnet block carrying a
// payment to the first webhook attempt at a local receiver.
import { invoicesMigrations } from '../src/invoices/migrations.js';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { internal } from '@ton/core';
import { pino } from 'pino';
import { accountToAddress } from '../src/chain/address.js';
import type { DevnetChain } from '../src/chain/devnet/chain.js';
import { parseTransferLink } from '../src/chain/devnet/links.js';
import { sendFromWallet } from '../src/chain/devnet/sender.js';
import { loadConfig } from '../src/config.js';
import type { InvoiceJson } from '../src/invoices/model.js';
import { startService, type RunningService } from '../src/service/service.js';
import { Receiver, until } from '../test/support/webhooks.js';
import type { Benchmark, BenchContext, BenchRow } from './harness.js';
import { percentile } from './lib/stats.js';

const CREATE_RATE_TARGET = 1000;
const CREATE_P99_TARGET_MS = 10;
const LATENCY_TARGET_MS = 100;
const CONNECTIONS = 10;
const B = '/api/v1/services/invoices';

const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
}

/** autocannon in a child process (the load generator must not share the server's event loop). */
function load(url: string, o: { method?: string; body?: string; headers?: Record<string, string>; seconds: number }): Promise<LoadResult> {
  const args = [AUTOCANNON, '-j', '-n', '-c', String(CONNECTIONS), '-d', String(o.seconds), '-m', o.method ?? 'GET'];
  if (o.body) args.push('-b', o.body);
  for (const [k, v] of Object.entries(o.headers ?? {})) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        const r = JSON.parse(out.trim().split('\n').pop()!);
        resolve({ rps: r.requests.total / (r.duration || o.seconds), p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total, non2xx: r.non2xx, errors: r.errors });
      } catch {
        reject(new Error(`autocannon exited ${code} without a JSON result: ${out.slice(0, 500)}`));
      }
    });
  });
}

/**
 * An open-loop client in its own process: requests go out on a fixed schedule (`rate` per second,
 * spread evenly) over keep-alive connections, whatever the answers do, and each latency counts
 * from the moment the request was due — so a stall shows in the percentiles (no coordinated
 * omission). autocannon's -R sends each second's share in a burst, which measures queueing instead.
 */
const OPEN_LOOP = `
const http = require('node:http');
const [url, body, headersJson, rate, seconds] = process.argv.slice(1);
const headers = { ...JSON.parse(headersJson), 'content-length': Buffer.byteLength(body) };
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const total = Math.round(Number(rate) * Number(seconds));
const interval = 1000 / Number(rate);
const latencies = []; let failed = 0; let sent = 0; let done = 0;
const start = performance.now();
function fire(dueAt) {
  const req = http.request(url, { method: 'POST', headers, agent }, (res) => {
    res.resume();
    res.on('end', () => { if (res.statusCode >= 300) failed++; latencies.push(performance.now() - dueAt); finish(); });
  });
  req.on('error', () => { failed++; finish(); });
  req.end(body);
}
function finish() {
  if (++done < total) return;
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.max(0, Math.ceil(p / 100 * latencies.length) - 1))];
  process.stdout.write(JSON.stringify({ total, failed, rps: total / elapsed, p50: q(50), p99: q(99), max: latencies[latencies.length - 1] }));
  process.exit(0);
}
(function tick() {
  const now = performance.now();
  while (sent < total && start + sent * interval <= now) fire(start + sent++ * interval);
  if (sent < total) setTimeout(tick, 1);
})();`;

function openLoop(url: string, body: string, headers: Record<string, string>, rate: number, seconds: number): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', OPEN_LOOP, url, body, JSON.stringify(headers), String(rate), String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      try {
        const r = JSON.parse(out);
        resolve({ rps: r.rps, p50: Math.round(r.p50 * 10) / 10, p99: Math.round(r.p99 * 10) / 10, total: r.total, non2xx: r.failed, errors: 0 });
      } catch {
        reject(new Error(`open-loop client exited ${code}: ${out.slice(0, 500)}`));
      }
    });
  });
}

async function api<T>(svc: RunningService, admin: string, path: string, init: { method?: string; json?: unknown; token?: string } = {}): Promise<T> {
  const res = await fetch(svc.url + path, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${init.token ?? admin}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
    body: init.json ? JSON.stringify(init.json) : undefined,
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function creation(ctx: BenchContext, svc: RunningService, admin: string, merchant: string): Promise<BenchRow[]> {
  const { token } = await api<{ token: string }>(svc, admin, `${B}/app`, { method: 'POST', json: { name: 'Bench shop', recipient_address: merchant } });
  const body = JSON.stringify({ amount: '1500000000', life_time: 3600, currency: 'TON', description: 'bench order' });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const url = `${svc.url}${B}/invoice`;
  const seconds = (n: number) => Math.max(2, Math.round(n * ctx.scale));
  ctx.progress('warm-up: 2 s of invoice creation');
  await load(url, { method: 'POST', body, headers, seconds: 2 });
  ctx.progress(`baseline: GET /healthz, ${CONNECTIONS} connections, ${seconds(5)} s`);
  const healthz = await load(`${svc.url}/healthz`, { seconds: seconds(5) });
  ctx.progress(`most invoices/s: ${CONNECTIONS} connections, ${seconds(6)} s`);
  const max = await load(url, { method: 'POST', body, headers, seconds: seconds(6) });
  ctx.progress(`sustained ${CREATE_RATE_TARGET}/s for ${seconds(10)} s`);
  const sustained = await openLoop(url, body, headers, CREATE_RATE_TARGET, seconds(10));
  const baseline = { name: `GET /healthz on the same server (${CONNECTIONS} connections)`, value: healthz.rps };
  const failures = (r: LoadResult) => r.non2xx + r.errors;
  return [
    { metric: 'GET /healthz, requests/s', value: healthz.rps, unit: 'req/s', note: `p99 ${healthz.p99} ms` },
    {
      metric: 'invoice creation at most, invoices/s (SQLite)',
      value: max.rps,
      unit: 'invoices/s',
      baseline,
      ratio: max.rps / healthz.rps,
      target: `≥ ${CREATE_RATE_TARGET}/s`,
      met: max.rps >= CREATE_RATE_TARGET && failures(max) === 0,
      note: `p50 ${max.p50} ms, p99 ${max.p99} ms, ${max.total} created, ${failures(max)} failed; autocannon in its own process`,
    },
    {
      metric: `invoice creation sustained at ${CREATE_RATE_TARGET}/s, p99 (SQLite)`,
      value: sustained.p99,
      unit: 'ms',
      target: `< ${CREATE_P99_TARGET_MS} ms at ≥ ${CREATE_RATE_TARGET}/s`,
      met: sustained.p99 < CREATE_P99_TARGET_MS && sustained.rps >= CREATE_RATE_TARGET * 0.97 && failures(sustained) === 0,
      note: `${Math.round(sustained.rps)} invoices/s achieved, p50 ${sustained.p50} ms, ${sustained.total} created, ${failures(sustained)} failed; open-loop client in its own process, latency counted from each request's due time`,
    },
  ];
}

async function paymentLatency(ctx: BenchContext, svc: RunningService, admin: string, merchant: string): Promise<BenchRow[]> {
  const receiver = await new Receiver().listen(0);
  try {
    const { token } = await api<{ token: string }>(svc, admin, `${B}/app`, { method: 'POST', json: { name: 'Bench hooks', recipient_address: merchant, webhooks: [receiver.url] } });
    const rounds = Math.max(2, Math.round(8 * ctx.scale));
    const perBlock = 50;
    // one more round first, not timed: the first block through the matcher runs cold (JIT)
    const warmUp = 1;
    const invoices: InvoiceJson[] = [];
    for (let i = 0; i < (warmUp + rounds) * perBlock; i++) {
      invoices.push(await api<InvoiceJson>(svc, admin, `${B}/invoice`, { method: 'POST', token, json: { amount: String(10_000_000 + i), life_time: 3600, currency: 'TON' } }));
    }
    const chain = svc.source as DevnetChain;
    const bob = chain.directory!.wallets.find((w) => w.name === 'bob')!;
    const blockAt = new Map<string, number>();
    ctx.progress(`${rounds} blocks of ${perBlock} invoice payments`);
    for (let r = 0; r < warmUp + rounds; r++) {
      const mine = invoices.slice(r * perBlock, (r + 1) * perBlock);
      await sendFromWallet(
        chain,
        bob,
        mine.map((inv) => {
          const link = parseTransferLink(inv.payment_link);
          return internal({ to: accountToAddress(link.destination), value: link.amount, bounce: false, body: link.payload! });
        }),
      );
      await chain.produceBlock(); // bob's transaction; the payments reach the merchant in the next block
      await svc.follower!.waitForSeqno(chain.masterchainSeqno);
      await new Promise((res) => setTimeout(res, 50));
      await chain.produceBlock();
      const at = Date.now();
      if (r >= warmUp) for (const inv of mine) blockAt.set(inv.id, at);
      await until(() => receiver.requests.length >= (r + 1) * perBlock, 10_000, `webhooks of block ${r + 1}`);
    }
    const first = new Map<string, number>();
    for (const req of receiver.requests) {
      const id = (JSON.parse(req.body) as InvoiceJson).id;
      if (!first.has(id)) first.set(id, req.at);
    }
    const latencies = [...blockAt].map(([id, at]) => first.get(id)! - at);
    const p99 = percentile(latencies, 99);
    return [
      {
        metric: 'block carrying a payment → first webhook attempt, p99 (SQLite)',
        value: p99,
        unit: 'ms',
        target: `< ${LATENCY_TARGET_MS} ms`,
        met: p99 < LATENCY_TARGET_MS && latencies.length === rounds * perBlock,
        note: `p50 ${percentile(latencies, 50)} ms, max ${Math.max(...latencies)} ms over ${latencies.length} payments in ${rounds} devnet blocks (after ${warmUp} untimed): follower, matcher, outbox, delivery to a local receiver in the same process`,
      },
    ];
  } finally {
    await receiver.close();
  }
}

const bench: Benchmark = {
  name: 'invoices',
  description: 'Invoice creation over HTTP (autocannon in its own process) on the embedded store, baseline GET /healthz on the same server; block carrying a payment → first webhook attempt.',
  issue: 6,
  budgetSeconds: 75,
  async run(ctx) {
    const admin = `tw_bench_admin_${randomBytes(12).toString('hex')}`;
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      TONWATCH_DATA_DIR: ctx.tmpDir,
      TONWATCH_ADMIN_KEY: admin,
      TONWATCH_DEVNET_MANUAL_BLOCKS: 'true',
      LOG_LEVEL: 'silent',
    });
    ctx.progress('starting tonwatch (devnet genesis, SQLite)');
    const svc = await startService(config, {
      logger: pino({ level: 'silent' }),
      components: [
        { name: 'devnet', load: async () => (await import('../src/service/devnet.js')).devnetComponent },
        { name: 'invoices', migrations: invoicesMigrations, load: async () => (await import('../src/invoices/index.js')).invoicesComponent },
      ],
    });
    try {
      const merchant = (svc.source as DevnetChain).directory!.wallets.find((w) => w.name === 'merchant')!.id;
      return [...(await creation(ctx, svc, admin, merchant)), ...(await paymentLatency(ctx, svc, admin, merchant))];
    } finally {
      await svc.stop();
    }
  },
};

export default bench;
