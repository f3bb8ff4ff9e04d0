// Micro-harness of the Streaming v2 fan-out, for work on its cost (not part of `npm run bench`): the
// benchmark's replay blocks (real follower output, 10,000 tx/s at 4 blocks/s) published to a V2Hub whose
// connections write their SSE or WebSocket text into a counter instead of a socket, so that what is
// timed is the hub's own work; TONWATCH_V2_PROFILE=file.cpuprofile writes where that time goes.
//
//   node scripts/node.mjs --min-semi-space-size=32 --max-semi-space-size=32 --import tsx bench/streaming/v2-fanout.ts [clients=10000] [rounds=3] [accounts=clients]
//
// Every block is distinct (rounds × 12, the first 12 warm the JIT). `accounts` below `clients` gives
// several clients the same address (clients i and i+accounts share one).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { pino } from 'pino';
import type { EventBatch } from '../../src/bus/events.js';
import type { EventLog } from '../../src/bus/types.js';
import { V2Connection } from '../../src/streaming/v2/connection.js';
import { V2Hub } from '../../src/streaming/v2/hub.js';
import { parseSubscription } from '../../src/streaming/v2/request.js';
import { sseEvent, wsEvent } from '../../src/streaming/v2/wire.js';
import { percentile } from '../lib/stats.js';
import { replayBlocks } from './replay-blocks.js';

const clients = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 3);
const accounts = Number(process.argv[4] ?? clients);
const owners = Array.from({ length: accounts }, (_, i) => `0:b0${i.toString(16).padStart(62, '0')}`);


let bytes = 0;
let frames = 0;
class SinkSse extends V2Connection {
  readonly transport: 'sse-v2' | 'ws-v2' = 'sse-v2';
  send(id: string, payload: string): void {
    bytes += sseEvent(id, payload, true).length;
    frames++;
  }
  bufferedBytes = () => 0;
  cork(): void {}
  uncork(): void {}
  keepalive(): void {}
  closeSlow(): void {}
  terminate(): void {}
}
class SinkWs extends SinkSse {
  override readonly transport = 'ws-v2' as const;
  override send(id: string, payload: string): void {
    bytes += wsEvent(id, payload, true, true).length;
    frames++;
  }
}

const PER_ROUND = 12;
// every block distinct: the hub's caches (per group, per message hash) see what a live chain gives them
const blocks = await replayBlocks(owners, PER_ROUND * rounds);
let listener: (b: EventBatch) => void = () => {};
let head: number | null = null;
const log = {
  subscribe: (l: (b: EventBatch) => void) => ((listener = l), () => {}),
  headPosition: () => head,
  oldestPosition: async () => null,
  readAfter: async () => [],
} as unknown as EventLog;
const hub = new V2Hub({ log, finality: null, logger: pino({ level: 'silent' }), bufferBytes: 1 << 24, writeTimeoutMs: 60_000 });
hub.start();
for (let i = 0; i < clients; i++) {
  const c = i % 2 === 0 ? new SinkSse() : new SinkWs();
  hub.open(c, parseSubscription({ types: ['transactions'], addresses: [owners[i % accounts]!] }), null);
}
console.error(`${clients} clients on ${accounts} addresses, ${blocks.length} blocks of ~${blocks[0]!.events.length} events`);

const ms: number[] = [];
/** The process's CPU time per block (user + system): less sensitive than wall time to a loaded machine. */
const cpuMs: number[] = [];
// TONWATCH_V2_PROFILE=file: a V8 sampling profile of the measured rounds only (not the replay's making)
const profileTo = process.env.TONWATCH_V2_PROFILE;
const session = new Session();
for (let r = 0; r < rounds; r++) {
  if (r === 1 && profileTo) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  for (const block of blocks.slice(r * PER_ROUND, (r + 1) * PER_ROUND)) {
    frames = 0;
    const started = performance.now();
    const cpu = process.cpuUsage();
    listener(block);
    ms.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    cpuMs.push((used.user + used.system) / 1000);
    head = block.lastPosition;
  }
  await new Promise((ok) => setTimeout(ok, 10));
}
if (profileTo) writeFileSync(profileTo, JSON.stringify((await session.post('Profiler.stop')).profile));
const measured = ms.slice(PER_ROUND); // the first round warms the JIT
const cpuMeasured = cpuMs.slice(PER_ROUND);
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
console.log(
  `v2 fan-out, ${clients} clients on ${accounts} addresses: per block wall p50 ${percentile(measured, 50).toFixed(1)} ms, p99 ${percentile(measured, 99).toFixed(1)} ms; ` +
    `CPU p50 ${percentile(cpuMeasured, 50).toFixed(1)} ms, mean ${mean(cpuMeasured).toFixed(1)} ms; ${frames} frames in the last block, ${(bytes / 1e6).toFixed(1)} MB in all`,
);
hub.stop();
process.exit(0);
