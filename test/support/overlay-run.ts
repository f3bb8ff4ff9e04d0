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
            if (!reader.seen.has(hash)) reader.seen.set(hash, at);
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

const SENDERS = ['faucet', 'alice', 'bob', 'carol', 'dave', 'exchange'];

/**
 * Sends `count` transfers through the devnet (every `largeEvery`-th large: alternately a 1000-character
 * comment and a ~6 KB payload), `concurrency` at a time; returns the admitted message hashes and which were large.
 */
export async function sendMessages(net: OverlayNetwork, count: number, opts: { largeEvery?: number; concurrency?: number } = {}): Promise<{ hashes: string[]; large: Set<string>; sentAt: Map<string, number>; requestedAt: Map<string, number> }> {
  const hashes: string[] = [];
  const sentAt = new Map<string, number>();
  const requestedAt = new Map<string, number>();
  const large = new Set<string>();
  let next = 0;
  const one = async (i: number) => {
    const from = SENDERS[i % SENDERS.length]!;
    const to = SENDERS[(i + 1) % SENDERS.length]!;
    const big = opts.largeEvery !== undefined && i % opts.largeEvery === opts.largeEvery - 1;
    const body: Record<string, unknown> = { from, to, amount: '1000000' };
    if (big && (i / opts.largeEvery!) % 2 < 1) body.comment = 'x'.repeat(1000);
    else if (big) body.payload_boc = bigPayload(6000);
    else body.comment = `overlay ${i}`;
    const asked = Date.now();
    const { message_hash } = await net.devnetApi<{ message_hash: string }>('/devnet/send', body);
    hashes.push(message_hash);
    sentAt.set(message_hash, Date.now());
    requestedAt.set(message_hash, asked);
    if (big) large.add(message_hash);
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 6 }, async () => {
    while (next < count) await one(next++);
  }));
  return { hashes, large, sentAt, requestedAt };
}

/** p-th quantile of a list (nearest rank). */
export function quantile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** When each devnet masterchain block was first seen (polling `/devnet/info`): seqno → ms. */
export function watchDevnetBlocks(net: OverlayNetwork, everyMs = 50): { times: Array<{ seqno: number; at: number }>; stop(): void } {
  const times: Array<{ seqno: number; at: number }> = [];
  let stopped = false;
  void (async () => {
    while (!stopped) {
      const at = Date.now();
      const seqno = await net.devnetApi<{ head: { seqno: number } }>('/devnet/info').then((i) => i.head.seqno, () => null);
      if (seqno !== null && (times.length === 0 || times[times.length - 1]!.seqno < seqno)) times.push({ seqno, at });
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return { times, stop: () => void (stopped = true) };
}
