// In-process A/B of the streaming fan-out, for work on the hub's latency (not part of `npm run bench`):
// the same replay blocks (real follower output, 10,000 tx/s shape) to the same 10,000 SSE and WebSocket
// clients (two client processes), alternately through the hub (A: StreamHub's live fan-out) and as bare
// socket.write calls of the bytes the hub would write, to the same sockets in the same order (B). A and B
// alternate phase by phase in one process, so machine load hits both alike; the figures that matter are
// A − B within a run.
//
//   node scripts/node.mjs --import tsx bench/streaming/ab.ts [phases=8] [blocksPerPhase=6] [cold]
//
// `cold` walks 64 MB before every block, as the follower's work does to the CPU caches before a fan-out.
// Per block it prints: wall time of the synchronous fan-out, its CPU time (user, system), young-generation
// bytes allocated, the offset of the first, mean and last socket.write from the block's start, and the
// clients' publish → receive latencies.
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { POSITION_STRIDE, type ChainEvent, type EventBatch } from '../../src/bus/events.js';
import { PLAIN, PreparedEvent } from '../../src/streaming/frames.js';
import type { StreamHub } from '../../src/streaming/hub.js';
import { percentile } from '../lib/stats.js';
import { replayBlocks } from './replay-blocks.js';
import { ClientPool } from './pool.js';
import { sharedNow } from './protocol.js';
import { startBenchServer } from './server.js';

const CLIENTS = 10_000;
const args = process.argv.slice(2).filter((a) => a !== 'cold');
const phases = Number(args[0] ?? 8);
const perPhase = Number(args[1] ?? 6);
const cold = process.argv.includes('cold');
const tmp = mkdtempSync(join(tmpdir(), 'streaming-ab-'));
const owners = Array.from({ length: CLIENTS }, (_, i) => `0:b0${i.toString(16).padStart(62, '0')}`);


/** The block again under a new masterchain seqno (fresh ids: the clients map ids to publish times). */
function renumber(b: EventBatch, seqno: number): EventBatch {
  const base = seqno * POSITION_STRIDE;
  const events = b.events.map((e) => ({ ...e, mcSeqno: seqno, position: base + (e.position % POSITION_STRIDE) }) as ChainEvent);
  return { kind: 'block', mcSeqno: seqno, firstPosition: events[0]!.position, lastPosition: events.at(-1)!.position, events };
}

const server = await startBenchServer(tmp);
const hub = server.streaming.hub;
const pool = new ClientPool(2);
server.onPublished(() => {});
const subs = owners.map((o) => [o]);
await pool.connect('sse', server.url, subs.slice(0, CLIENTS / 2));
await pool.connect('ws', server.url, subs.slice(CLIENTS / 2));
const blocks = await replayBlocks(owners, 32);
console.error(`${hub.connections.size} connections, ${blocks.length} blocks of ${blocks[0]!.events.length} events`);

// The hub's sockets by account (each client subscribes one account), for B.
const byAccount = new Map<string, { socket: net.Socket; ws: boolean }>();
for (const c of hub.connections) {
  const inside = c as unknown as { socket: net.Socket; routes: { transactions: Map<string, unknown> } };
  for (const account of inside.routes.transactions.keys()) byAccount.set(account, { socket: inside.socket, ws: c.transport === 'ws' });
}

/** B's writes: per socket, the bytes the hub writes for this block (its frames, concatenated), in the hub's order. */
function bareWrites(b: EventBatch): Array<[net.Socket, Buffer]> {
  const frames = new Map<net.Socket, Buffer[]>();
  for (const e of b.events) {
    if (e.type !== 'transaction') continue;
    const c = byAccount.get(e.tx.account);
    if (!c) continue;
    const prepared = new PreparedEvent(e);
    let list = frames.get(c.socket);
    if (!list) frames.set(c.socket, (list = []));
    list.push(c.ws ? prepared.wsWire(PLAIN, true) : prepared.sseChunk(PLAIN));
  }
  return [...frames].map(([socket, list]) => [socket, list.length === 1 ? list[0]! : Buffer.concat(list)]);
}

// Every socket.write's offset from the block's start, while a block is timed.
let writes: number[] | null = null;
let blockStart = 0;
const write = net.Socket.prototype.write;
net.Socket.prototype.write = function (this: net.Socket, ...rest: unknown[]) {
  const ok = (write as (...a: unknown[]) => boolean).apply(this, rest);
  if (writes) writes.push(performance.now() - blockStart);
  return ok;
} as typeof write;

const youngUsed = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_used_size;
const caches = new Float64Array(8 * 1024 * 1024).fill(1);
let sink = 0;

type Side = 'A' | 'B';
const figures = () => ({ wall: [] as number[], user: [] as number[], system: [] as number[], allocMB: [] as number[], first: [] as number[], mean: [] as number[], last: [] as number[], received: [] as number[] });
const results: Record<Side, ReturnType<typeof figures>> = { A: figures(), B: figures() };
const publishLive = (hub as unknown as { publishLive(b: EventBatch): void }).publishLive.bind(hub as StreamHub);

let seqno = 100;
for (let p = 0; p < phases; p++) {
  for (const side of (p % 2 === 0 ? ['A', 'B'] : ['B', 'A']) as Side[]) {
    const r = results[side];
    pool.reset();
    await new Promise((ok) => setTimeout(ok, 100));
    for (let k = 0; k < perPhase; k++) {
      const block = renumber(blocks[(p * perPhase + k) % blocks.length]!, ++seqno);
      const bare = side === 'B' ? bareWrites(block) : null;
      if (cold) for (let i = 0; i < caches.length; i += 8) sink += caches[i]!;
      const young = youngUsed();
      const cpu = process.cpuUsage();
      const at = sharedNow();
      blockStart = performance.now();
      writes = [];
      if (side === 'A') publishLive(block);
      else for (const [socket, bytes] of bare!) socket.write(bytes);
      r.wall.push(performance.now() - blockStart);
      const used = process.cpuUsage(cpu);
      const youngAfter = youngUsed();
      r.user.push(used.user / 1000);
      r.system.push(used.system / 1000);
      if (youngAfter > young) r.allocMB.push((youngAfter - young) / 1e6); // else a scavenge ran inside
      if (writes.length > 0) {
        r.first.push(writes[0]!);
        r.mean.push(writes.reduce((s, x) => s + x, 0) / writes.length);
        r.last.push(writes.at(-1)!);
      }
      writes = null;
      pool.published([[seqno, at]]);
      await new Promise((ok) => setTimeout(ok, 250));
    }
    await new Promise((ok) => setTimeout(ok, 200));
    r.received.push(...(await pool.report()).latencies);
  }
}

const line = (xs: number[]) => `p50 ${percentile(xs, 50).toFixed(1)} p99 ${percentile(xs, 99).toFixed(1)} mean ${(xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length)).toFixed(1)}`;
for (const side of ['A', 'B'] as const) {
  const r = results[side];
  console.log(`${side === 'A' ? 'A hub        ' : 'B bare writes'} wall ${line(r.wall)} | user ${line(r.user)} | system ${line(r.system)} | young MB ${line(r.allocMB)}`);
  console.log(`              write offsets: first ${line(r.first)} | mean ${line(r.mean)} | last ${line(r.last)} | received ${line(r.received)} (${r.received.length})`);
}
if (sink < 0) console.log(sink);
await pool.close();
await server.close();
process.exit(0);
