// What answers on the service's port while it starts and the API is not built yet: the liteserver source's
// first start may walk hundreds of key blocks before a head is believed, and an orchestrator's probes (and
// an operator) must see why the service is not ready instead of a refused connection. /healthz is 200,
// /readyz 503 with the chain's own report (trust level, walk progress, servers), anything else 503.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HealthReport } from '../http/health.js';

export interface StartingServer {
  /** The port it listens on: the API listens on the same one once it is built (the same port for `PORT=0`). */
  port: number;
  close(): Promise<void>;
}

export async function listenWhileStarting(options: { host: string; port: number; chain: () => HealthReport | undefined }): Promise<StartingServer> {
  const started = Date.now();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return json(res, 200, { ok: true, starting: true, uptime_seconds: Math.floor((Date.now() - started) / 1000) });
    if (req.method === 'GET' && path === '/readyz') {
      return json(res, 503, { ok: false, starting: true, checks: { chain: { ...chainReport(options.chain), ok: false } } });
    }
    res.setHeader('retry-after', '5');
    return json(res, 503, { error: 'tonwatch is starting: the chain source has no believed head yet (see /readyz)', error_code: 'starting' });
  });
  // a starting service answers probes only: no keep-alive that would hold a socket across the hand-over
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port, host: options.host }, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function chainReport(chain: () => HealthReport | undefined): Record<string, unknown> {
  try {
    return chain() ?? {};
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), connection: 'close' });
  res.end(text);
}
