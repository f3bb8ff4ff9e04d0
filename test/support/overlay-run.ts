// The overlay acceptance run, shared by test/e2e/overlay.test.ts (a few dozen messages) and the bench
// (`npm run bench -- overlay`, 1,000): `tonwatch devnet serve` (timed blocks, its liteserver, its DHT node and
// overlay member on loopback UDP) and `tonwatch serve` on the liteserver source with the overlay on, two child
// processes talking real ADNL over UDP. Messages are sent through the devnet's control API (small transfers,
// 1000-character comments and ~6 KB payloads that travel by FEC); the service's /v2/sse/mempool stream is read
// with the arrival time of every pending message.
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beginCell, Cell } from '@ton/core';
import { spawnService, spawnStandaloneDevnet, type SpawnedDevnet, type SpawnedService } from './service.js';
import { until } from './webhooks.js';
import { openSse } from './v2-client.js';

/** A UDP port nobody has bound now on loopback. */
export async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Pending messages as the mempool stream delivers them: message hash → arrival time (ms). */
export class MempoolReader {
  readonly seen = new Map<string, number>();
  /** message hash → its BoC (base64) as the stream carried it. */
  readonly bocs = new Map<string, string>();
  private req?: http.ClientRequest;

  static open(url: string): Promise<MempoolReader> {
    const reader = new MempoolReader();
    return new Promise((resolve, reject) => {
      reader.req = http.get(`${url}/v2/sse/mempool`, { agent: false }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`mempool stream: ${res.statusCode}`));
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const at = Date.now();
          buf += chunk;
          let end: number;
          while ((end = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, end);
            buf = buf.slice(end + 2);
            const data = /^data: (.*)$/m.exec(frame)?.[1];
            if (!data) continue;
            const { boc } = JSON.parse(data) as { boc: string };
            const hash = Cell.fromBase64(boc).hash().toString('hex');
            if (!reader.seen.has(hash)) {
              reader.seen.set(hash, at);
              reader.bocs.set(hash, boc);
            }
          }
        });
        resolve(reader);
      });
      reader.req.on('error', reject);
    });
  }

  close(): void {
    this.req?.destroy();
  }
}

export interface OverlayNetwork {
  dir: string;
  devnet: SpawnedDevnet;
  service: SpawnedService;
  globalConfig: string;
  overlayPort: number;
  readyz(): Promise<{ status: number; checks: Record<string, any> }>;
  devnetApi<T = any>(pathname: string, json?: unknown): Promise<T>;
  close(): Promise<void>;
}

/** The two processes, the service joined to the devnet's overlay (at least one peer). */
export async function startOverlayNetwork(opts: { blockIntervalMs?: number; serviceEnv?: Record<string, string> } = {}): Promise<OverlayNetwork> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tonwatch-overlay-'));
  const devnet = await spawnStandaloneDevnet({
    dataDir: path.join(dir, 'devnet'),
    env: { TONWATCH_DEVNET_LITESERVER_PORT: '0', TONWATCH_BLOCK_INTERVAL_MS: String(opts.blockIntervalMs ?? 1000), LOG_LEVEL: 'warn' },
  });
  const devnetApi = async <T = any>(pathname: string, json?: unknown): Promise<T> => {
    const res = await fetch(`${devnet.url}${pathname}`, json === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) });
    if (!res.ok) throw new Error(`${pathname}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const globalConfig = (await devnetApi<{ global_config: string }>('/devnet/liteserver')).global_config;
  const configFile = path.join(dir, 'devnet.global.config.json');
  writeFileSync(configFile, globalConfig);
  const overlayPort = await freeUdpPort();
  const service = await spawnService({
    dataDir: path.join(dir, 'service'),
    env: {
      TONWATCH_CHAIN: 'liteserver', TONWATCH_TRUST: 'secure', TONWATCH_LITESERVER_CONFIG: configFile, TONWATCH_NETWORK: 'testnet',
      TONWATCH_OVERLAY_ADDRESS: `127.0.0.1:${overlayPort}`, TONWATCH_OVERLAY_LISTEN: `127.0.0.1:${overlayPort}`,
      ...opts.serviceEnv,
    },
  });
  const readyz = async () => {
    const res = await fetch(`${service.url}/readyz`);
    return { status: res.status, ...((await res.json()) as { checks: Record<string, any> }) };
  };
  const close = async () => {
    for (const p of [service, devnet]) {
      p.child.kill('SIGTERM');
      await p.exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until(async () => ((await readyz()).checks.chain?.overlay?.peers ?? 0) > 0, 60_000, 'the service joined the devnet overlay');
  } catch (err) {
    const checks = await readyz().then((r) => JSON.stringify(r.checks.chain?.overlay)).catch(() => '?');
    await close();
    throw new Error(`${(err as Error).message}: overlay ${checks}\n${service.output().slice(-3000)}\n${devnet.output().slice(-2000)}`);
  }
  return { dir, devnet, service, globalConfig, overlayPort, readyz, devnetApi, close };
}

/** A one-cell-root payload of about `bytes` random bytes in a chain of cells (travels by FEC). */
export function bigPayload(bytes: number): string {
  let cell = beginCell().endCell();
  for (let left = bytes; left > 0; left -= 120) cell = beginCell().storeBuffer(randomBytes(Math.min(120, left))).storeRef(cell).endCell();
  return cell.toBoc().toString('base64');
}

/** The wallets sendMessages sends from (and to), several a block each. */
export const SENDERS = ['faucet', 'alice', 'bob', 'carol', 'dave'];
/** The exchange's payout wallet (highload wallet v2): one batch message a send; each batch pays PAYEE among others. */
export const PAYOUT_WALLET = 'highload';
export const PAYEE = 'merchant';

/** Transfers in one payout batch (one highload external message): about 3 KB, so it travels by FEC (above 768 bytes). */
export const BATCH_TRANSFERS = 40;

/**
 * Sends `count` transfers through the devnet (every `largeEvery`-th large: in turn a 1000-character comment,
 * a ~6 KB payload, and the exchange's payout batch of BATCH_TRANSFERS transfers in one message), `concurrency`
 * at a time; returns the admitted message hashes and which were large.
 */
export async function sendMessages(net: OverlayNetwork, count: number, opts: { largeEvery?: number; concurrency?: number } = {}): Promise<{ hashes: string[]; large: Set<string>; batches: Set<string>; sentAt: Map<string, number> }> {
  const hashes: string[] = [];
  const sentAt = new Map<string, number>();
  const large = new Set<string>();
  const batches = new Set<string>();
  let next = 0;
  const one = async (i: number) => {
    const big = opts.largeEvery !== undefined && i % opts.largeEvery === opts.largeEvery - 1;
    const kind = big ? Math.floor(i / opts.largeEvery!) % 3 : -1;
    const from = kind === 2 ? PAYOUT_WALLET : SENDERS[i % SENDERS.length]!;
    const to = SENDERS[(i + 1) % SENDERS.length]!;
    const body: Record<string, unknown> = { from, to, amount: '1000000' };
    if (kind === 0) body.comment = 'x'.repeat(1000);
    else if (kind === 1) body.payload_boc = bigPayload(6000);
    else if (kind === 2) {
      body.comment = `payout ${i}`;
      body.batch = Array.from({ length: BATCH_TRANSFERS - 1 }, (_, k) => ({ to: k === 0 ? PAYEE : SENDERS[k % SENDERS.length]!, amount: '1000000', comment: `payout ${i}.${k + 1}` }));
    } else body.comment = `overlay ${i}`;
    const { message_hash } = await net.devnetApi<{ message_hash: string }>('/devnet/send', body);
    hashes.push(message_hash);
    sentAt.set(message_hash, Date.now());
    if (big) large.add(message_hash);
    if (kind === 2) batches.add(message_hash);
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 6 }, async () => {
    while (next < count) await one(next++);
  }));
  return { hashes, large, batches, sentAt };
}

/** p-th quantile of a list (nearest rank). */
export function quantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/**
 * The service's Streaming v2 events for some accounts (every finality): per trace (normalised external hash,
 * hex), when each level first arrived on this one connection — so their order is the order the service sent them.
 */
export class TraceLevels {
  readonly arrived = new Map<string, { pending?: number; confirmed?: number; finalized?: number }>();
  /** Traces whose pending event carried emulated transactions. */
  readonly emulated = new Set<string>();
  /** Frames that were not events (errors, notices) and whether the server ended the stream. */
  readonly other: string[] = [];
  ended = false;
  private abort = () => {};

  static async open(url: string, addresses: string[]): Promise<TraceLevels> {
    const levels = new TraceLevels();
    const session = await openSse(`${url}/api/streaming/v2/sse`, { types: ['transactions'], addresses, min_finality: 'pending' }, {
      onEvent: (e) => {
        const at = Date.now();
        const norm = e.data.trace_external_hash_norm;
        const finality = e.data.finality as 'pending' | 'confirmed' | 'finalized' | undefined;
        if (e.event !== 'event' || typeof norm !== 'string' || !finality) {
          if (e.event !== 'connected') levels.other.push(`${e.event} ${JSON.stringify(e.data).slice(0, 200)}`);
          return;
        }
        const hex = Buffer.from(norm, 'base64').toString('hex');
        if (finality === 'pending' && Array.isArray(e.data.transactions) && e.data.transactions.length > 0) levels.emulated.add(hex);
        const entry = levels.arrived.get(hex) ?? {};
        entry[finality] ??= at;
        levels.arrived.set(hex, entry);
      },
    });
    if (session.status !== 200) throw new Error(`v2 stream: ${session.status} ${JSON.stringify(session.error)}`);
    levels.abort = () => session.abort();
    void session.done.then(() => (levels.ended = true));
    return levels;
  }

  close(): void {
    this.abort();
  }
}

/** The devnet's own record of a message (GET /devnet/messages/:hash): admitted, its shard block produced, committed (ms). */
export interface DevnetTimeline {
  admitted_at_ms: number;
  block: { workchain: number; shard: string; seqno: number } | null;
  produced_at_ms: number | null;
  committed_at_ms: number | null;
}

export async function devnetTimelines(net: OverlayNetwork, hashes: string[], concurrency = 8): Promise<Map<string, DevnetTimeline>> {
  const out = new Map<string, DevnetTimeline>();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < hashes.length) {
      const h = hashes[next++]!;
      out.set(h, await net.devnetApi<DevnetTimeline>(`/devnet/messages/${h}`));
    }
  }));
  return out;
}
