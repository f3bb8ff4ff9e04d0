// The port during a start (#30): once it has accepted a connection, the port answers every one until the
// service stops — the starting server and the API are one server, so a client, a load balancer or a script
// that waited for /healthz is never refused while the API takes over. `tonwatch serve` runs as a child
// process (its own event loop, as in production) on the devnet and on a liteserver source, while this
// process polls /healthz every few milliseconds through the whole start.
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignedChain } from '../../src/chain/liteserver/testing/signed-chain.js';
import { startLiteserverNetwork, type LiteserverNetwork } from '../support/liteserver-network.js';
import { freePort } from '../support/ports.js';
import { spawnService, type SpawnedService } from '../support/service.js';

interface Probe {
  at: number;
  /** The HTTP status, or the connection error's code (ECONNREFUSED…). */
  outcome: number | string;
  starting?: boolean;
}

function probe(port: number): Promise<Omit<Probe, 'at'>> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/healthz', agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ outcome: res.statusCode ?? 0, starting: res.statusCode === 200 ? JSON.parse(body).starting === true : undefined }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ outcome: err.code ?? err.message }));
  });
}

/** Polls /healthz every `everyMs` until `stop()`; the probes in order. */
function pollHealth(port: number, everyMs = 3): { stop(): Promise<Probe[]> } {
  const probes: Probe[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      probes.push({ at: Date.now(), ...(await probe(port)) });
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return probes;
    },
  };
}

/** Starts `tonwatch serve` on a known port while polling it; the probes from before the spawn to 500 ms after "tonwatch listening". */
async function startWhilePolling(dataDir: string, env: Record<string, string>): Promise<{ service: SpawnedService; probes: Probe[] }> {
  const port = await freePort();
  const poll = pollHealth(port);
  try {
    const service = await spawnService({ dataDir, env: { PORT: String(port), ...env }, timeoutMs: 90_000 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { service, probes: await poll.stop() };
  } catch (err) {
    await poll.stop();
    throw err;
  }
}

/** The probes from the first connection the port accepted on (an answer, or one reset by the server). */
function fromFirstAccepted(probes: Probe[]): Probe[] {
  const first = probes.findIndex((p) => p.outcome !== 'ECONNREFUSED');
  expect(first, `no connection accepted in ${probes.length} probes`).toBeGreaterThanOrEqual(0);
  return probes.slice(first);
}

/** Where the outcome changed, for the failure message: "ms outcome starting". */
const transitions = (probes: Probe[]) =>
  probes.flatMap((p, i) => (i > 0 && probes[i - 1]!.outcome === p.outcome && probes[i - 1]!.starting === p.starting ? [] : [`${p.at - probes[0]!.at} ms ${p.outcome}${p.starting ? ' starting' : ''}`]));

const stopService = async (service: SpawnedService) => {
  service.child.kill('SIGTERM');
  return service.exited;
};

describe('the port during a start on the devnet', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tonwatch-start-port-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('never refuses or drops a connection once the port has accepted one', async () => {
    const { service, probes } = await startWhilePolling(path.join(dir, 'data'), { TONWATCH_DEVNET_MANUAL_BLOCKS: 'true' });
    try {
      const after = fromFirstAccepted(probes);
      expect(after.filter((p) => typeof p.outcome !== 'number'), transitions(probes).join(', ')).toEqual([]);
      // the probes reached the API itself too, not only the starting server
      expect(after.at(-1)).toMatchObject({ outcome: 200, starting: false });
    } finally {
      expect(await stopService(service)).toBe(0);
    }
  }, 120_000);
});

describe('the port during a start on a liteserver source', () => {
  let dir = '';
  let network: LiteserverNetwork;
  const signed = new SignedChain({ label: 'start-port', chain: { startUtime: Math.floor(Date.now() / 1000) - 300 } });
  for (let k = 0; k < 6; k++) {
    signed.blocks(1);
    signed.keyBlock();
  }
  signed.blocks(2);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tonwatch-start-port-ls-'));
    network = await startLiteserverNetwork({ dir, signed, maxLinks: 2 });
    // each proof reply a little late: the key-block walk (and the starting server) lasts about a second
    for (const s of network.servers) {
      const methods = s.fake.methods as Record<string, (r: unknown) => unknown>;
      const honest = methods.getBlockProof!;
      methods.getBlockProof = async (r) => (await new Promise((ok) => setTimeout(ok, 150)), honest(r));
    }
  }, 60_000);
  afterAll(async () => {
    await network?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers "starting" while it walks, then the API, and never refuses or drops a connection in between', async () => {
    const { service, probes } = await startWhilePolling(path.join(dir, 'data'), {
      TONWATCH_CHAIN: 'liteserver',
      TONWATCH_NETWORK: 'testnet',
      TONWATCH_LITESERVER_CONFIG: network.configFile,
    });
    try {
      const after = fromFirstAccepted(probes);
      expect(after[0]).toMatchObject({ outcome: 200, starting: true });
      expect(after.filter((p) => typeof p.outcome !== 'number'), transitions(probes).join(', ')).toEqual([]);
      expect(after.at(-1)).toMatchObject({ outcome: 200, starting: false });
    } finally {
      expect(await stopService(service)).toBe(0);
    }
  }, 120_000);
});
