// The service's port, open from the moment the start can report progress until the service stops. While
// the service starts and the API is not built yet (the liteserver source's first start may walk hundreds of
// key blocks before a head is believed), it answers the probes itself: an orchestrator (and an operator) must
// see why the service is not ready instead of a refused connection. /healthz is 200, /readyz 503 with the
// chain's own report (trust level, walk progress, servers), anything else 503. The API is then built on the
// same server (Fastify's serverFactory) and takes the requests over: the listening socket is never closed in
// between, so a client that saw /healthz answer is never refused.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyServerFactory } from 'fastify';
import type { HealthReport } from '../http/health.js';

export interface ServicePort {
  /** The port it listens on (the one chosen for `PORT=0`). */
  port: number;
  /** For buildApp: the app is built on this server, and answers on it once `serveApp` is called. */
  serverFactory: FastifyServerFactory;
  /** From now on the app answers every request (call it once the app is ready). */
  serveApp(): void;
  /** Stops accepting connections and waits for the open ones (the app ends its streams before). */
  close(): Promise<void>;
}

/** The port cannot be opened; the message names the setting (PORT, HOST) and what to do. */
export class ListenError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ListenError';
  }
}

/** Why listening on HOST:PORT failed, in the words of the settings. */
export function listenProblem(err: NodeJS.ErrnoException, at: { host: string; port: number }): string {
  switch (err.code) {
    case 'EADDRINUSE':
      return `PORT: ${at.port} is already in use on ${at.host} (another tonwatch, or another server); stop that one or choose another PORT`;
    case 'EACCES':
      return `PORT: ${at.port} may not be opened by this user on ${at.host} (ports below 1024 need privileges); choose another PORT`;
    case 'EADDRNOTAVAIL':
      return `HOST: ${at.host} is not an address of this machine; use one of its addresses, 127.0.0.1 or 0.0.0.0`;
    default:
      return `PORT, HOST: cannot listen on ${at.host}:${at.port}: ${err.message}`;
  }
}

export async function listenWhileStarting(options: {
  host: string;
  port: number;
  /** The server's limits, the app's own (httpServerOptions): the app serves on this server later. */
  http: http.ServerOptions;
  chain: () => HealthReport | undefined;
}): Promise<ServicePort> {
  const started = Date.now();
  const whileStarting: http.RequestListener = (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/healthz') return json(res, 200, { ok: true, starting: true, uptime_seconds: Math.floor((Date.now() - started) / 1000) });
    if (req.method === 'GET' && path === '/readyz') {
      return json(res, 503, { ok: false, starting: true, checks: { chain: { ...chainReport(options.chain), ok: false } } });
    }
    res.setHeader('retry-after', '5');
    return json(res, 503, { error: 'tonwatch is starting: the chain source has no believed head yet (see /readyz)', error_code: 'starting' });
  };
  let handler = whileStarting;
  let appHandler: http.RequestListener | null = null;
  const server = http.createServer(options.http, (req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    const refused = (err: NodeJS.ErrnoException) => reject(new ListenError(listenProblem(err, options), { cause: err }));
    server.once('error', refused);
    server.listen({ port: options.port, host: options.host }, () => {
      server.off('error', refused);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    serverFactory: ((handle: http.RequestListener, fastifyOptions: { keepAliveTimeout?: number }) => {
      appHandler = handle;
      // what Fastify sets on a server it makes itself
      if (fastifyOptions.keepAliveTimeout) server.keepAliveTimeout = fastifyOptions.keepAliveTimeout;
      return server;
    }) as unknown as FastifyServerFactory,
    serveApp() {
      if (!appHandler) throw new Error('serveApp: no app was built on this server');
      handler = appHandler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeIdleConnections();
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
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
