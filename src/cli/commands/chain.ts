// `tonwatch chain info`: which network tonwatch follows and how — the liteservers with their heads and
// latency, the trust level and what it believes, the follower's lag. By default it asks a running server
// (its /readyz `chain` and `follower` checks); with --direct it connects to the liteservers itself with the
// same settings `tonwatch serve` reads (TONWATCH_LITESERVER_CONFIG or TONWATCH_NETWORK, TONWATCH_TRUST), so a
// configuration can be checked before serving.
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../../config.js';
import { UsageError, lastOption, parseCommandLine, serverUrl } from '../client.js';
import { PROGRAM } from '../program.js';

export const summary = 'show the followed network: liteservers with heads and latency, trust level, lag';

const HELP = `usage: ${PROGRAM} chain info [options]

Shows the network tonwatch follows: the chain source, each liteserver with its head, latency, failures
and disproven replies, the trust level and the head it believes (secure: the trusted key block, a walk
under way, and per server its failed proofs and lag), and how far the follower lags.

options:
  --url <url>        ask this running server (default: $TONWATCH_URL, else http://127.0.0.1:$PORT, PORT as
                     tonwatch serve reads it, default 8080)
  --direct           connect to the liteservers without a server, with the settings tonwatch serve reads
                     (TONWATCH_LITESERVER_CONFIG or TONWATCH_NETWORK, TONWATCH_TRUST); it keeps no store, so
                     secure trust walks from the config's init block every time
  --timeout <secs>   with --direct: how long to wait for a believed head (default 15)
  --json             print the report as JSON
  -h, --help         this help

Exit code 0 when the chain source is ready, 3 when it answers but is not ready, 1 on errors.`;

const FLAGS = new Set(['json', 'help', 'direct']);

/** The /readyz facts this command shows (the `chain` check of src/service/liteserver-report.ts). */
interface ChainReport {
  ok: boolean;
  problem?: string;
  network?: string;
  chain_id?: string;
  trust?: {
    level: string;
    head: { seqno: number; root_hash: string } | null;
    key_block?: { seqno: number; root_hash: string } | null;
    progress?: { from: number; at: number; to: number } | null;
    max_lag_blocks?: number;
    waiting: string | null;
    alarm: { seqno: number; servers: string[]; description?: string } | null;
  };
  lag_blocks?: number | null;
  lag_seconds?: number | null;
  non_final?: { state: string; reason: string | null; shown: number; disproven: number };
  servers?: Array<{
    server: string; state: string; head_seqno: number | null; latency_ms: number | null; demoted: boolean;
    queries: number; failures: number; timeouts: number; disproven: number; withheld?: number; lagging?: number; last_error?: string;
    // secure trust only
    proven_seqno?: number | null; failed_proofs?: number; lagging_by?: number | null;
  }>;
  /** The overlay listener (service/overlay-report.ts). */
  overlay?: {
    enabled: boolean; note?: string; address?: string; peers?: number; fec_decodes?: number;
    broadcasts?: { received: number; fecParts: number; valid: number; duplicate: number; dropped: number };
    pending?: { published: number; dropped: number };
    lead_ms?: { p50: number; p99: number } | null;
  };
}

interface FollowerReport {
  ok: boolean;
  lastSeqno: number | null;
  headSeqno: number | null;
  lagBlocks: number | null;
  lagSeconds: number | null;
  error: string | null;
}

export async function run(argv: string[]): Promise<number> {
  let line;
  try {
    line = parseCommandLine(argv, FLAGS);
    if (line.flags.has('help') || line.positionals[0] === 'help') {
      console.log(HELP);
      return 0;
    }
    if (line.positionals[0] !== 'info') throw new UsageError(line.positionals[0] ? `unknown command '${line.positionals[0]}'` : 'missing command (info)');
    if (line.positionals.length > 1) throw new UsageError(`unexpected argument '${line.positionals[1]}'`);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`tonwatch chain: ${err.message}\n\n${HELP}`);
    return 1;
  }
  const json = line.flags.has('json');
  let report: { chain: ChainReport; follower?: FollowerReport; source: string } | undefined;
  if (line.flags.has('direct')) {
    const timeout = Number(lastOption(line, 'timeout') ?? 15);
    if (!Number.isFinite(timeout) || timeout <= 0) {
      console.error(`tonwatch chain: --timeout must be a positive number of seconds, got "${lastOption(line, 'timeout')}"`);
      return 1;
    }
    report = await direct(timeout * 1000);
  } else {
    report = await fromServer(serverUrl(line));
  }
  if (!report) return 1;
  console.log(json ? JSON.stringify(report, null, 2) : inWords(report));
  return report.chain.ok && (report.follower?.ok ?? true) ? 0 : 3;
}

async function fromServer(url: string): Promise<{ chain: ChainReport; follower?: FollowerReport; source: string } | undefined> {
  let res: Response;
  try {
    res = await fetch(`${url}/readyz`);
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    console.error(`tonwatch chain: cannot reach tonwatch at ${url}: ${cause}`);
    return undefined;
  }
  // 503 is an answer too: not ready, with the reasons.
  const body = (await res.json().catch(() => null)) as { checks?: { chain?: ChainReport; follower?: FollowerReport } } | null;
  if (!body?.checks?.chain) {
    console.error(`tonwatch chain: ${url}/readyz answered ${res.status} without a chain check (is it tonwatch?)`);
    return undefined;
  }
  return { chain: body.checks.chain, follower: body.checks.follower, source: url };
}

async function direct(timeoutMs: number): Promise<{ chain: ChainReport; source: string } | undefined> {
  let config;
  try {
    config = { ...loadConfig(process.env), chain: 'liteserver' as const };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`tonwatch chain: invalid configuration\n${err.message}`);
    return undefined;
  }
  const { checkChainSettings } = await import('../../service/chain.js');
  const { createLiteserverChoice } = await import('../../service/liteserver.js');
  const { GlobalConfigUnreachableError } = await import('../../chain/liteserver/config.js');
  let choice;
  try {
    checkChainSettings(config);
    choice = await createLiteserverChoice(config, pino({ level: 'silent' }));
  } catch (err) {
    if (err instanceof GlobalConfigUnreachableError) {
      console.error(`tonwatch chain: ${err.message}`);
      return undefined;
    }
    if (!(err instanceof ConfigError)) throw err;
    console.error(`tonwatch chain: invalid configuration\n${err.message}`);
    return undefined;
  }
  const { source } = choice;
  try {
    await source.start();
    // The head is believed once enough servers agree; waiting longer than that says why not.
    await Promise.race([source.getMasterchainHead().catch(() => {}), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    // Whether the servers show non-final blocks: a few polls answer it (served, or refused: finalized only).
    const stopListening = source.onNonFinalBlock?.(() => {});
    if (stopListening) {
      for (let i = 0; i < 20 && source.nonFinalSupported?.() === null; i++) await new Promise((r) => setTimeout(r, 100));
      stopListening();
    }
    const chain = { network: source.network, chain_id: source.identity().id, ...choice.health!() } as ChainReport;
    return { chain, source: config.liteserverConfig ?? `the official ${config.network} config` };
  } finally {
    await source.stop();
  }
}

const short = (hex: string) => `${hex.slice(0, 8)}…`;

function overlayInWords(o: NonNullable<ChainReport['overlay']>): string[] {
  if (!o.enabled) return [`overlay    ${o.note ?? 'off'}`];
  const b = o.broadcasts;
  const lines = [`overlay    ${o.address}: ${o.peers ?? 0} peers${o.note ? `; ${o.note}` : ''}`];
  if (b) lines.push(`  broadcasts received ${b.received + b.fecParts}, valid ${b.valid}, duplicate ${b.duplicate}, dropped ${b.dropped}; FEC decodes ${o.fec_decodes ?? 0}`);
  if (o.pending) lines.push(`  pending    ${o.pending.published} messages heard before their block${o.pending.dropped ? `, ${o.pending.dropped} dropped (queue full)` : ''}`);
  if (o.lead_ms) lines.push(`  lead time  p50 ${o.lead_ms.p50} ms, p99 ${o.lead_ms.p99} ms (heard → block walked)`);
  return lines;
}

/** The report in words, one fact a line. */
function inWords(report: { chain: ChainReport; follower?: FollowerReport; source: string }): string {
  const { chain, follower } = report;
  const lines = [`source     ${report.source}`, `network    ${chain.network ?? 'unknown'}${chain.chain_id ? ` (zero state ${short(chain.chain_id)})` : ''}`];
  if (chain.trust) {
    const { trust } = chain;
    const head = trust.head ? `head ${trust.head.seqno} (root ${short(trust.head.root_hash)})` : 'no head believed yet';
    lines.push(`trust      ${trust.level}: ${head}${trust.waiting ? `; ${trust.waiting}` : ''}`);
    if (trust.key_block) lines.push(`key block  ${trust.key_block.seqno} (root ${short(trust.key_block.root_hash)}): its validators sign the blocks after it`);
    if (trust.progress) lines.push(`walk       at ${trust.progress.at} of ${trust.progress.to} (from ${trust.progress.from}): proving key block by key block`);
    if (trust.alarm) lines.push(`ALARM      ${trust.alarm.description ?? `servers ${trust.alarm.servers.join(' and ')} proved different blocks at seqno ${trust.alarm.seqno}`}`);
    if (chain.lag_blocks !== undefined && chain.lag_blocks !== null) lines.push(`lag        ${chain.lag_blocks} blocks behind the newest server head; head is ${chain.lag_seconds ?? '?'} s old`);
  }
  if (chain.non_final) {
    const nf = chain.non_final;
    const said = nf.state === 'supported' ? `served: confirmed traces from ${nf.shown} checked non-final blocks` : nf.state === 'unsupported' ? (nf.reason ?? 'refused: finalized only') : 'not known yet (no server answered)';
    lines.push(`non-final  ${said}${nf.disproven ? `; ${nf.disproven} did not match their id` : ''}`);
  }
  if (follower) {
    const lag = follower.lagBlocks === null ? '' : `, lag ${follower.lagBlocks} blocks / ${follower.lagSeconds ?? '?'} s`;
    // the follower's error is often the chain's own problem, which the last line gives: say it once
    const error = !follower.error ? '' : chain.problem && follower.error.includes(chain.problem) ? '; waits for the chain source (see ready)' : `; error: ${follower.error}`;
    lines.push(`follower   at ${follower.lastSeqno ?? '-'} of ${follower.headSeqno ?? '-'}${lag}${error}`);
  }
  if (chain.servers) {
    lines.push(`servers    ${chain.servers.length}`);
    const width = Math.max(...chain.servers.map((s) => s.server.length));
    for (const s of chain.servers) {
      // Under secure trust: signature-chain proofs that failed, and demotions for a head lagging the best proven one.
      const secure = s.failed_proofs === undefined ? '' : `, failed proofs ${s.failed_proofs}, lagging ${s.lagging ?? 0}`;
      const facts = [
        s.state.padEnd(10),
        `head ${s.head_seqno ?? '-'}`.padEnd(14),
        `${s.latency_ms ?? '-'} ms`.padEnd(9),
        `queries ${s.queries}, failures ${s.failures}, timeouts ${s.timeouts}, disproven ${s.disproven}, withheld ${s.withheld ?? 0}${secure}`,
      ];
      if (s.lagging_by) facts.push(`LAGGING ${s.lagging_by} blocks behind the best proven head`);
      if (s.demoted) facts.push('DEMOTED');
      if (s.last_error) facts.push(`(${s.last_error.replace(`liteserver ${s.server}: `, '')})`);
      lines.push(`  ${s.server.padEnd(width)}  ${facts.join(' ')}`);
    }
  } else {
    lines.push('servers    none (the source is not a liteserver pool)');
  }
  if (chain.overlay) lines.push(...overlayInWords(chain.overlay));
  const ready = chain.ok && (follower?.ok ?? true);
  lines.push(`ready      ${ready ? 'yes' : `no${chain.problem ? `: ${chain.problem}` : follower?.error ? `: ${follower.error}` : ''}`}`);
  return lines.join('\n');
}
