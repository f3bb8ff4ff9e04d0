// Connection churn (issue 35): the real service (devnet, SQLite, every component) in this process,
// and a client process opening and closing connections in a loop — HTTP with and without keep-alive,
// SSE streams, WebSockets closed cleanly and cut, requests cut mid-headers — for
// TONWATCH_BENCH_CHURN_SECONDS (default 600). Every TONWATCH_BENCH_CHURN_SAMPLE_SECONDS (default a tenth
// of the run) the server's RSS and heap are read after a forced collection (the runner starts it with
// --expose-gc); the first sample a fifth of the way in is the warm baseline. Under load RSS after GC
// swings with the connection rate while the heap stays flat (allocator retention), so what is judged is
// RSS TONWATCH_BENCH_CHURN_QUIET_SECONDS (default 30) after the clients stopped, against the warm sample,
// with the heap and the descriptors the process holds. Run it alone:
//   npm run bench -- churn                        10 minutes
//   TONWATCH_BENCH_CHURN_SECONDS=180 npm run bench -- churn
//   MALLOC_ARENA_MAX=2 npm run bench -- churn    glibc's arenas capped, to tell fragmentation from a leak
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { componentFactories } from '../src/components.js';
import { startService } from '../src/service/service.js';
import type { Benchmark, BenchContext, BenchRow } from './harness.js';
import type { ChurnCommand, ChurnReply } from './churn/clients.js';
import { childExecArgv } from './streaming/protocol.js';

const SECONDS = Number(process.env.TONWATCH_BENCH_CHURN_SECONDS ?? 600);
const CLIENTS = Number(process.env.TONWATCH_BENCH_CHURN_CLIENTS ?? 32);
/** Seconds after the clients stop before the last sample: the allocator hands freed memory back lazily. */
const QUIET_SECONDS = Number(process.env.TONWATCH_BENCH_CHURN_QUIET_SECONDS ?? 30);
/** Growth of RSS after a forced collection, from the warm sample to the quiet one after the churn, still called flat. */
const FLAT_RSS = 0.05;
const FLAT_HEAP_MB = 5;
const MB = 1024 * 1024;

interface Sample {
  at: number;
  rss: number;
  heap: number;
  /** What V8 holds from the system for its heap (used or not): RSS above it and `external` is native memory. */
  heapTotal: number;
  external: number;
  ops: number;
  fds: number;
}

function sample(at: number, ops: number): Sample {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the churn benchmark needs --expose-gc (npm run bench starts it so)');
  // Twice: the first may only promote what the second frees.
  gc();
  gc();
  const m = process.memoryUsage();
  return { at, rss: m.rss, heap: m.heapUsed, heapTotal: m.heapTotal, external: m.external + m.arrayBuffers, ops, fds: readdirSync('/proc/self/fd').length };
}

/** Least-squares slope of RSS over the samples, in MB per minute. */
function rssSlope(samples: Sample[]): number {
  const n = samples.length;
  const mx = samples.reduce((a, s) => a + s.at, 0) / n;
  const my = samples.reduce((a, s) => a + s.rss, 0) / n;
  const sxx = samples.reduce((a, s) => a + (s.at - mx) ** 2, 0);
  const sxy = samples.reduce((a, s) => a + (s.at - mx) * (s.rss - my), 0);
  return sxx === 0 ? 0 : ((sxy / sxx) * 60) / MB;
}

const total = (r: ChurnReply) => Object.values(r.done).reduce((s, n) => s + n, 0);

const churn: Benchmark = {
  name: 'churn',
  description: 'connections opened and closed in a loop (HTTP with and without keep-alive, SSE, WebSocket, cut requests) against the service: RSS and heap after forced GC, warm vs end',
  issue: 35,
  budgetSeconds: SECONDS + QUIET_SECONDS + 120,
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const seconds = Math.max(20, Math.round(SECONDS * ctx.scale));
    const sampleMs = 1000 * Number(process.env.TONWATCH_BENCH_CHURN_SAMPLE_SECONDS ?? Math.max(5, seconds / 10));
    const admin = `tw_bench_admin_${randomBytes(12).toString('hex')}`;
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      TONWATCH_DATA_DIR: ctx.tmpDir,
      TONWATCH_ADMIN_KEY: admin,
      TONWATCH_DEVNET_MANUAL_BLOCKS: 'true',
      LOG_LEVEL: 'silent',
    });
    const service = await startService(config, { logger: pino({ level: 'silent' }), components: componentFactories });
    const client = fork(fileURLToPath(new URL('./churn/clients.ts', import.meta.url)), [service.url, admin, String(CLIENTS)], {
      execArgv: childExecArgv(),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ask = (cmd: ChurnCommand, answer: ChurnReply['type']) =>
      new Promise<ChurnReply>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the churn clients did not answer ${cmd.type}`)), 60_000);
        const on = (r: ChurnReply) => {
          if (r.type !== answer) return;
          clearTimeout(timer);
          client.off('message', on);
          resolve(r);
        };
        client.on('message', on);
        client.send(cmd);
      });
    const started = Date.now();
    const samples: Sample[] = [sample(0, 0)];
    ctx.progress(`service up: RSS ${(samples[0]!.rss / MB).toFixed(0)} MB after GC; churning for ${seconds} s with ${CLIENTS} client loops, a sample every ${sampleMs / 1000} s`);
    try {
      while (Date.now() - started < seconds * 1000) {
        await new Promise((r) => setTimeout(r, Math.min(sampleMs, seconds * 1000 - (Date.now() - started))));
        const report = await ask({ type: 'report' }, 'report');
        const s = sample((Date.now() - started) / 1000, total(report));
        samples.push(s);
        ctx.progress(
          `${s.at.toFixed(0)} s: ${s.ops.toLocaleString('en-US')} connections (${report.errors} errors${report.firstError ? `, first: ${report.firstError}` : ''}); ` +
            `RSS ${(s.rss / MB).toFixed(1)} MB, heap ${(s.heap / MB).toFixed(1)} of ${(s.heapTotal / MB).toFixed(1)} MB, external ${(s.external / MB).toFixed(1)} MB, ${s.fds} descriptors`,
        );
      }
      const last = await ask({ type: 'stop' }, 'stopped');
      const stoppedAt = Date.now();
      const quietSamples: Sample[] = [];
      for (const after of [3, 10, QUIET_SECONDS].filter((a, i, all) => a <= QUIET_SECONDS && all.indexOf(a) === i)) {
        await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + after * 1000 - Date.now())));
        const q = sample((Date.now() - started) / 1000, total(last));
        quietSamples.push(q);
        ctx.progress(`${after} s after the clients stopped: RSS ${(q.rss / MB).toFixed(1)} MB, heap ${(q.heap / MB).toFixed(1)} of ${(q.heapTotal / MB).toFixed(1)} MB, ${q.fds} descriptors`);
      }
      const quiet = quietSamples[quietSamples.length - 1]!;
      ctx.progress(`by kind ${JSON.stringify(last.done)}`);
      // The first sample a fifth of the way in is the warm baseline: pools, JIT and caches have filled by then.
      const warm = samples.find((s) => s.at >= seconds / 5) ?? samples[1]!;
      const end = samples[samples.length - 1]!;
      const rssGrowth = (quiet.rss - warm.rss) / warm.rss;
      const heapGrowth = (end.heap - warm.heap) / MB;
      const elapsed = end.at || 1;
      const trail = samples.slice(1).map((s) => `${s.at.toFixed(0)} s ${(s.rss / MB).toFixed(0)}/${(s.heapTotal / MB).toFixed(0)}/${(s.heap / MB).toFixed(0)}`).join(', ');
      const arenas = process.env.MALLOC_ARENA_MAX ? `MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX}` : 'glibc default arenas';
      return [
        { metric: 'connections opened and closed', value: end.ops, unit: 'count', note: `${seconds} s, ${CLIENTS} client loops; ${last.errors} errors; ${arenas}` },
        { metric: 'connections/s', value: end.ops / elapsed, unit: '/s' },
        { metric: 'RSS after GC at start (service up, idle)', value: samples[0]!.rss / MB, unit: 'MB' },
        { metric: `RSS after GC, warm (at ${warm.at.toFixed(0)} s)`, value: warm.rss / MB, unit: 'MB' },
        {
          metric: `RSS after GC, end of churn (at ${end.at.toFixed(0)} s)`,
          value: end.rss / MB,
          unit: 'MB',
          baseline: { name: 'warm', value: warm.rss / MB },
          ratio: end.rss / warm.rss,
          note: `RSS / V8 heap held / heap used, MB after GC, by time: ${trail}; external memory stayed at ${(end.external / MB).toFixed(0)} MB`,
        },
        { metric: 'RSS after GC, highest sample', value: Math.max(...samples.map((s) => s.rss)) / MB, unit: 'MB' },
        { metric: 'RSS trend from the warm sample on (least squares)', value: rssSlope(samples.filter((s) => s.at >= warm.at)), unit: 'MB/min' },
        { metric: `heap used after GC, end of churn`, value: end.heap / MB, unit: 'MB', baseline: { name: 'warm', value: warm.heap / MB }, target: `≤ warm + ${FLAT_HEAP_MB} MB`, met: heapGrowth <= FLAT_HEAP_MB },
        {
          metric: `RSS after GC, ${QUIET_SECONDS} s after the clients stopped`,
          value: quiet.rss / MB,
          unit: 'MB',
          baseline: { name: 'warm', value: warm.rss / MB },
          ratio: quiet.rss / warm.rss,
          target: `≤ ${1 + FLAT_RSS} × warm (flat)`,
          met: rssGrowth <= FLAT_RSS,
          note: `after the stop: ${quietSamples.map((q) => `${(q.rss / MB).toFixed(0)} MB`).join(', ')} (at ${[3, 10, QUIET_SECONDS].filter((a, i, all) => a <= QUIET_SECONDS && all.indexOf(a) === i).join(', ')} s)`,
        },
        { metric: `descriptors open, ${QUIET_SECONDS} s after the clients stopped`, value: quiet.fds, unit: 'count', baseline: { name: 'service up', value: samples[0]!.fds }, target: '= at start', met: quiet.fds <= samples[0]!.fds },
      ];
    } finally {
      if (client.exitCode === null) client.kill();
      await service.stop();
    }
  },
};

export default churn;
