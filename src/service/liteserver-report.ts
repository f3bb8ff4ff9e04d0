// What the liteserver source tells operators: the `chain` check of `/readyz` (servers, trust, why no
// newer head is believed; under `secure` the trusted key block, a walk's progress, and per server its proven
// head, failed proofs and lag behind the best proven head) and its `/metrics`. Both read the source's
// status() when asked.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { HealthReport } from '../http/health.js';
import type { BlockIdExt } from '../chain/liteserver/tl/lite-api.js';
import type { NonFinalStatus } from '../chain/liteserver/nonfinal.js';
import type { PoolStatus, ServerCounters } from '../chain/liteserver/transport/pool.js';
import { describeAlarm, type ServerTrustReport, type TrustStatus } from '../chain/liteserver/trust/head-trust.js';

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
  /** Non-final shard blocks: whether the servers serve them (else finalized only, and why). */
  nonFinal?: NonFinalStatus;
}

const blockRef = (id: BlockIdExt | null | undefined) =>
  id ? { seqno: id.seqno, root_hash: Buffer.from(id.rootHash).toString('hex'), file_hash: Buffer.from(id.fileHash).toString('hex') } : null;

/** Ready when a head is trusted, no alarm is raised and at least one server answers. */
export function liteserverHealth(status: LiteserverStatusView): HealthReport {
  const { trust, pool } = status;
  const problems: string[] = [];
  if (trust.alarm) problems.push(`trust alarm: ${describeAlarm(trust.alarm)}`);
  if (!pool.ready) problems.push(pool.reason ?? 'no liteserver is connected');
  // A newer head waiting for a second opinion is a fact, not a failure, while one is believed.
  const noHead = trust.waiting ?? status.waiting ?? 'no masterchain head is trusted yet';
  // the source's reason is often the pool's own (every server down): say it once
  if (!trust.head && !problems.includes(noHead)) problems.push(noHead);
  const proofs = new Map((trust.servers ?? []).map((r) => [r.server, r]));
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
      ...(trust.maxLagBlocks === undefined ? {} : { max_lag_blocks: trust.maxLagBlocks }),
      alarm: trust.alarm
        ? {
          kind: trust.alarm.kind, seqno: trust.alarm.seqno, servers: trust.alarm.servers, blocks: trust.alarm.blocks.map(blockRef),
          ...(trust.alarm.ancestor ? { ancestor: blockRef(trust.alarm.ancestor) } : {}), at: trust.alarm.at, description: describeAlarm(trust.alarm),
        }
        : null,
    },
    waiting: status.waiting ?? null,
    lag_blocks: status.lagBlocks,
    lag_seconds: status.lagSeconds,
    ...(status.nonFinal ? { non_final: status.nonFinal } : {}),
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
      lagging: s.lagging,
      withheld: s.withheld,
      reconnects: s.reconnects,
      ...trustFacts(proofs.get(s.server), trust),
      ...(s.lastError ? { last_error: s.lastError } : {}),
    })),
  };
}

/** What the trust level (secure) knows of one server: the head it proved, its failed proofs, its lag. */
function trustFacts(report: ServerTrustReport | undefined, trust: TrustStatus): Record<string, unknown> {
  if (trust.servers === undefined) return {};
  return {
    proven_seqno: report?.provenSeqno ?? null,
    failed_proofs: report?.failedProofs ?? 0,
    lagging_by: report?.laggingBy ?? null,
    ...(report?.lastFailure ? { last_failed_proof: report.lastFailure } : {}),
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

/** A counter over totals the source keeps (the pool, the trust level, the overlay): a scrape adds what was counted since the last one. */
export function countedTotals(registry: Registry, name: string, help: string, labelNames: string[], read: () => Array<[Record<string, string>, number]>): void {
  const seen = new Map<string, number>();
  new Counter({
    name, help, labelNames, registers: [registry],
    collect() {
      for (const [labels, total] of read()) {
        const key = JSON.stringify(labels);
        const delta = total - (seen.get(key) ?? 0);
        if (delta > 0 || !seen.has(key)) this.inc(labels, Math.max(0, delta));
        seen.set(key, total);
      }
    },
  });
}

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
  const totals = (name: string, help: string, labelNames: string[], read: () => Array<[Record<string, string>, number]>) => countedTotals(registry, name, help, labelNames, read);
  for (const [field, help] of COUNTERS) {
    totals(`tonwatch_liteserver_${field}_total`, help, ['server'], () => read().pool.servers.map((s) => [{ server: s.server }, s[field]]));
  }
  // Demotions by cause: a disproven reply (a proof failed), a lagging head or a withheld block (withholding), apart so none hides another.
  totals(
    'tonwatch_liteserver_demotions_total',
    'Demotions per liteserver, by reason: disproven (a reply failed its proof check), lagging (its head lagged the best proven head by more than the limit) or withheld (it refused a block its head and history say it has)',
    ['server', 'reason'],
    () => read().pool.servers.flatMap((s) => (['disproven', 'lagging', 'withheld'] as const).map((reason): [Record<string, string>, number] => [{ server: s.server, reason }, s[reason]])),
  );
  totals(
    'tonwatch_chain_trust_failed_proofs_total',
    'Signature-chain proofs (getBlockProof replies) that failed their check, per liteserver (secure trust)',
    ['server'],
    () => (read().trust.servers ?? []).map((r) => [{ server: r.server }, r.failedProofs]),
  );
  new Gauge({
    name: 'tonwatch_liteserver_behind_proven_blocks',
    help: "Masterchain blocks each liteserver's head is behind the best proven head (secure trust reports and demotes it beyond TONWATCH_LITESERVER_MAX_LAG_BLOCKS)",
    labelNames: ['server'],
    registers,
    collect() {
      this.reset();
      const { trust, pool } = read();
      if (!trust.head) return;
      for (const s of pool.servers) if (s.state === 'up' && s.head) this.set({ server: s.server }, Math.max(0, trust.head.seqno - s.head.seqno));
    },
  });
  const scalars: Array<[string, string, (s: LiteserverStatusView) => number | null]> = [
    ['tonwatch_chain_trusted_head_seqno', 'Newest masterchain block the trust level believes', (s) => s.trust.head?.seqno ?? null],
    ['tonwatch_chain_trusted_key_block_seqno', 'Newest key block the secure trust level has proven (its validators sign the next blocks)', (s) => s.trust.keyBlock?.seqno ?? null],
    ['tonwatch_chain_trust_walk_remaining_blocks', 'Masterchain blocks a key-block walk under way still has to prove (0 when none is under way)',
      (s) => (s.trust.progress ? Math.max(0, s.trust.progress.to - s.trust.progress.at) : 0)],
    ['tonwatch_chain_trust_alarm', '1 once the trust level proved two chains (two blocks at one seqno, or a head that does not descend from the believed one): nothing is believed any more',
      (s) => (s.trust.alarm ? 1 : 0)],
    ['tonwatch_chain_lag_blocks', 'Masterchain blocks between the newest head a liteserver reports and the trusted head', (s) => s.lagBlocks],
    ['tonwatch_chain_lag_seconds', "Seconds since the trusted head's generation time", (s) => s.lagSeconds],
  ];
  for (const [name, help, value] of scalars) {
    new Gauge({
      name, help, registers,
      collect() {
        const v = value(read());
        if (v !== null) this.set(v);
      },
    });
  }
}
