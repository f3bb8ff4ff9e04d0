// Where the server's time goes during the replay of bench/streaming.ts: the V8 sampling profiler of the
// server's own process (node:inspector), each sample put in one part by the frames on its stack. The
// parts are the ones the hub's latency is made of: writes to the sockets (the bare writer pays them
// too), matching and frame building, and what shares the process with them (follower, replay source,
// garbage collection).
import { Session } from 'node:inspector/promises';
import type { Profiler } from 'node:inspector';

/** Parts in order of precedence: a sample belongs to the first whose test matches a frame of its stack. */
const PARTS: Array<[string, (fn: string, url: string) => boolean]> = [
  ['garbage collection', (fn) => fn === '(garbage collector)'],
  ['idle', (fn) => fn === '(idle)'],
  ['fan-out: socket writes', (fn, url) => fn === 'writeBuffer' || fn === 'writev' || (url.startsWith('node:') && /^(Socket\._write|writeGeneric|handleWriteReq)/.test(fn))],
  ['fan-out: matching and frames', (fn, url) => fn === 'publishLive' && url.endsWith('/hub.ts')],
  ['fan-out (v2): matching and notifications', (fn, url) => fn === 'publishBatch' && url.endsWith('/v2/hub.ts')],
  ['follower: event log encoding', (fn, url) => fn === 'encodeEvents' || (fn === 'serialize' && url === 'node:v8')],
  ['follower: store (SQLite)', (_fn, url) => /better-sqlite3|kysely|\/store\//.test(url)],
  ['follower: traces', (_fn, url) => url.endsWith('/pipeline/traces.ts')],
  ['replay source', (_fn, url) => url.includes('/chain/replay/')],
  ['follower: other', (_fn, url) => url.endsWith('/pipeline/follower.ts')],
];

export class ServerProfile {
  private readonly session = new Session();

  async start(): Promise<void> {
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: 500 });
    await this.session.post('Profiler.start');
  }

  /** Share of samples per part, largest first. */
  async stop(): Promise<Array<[string, number]>> {
    const { profile } = await this.session.post('Profiler.stop');
    await this.session.post('Profiler.disable');
    this.session.disconnect();
    return breakdown(profile);
  }
}

export function breakdown(profile: Profiler.Profile): Array<[string, number]> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const partOf = new Map<number, string>();
  const classify = (leaf: number): string => {
    const cached = partOf.get(leaf);
    if (cached) return cached;
    const frames: Array<Profiler.ProfileNode['callFrame']> = [];
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) frames.push(byId.get(id)!.callFrame);
    const part = PARTS.find(([, test]) => frames.some((f) => test(f.functionName, f.url)))?.[0] ?? 'other';
    partOf.set(leaf, part);
    return part;
  };
  const counts = new Map<string, number>();
  const samples = profile.samples ?? [];
  for (const id of samples) {
    const part = classify(id);
    counts.set(part, (counts.get(part) ?? 0) + 1);
  }
  return [...counts].map(([part, n]) => [part, n / Math.max(1, samples.length)] as [string, number]).sort((a, b) => b[1] - a[1]);
}
