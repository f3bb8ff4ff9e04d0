// What the liteserver source tells operators: the `chain` check of `/readyz` (servers, trust, why no
// newer head is believed) and its `/metrics` gauges. Both read the source's status() when asked.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { HealthReport } from '../http/health.js';
import type { BlockIdExt } from '../chain/liteserver/tl/lite-api.js';
import type { PoolStatus, ServerCounters } from '../chain/liteserver/transport/pool.js';
import type { TrustStatus } from '../chain/liteserver/trust/head-trust.js';

/** The part of `LiteserverChain.status()` the service reads. */
export interface LiteserverStatusView {
  network?: string;
  trust: TrustStatus;
  pool: PoolStatus;
  /** Masterchain blocks between the newest head a server reports and the trusted head. */
  lagBlocks: number | null;
  /** Seconds between now and the trusted head's generation time. */
  lagSeconds: number | null;
  /** Why the source cannot serve now, or null. */
  waiting?: string | null;
}

const blockRef = (id: BlockIdExt | null | undefined) =>
  id ? { seqno: id.seqno, root_hash: Buffer.from(id.rootHash).toString('hex'), file_hash: Buffer.from(id.fileHash).toString('hex') } : null;

/** Ready when a head is trusted, no alarm is raised and at least one server answers. */
export function liteserverHealth(status: LiteserverStatusView): HealthReport {
  const { trust, pool } = status;
  const problems: string[] = [];
  if (trust.alarm) {
    const [a, b] = trust.alarm.blocks;
    problems.push(
      `trust alarm: servers ${trust.alarm.servers[0]} and ${trust.alarm.servers[1]} proved different blocks at seqno ${trust.alarm.seqno} ` +
        `(${Buffer.from(a.rootHash).toString('hex')} vs ${Buffer.from(b.rootHash).toString('hex')}); nothing from this network is believed`,
    );
  }
  if (!pool.ready) problems.push(pool.reason ?? 'no liteserver is connected');
  // A newer head waiting for a second opinion is a fact, not a failure, while one is believed.
  if (!trust.head) problems.push(trust.waiting ?? status.waiting ?? 'no masterchain head is trusted yet');
  return {
    ok: problems.length === 0,
    ...(problems.length ? { problem: problems.join('; ') } : {}),
    network: status.network,
    trust: {
      level: trust.level,
      head: blockRef(trust.head),
      key_block: blockRef(trust.keyBlock),
      waiting: trust.waiting,
      progress: trust.progress,
      alarm: trust.alarm ? { seqno: trust.alarm.seqno, servers: trust.alarm.servers, blocks: trust.alarm.blocks.map(blockRef), at: trust.alarm.at } : null,
    },
    waiting: status.waiting ?? null,
    lag_blocks: status.lagBlocks,
    lag_seconds: status.lagSeconds,
    servers: pool.servers.map((s) => ({
      server: s.server,
      state: s.state,
      head_seqno: s.head?.seqno ?? null,
      latency_ms: s.latencyMs === undefined ? null : Math.round(s.latencyMs),
      demoted: s.demoted,
      queries: s.queries,
      failures: s.failures,
      timeouts: s.timeouts,
      disproven: s.disproven,
      withheld: s.withheld,
      reconnects: s.reconnects,
      ...(s.lastError ? { last_error: s.lastError } : {}),
    })),
  };
}

const COUNTERS: Array<[keyof ServerCounters, string]> = [
  ['queries', 'Queries sent to each liteserver'],
  ['failures', 'Failed queries (errors, timeouts, disproven replies) per liteserver'],
  ['timeouts', 'Queries that timed out per liteserver'],
  ['disproven', 'Replies whose proof check failed per liteserver (the server is demoted)'],
  ['withheld', 'Blocks a liteserver refused while its head and history show it has them (the server is demoted)'],
  ['reconnects', 'Reconnections per liteserver'],
];

/** Gauges and counters read from `status()` at each scrape. */
export function registerLiteserverMetrics(registry: Registry, status: () => LiteserverStatusView): void {
  const registers = [registry];
  // One status per scrape, shared by every collect() of that scrape.
  let cached: { at: number; value: LiteserverStatusView } | null = null;
  const read = () => {
    const now = Date.now();
    if (!cached || now - cached.at > 100) cached = { at: now, value: status() };
    return cached.value;
  };
  new Gauge({
    name: 'tonwatch_liteserver_head_seqno',
    help: 'Masterchain head each liteserver reports',
    labelNames: ['server'],
    registers,
    collect() {
      this.reset();
      for (const s of read().pool.servers) if (s.head) this.set({ server: s.server }, s.head.seqno);
    },
  });
  new Gauge({
    name: 'tonwatch_liteserver_up',
    help: '1 when the liteserver is connected and not demoted',
    labelNames: ['server'],
    registers,
    collect() {
      this.reset();
      for (const s of read().pool.servers) this.set({ server: s.server }, s.state === 'up' && !s.demoted ? 1 : 0);
    },
  });
  new Gauge({
    name: 'tonwatch_liteserver_latency_seconds',
    help: 'Smoothed round trip of each liteserver',
    labelNames: ['server'],
    registers,
    collect() {
      this.reset();
      for (const s of read().pool.servers) if (s.latencyMs !== undefined) this.set({ server: s.server }, s.latencyMs / 1000);
    },
  });
  for (const [field, help] of COUNTERS) {
    // The pool counts; a scrape adds what was counted since the last one.
    const seen = new Map<string, number>();
    new Counter({
      name: `tonwatch_liteserver_${field}_total`,
      help,
      labelNames: ['server'],
      registers,
      collect() {
        for (const s of read().pool.servers) {
          const delta = s[field] - (seen.get(s.server) ?? 0);
          if (delta > 0) this.inc({ server: s.server }, delta);
          else if (!seen.has(s.server)) this.inc({ server: s.server }, 0);
          seen.set(s.server, s[field]);
        }
      },
    });
  }
  new Gauge({
    name: 'tonwatch_chain_trusted_head_seqno',
    help: 'Newest masterchain block the trust level believes',
    registers,
    collect() {
      const head = read().trust.head;
      if (head) this.set(head.seqno);
    },
  });
  new Gauge({
    name: 'tonwatch_chain_trust_alarm',
    help: '1 once two liteservers proved different blocks at one seqno (nothing is believed any more)',
    registers,
    collect() {
      this.set(read().trust.alarm ? 1 : 0);
    },
  });
  new Gauge({
    name: 'tonwatch_chain_lag_blocks',
    help: 'Masterchain blocks between the newest head a liteserver reports and the trusted head',
    registers,
    collect() {
      const lag = read().lagBlocks;
      if (lag !== null) this.set(lag);
    },
  });
  new Gauge({
    name: 'tonwatch_chain_lag_seconds',
    help: "Seconds since the trusted head's generation time",
    registers,
    collect() {
      const lag = read().lagSeconds;
      if (lag !== null) this.set(lag);
    },
  });
}
