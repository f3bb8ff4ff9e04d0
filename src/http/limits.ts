// Limits on what one client can hold open. Node enforces the headers and whole-request timeouts
// (408, then the connection closes); here: the longest silence while a body arrives, and a cap on
// requests in progress per client address — open streams included, with or without an API key —
// so that slow or unfinished requests cannot pile up without bound. Probes (`config.probe`: /healthz,
// /readyz, /metrics) are outside the cap.
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ConcurrencyLimiter, releaseWhenClosed } from './auth.js';
import { ApiError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A health probe or metrics scrape (`/healthz`, `/readyz`, `/metrics`): never counted against, or refused by, the per-client cap. */
    probe?: boolean;
  }
}

export interface ClientLimitsOptions {
  /** Longest silence while a request body arrives, in ms. */
  bodyTimeoutMs: number;
  /** Requests in progress per client address; 0 = no cap. */
  clientConnectionLimit: number;
}

const TIMEOUT_BODY = JSON.stringify({ error: 'request body timed out: no data for too long', error_code: 'body_timeout' });
const TIMEOUT_RESPONSE =
  'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n' +
  `Content-Length: ${Buffer.byteLength(TIMEOUT_BODY)}\r\n\r\n${TIMEOUT_BODY}`;

/** True when the request announces a body (a length above 0, or chunked). */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Closes the connection with 408 when no body byte arrives for `ms`; stops when the body is in or the reply ends. */
function watchBody(request: FastifyRequest, reply: FastifyReply, ms: number): void {
  const raw = request.raw;
  const socket: Socket = raw.socket;
  let seen = socket.bytesRead;
  let quietSince = Date.now();
  // Polled rather than a socket timeout: Node's own socket timeouts (keep-alive, server.timeout) stay untouched.
  const timer = setInterval(() => {
    if (raw.complete || socket.destroyed) return stop();
    if (socket.bytesRead !== seen) {
      seen = socket.bytesRead;
      quietSince = Date.now();
      return;
    }
    if (Date.now() - quietSince < ms) return;
    stop();
    request.log.info({ reqId: request.id, bodyTimeoutMs: ms }, 'request body timed out');
    if (socket.writable && !reply.raw.headersSent) socket.write(TIMEOUT_RESPONSE, () => socket.destroy());
    else socket.destroy();
  }, Math.max(10, Math.floor(ms / 5)));
  timer.unref();
  const stop = () => clearInterval(timer);
  raw.once('end', stop);
  raw.once('close', stop);
  reply.raw.once('close', stop);
}

/** Adds the body watch and the per-client cap to every route. Call on the root instance, before auth. */
export function registerClientLimits(app: FastifyInstance, opts: ClientLimitsOptions): ConcurrencyLimiter {
  const clients = new ConcurrencyLimiter(opts.clientConnectionLimit);
  app.addHook('onRequest', async (request, reply) => {
    // A monitor behind the same proxy or NAT as a thousand streams must still see the node's health.
    if (request.routeOptions.config.probe) return;
    if (opts.clientConnectionLimit > 0) {
      const release = clients.tryAcquire(request.ip);
      if (!release) {
        throw new ApiError(
          429,
          `too many requests in progress from this client address (at most ${opts.clientConnectionLimit}, open streams included): close some first`,
          { error_code: 'client_connection_limit' },
          { 'retry-after': '1' },
        );
      }
      releaseWhenClosed(request, reply, release);
    }
    if (hasBody(request) && !request.raw.complete) watchBody(request, reply, opts.bodyTimeoutMs);
  });
  return clients;
}
