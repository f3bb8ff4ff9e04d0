// Server-sent events: `/v2/sse/accounts/transactions`, `/accounts/traces`, `/mempool`, `/blocks`,
// GET with query parameters or POST with the same parameters as a JSON body (long account lists).
// Framing, headers and error texts follow compat.md §2 to the byte.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Position } from '../bus/events.js';
import { StreamConnection, writeBatch } from './connection.js';
import {
  HEARTBEAT_DATA_FRAME,
  HEARTBEAT_FRAME,
  SSE_SLOW_CONSUMER_FRAME,
  httpChunk,
  sseGapFrame,
  type PayloadVariant,
  type PreparedEvent,
} from './frames.js';
import type { StreamHub } from './hub.js';
import { StreamParamError, parseSseRequest, type SseRequest, type StreamKind } from './params.js';
import { sseRouteSchema } from './schemas.js';
import { toErrorResponse } from '../errors.js';
import { isStoreUnavailable, STORE_UNAVAILABLE } from '../store/faults.js';

export const SSE_PATHS: ReadonlyArray<readonly [string, StreamKind]> = [
  ['/v2/sse/accounts/transactions', 'transactions'],
  ['/v2/sse/accounts/traces', 'traces'],
  ['/v2/sse/mempool', 'mempool'],
  ['/v2/sse/blocks', 'blocks'],
];

/**
 * One SSE stream. After the headers, frames go straight to the socket as prebuilt HTTP chunks
 * (shared by every recipient); the response object only writes the headers and the final chunk.
 */
export class SseConnection extends StreamConnection {
  readonly transport = 'sse' as const;
  private readonly heartbeatBytes: Buffer;

  constructor(
    hub: StreamHub,
    private readonly res: ServerResponse,
    private readonly socket: Socket,
    /** HTTP/1.1 chunked framing; HTTP/1.0 clients get bare frames and the end of the connection. */
    private readonly chunked: boolean,
    heartbeatData: boolean,
  ) {
    super(hub);
    const heartbeat = heartbeatData ? HEARTBEAT_DATA_FRAME : HEARTBEAT_FRAME;
    this.heartbeatBytes = chunked ? httpChunk(heartbeat) : heartbeat;
  }

  /** Writes the first heartbeat at once, so clients see 200 before any event. */
  start(): void {
    this.socket.write(this.heartbeatBytes);
    this.lastWriteAt = Date.now();
  }

  /** Sets up the one subscription of this stream. */
  subscribe(request: SseRequest, after: Position): void {
    const route = this.newRoute(request.operations, after, request.workchain);
    switch (request.kind) {
      case 'transactions':
      case 'traces':
        if (request.accounts === 'ALL') this.setAll(request.kind, route);
        else this.addAccounts(request.kind, request.accounts ?? [], route);
        break;
      case 'mempool':
        if (request.accounts === null || request.accounts === 'ALL') this.setMempool(route);
        else this.addAccounts('mempool', request.accounts, route);
        break;
      case 'blocks':
        this.setBlocks(route);
        break;
    }
  }

  protected frame(event: PreparedEvent, variant: PayloadVariant): Buffer {
    return this.chunked ? event.sseChunk(variant) : event.sseFrame(variant);
  }

  protected writeFrames(first: Buffer, more: Buffer[] | null): void {
    if (this.socket.destroyed) return;
    writeBatch(this.socket, first, more);
  }

  bufferedBytes(): number {
    return this.socket.writableLength;
  }

  heartbeat(): void {
    if (!this.socket.destroyed) this.socket.write(this.heartbeatBytes);
  }

  writeGap(lastEventId: Position | string, firstAvailable: Position): void {
    const frame = sseGapFrame(lastEventId, firstAvailable);
    if (!this.socket.destroyed) this.socket.write(this.chunked ? httpChunk(frame) : frame);
    this.lastWriteAt = Date.now();
  }

  protected closeAsSlow(): void {
    if (!this.socket.destroyed) this.socket.write(this.chunked ? httpChunk(SSE_SLOW_CONSUMER_FRAME) : SSE_SLOW_CONSUMER_FRAME);
    this.endAndClose();
  }

  terminate(reason: 'dead' | 'shutdown'): void {
    if (reason === 'dead') this.socket.destroy();
    else if (!this.closing) {
      this.closing = true;
      this.endAndClose();
    }
  }

  /** Ends the response (the final zero-length chunk) and then the connection, so the client sees EOF. */
  private endAndClose(): void {
    const socket = this.socket;
    this.res.end(() => socket.end());
  }
}

/** Errors before streaming are plain text, the message alone, as the original's clients expect. */
function plainTextError(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.code(status).type('text/plain; charset=utf-8').send(message);
}

export interface SseOptions {
  hub: StreamHub;
}

export async function sseRoutes(parent: FastifyInstance, opts: SseOptions): Promise<void> {
  // Their own plugin, so that their error handler answers in plain text without touching other routes.
  await parent.register(async (app: FastifyInstance) => routes(app, opts));
}

async function routes(app: FastifyInstance, { hub }: SseOptions): Promise<void> {
  // Every error before the stream — a bad key, the anonymous limit, a body that is not JSON, a busy
  // store — is the message alone in plain text (compat.md §2): TonAPI's clients read the text.
  app.setErrorHandler((err, request, reply) => {
    const { statusCode, body, headers } = isStoreUnavailable(err) ? STORE_UNAVAILABLE : toErrorResponse(err);
    if (statusCode >= 500) request.log.error({ err, reqId: request.id }, 'request failed');
    return plainTextError(reply.headers(headers), statusCode, body.error);
  });
  for (const [path, kind] of SSE_PATHS) {
    for (const method of ['GET', 'POST'] as const) {
      const where = method === 'GET' ? 'query' : 'body';
      app.route({
        method,
        url: path,
        exposeHeadRoute: false,
        attachValidation: true, // our own parser answers with the original's plain-text errors
        config: { auth: { scope: 'streaming', anonymous: true } },
        schema: sseRouteSchema(kind, where),
        handler: (request: FastifyRequest, reply: FastifyReply) => {
          const params = where === 'query' ? request.query : request.body;
          if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
            return plainTextError(reply, 400, `failed to parse ${where} parameters: expected a JSON object`);
          }
          let spec: SseRequest;
          try {
            spec = parseSseRequest(kind, {
              params: (params ?? {}) as Record<string, unknown>,
              where,
              lastEventIdHeader: request.headers['last-event-id'],
            });
          } catch (err) {
            if (err instanceof StreamParamError) return plainTextError(reply, 400, err.message);
            throw err;
          }
          startStream(hub, request, reply, spec);
          return reply;
        },
      });
    }
  }
}

function startStream(hub: StreamHub, request: FastifyRequest, reply: FastifyReply, spec: SseRequest): void {
  reply.hijack();
  const res = reply.raw;
  const chunked = request.raw.httpVersion !== '1.0';
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: chunked ? 'keep-alive' : 'close',
    ...(chunked ? { 'transfer-encoding': 'chunked' } : {}),
  });
  res.flushHeaders();
  const connection = new SseConnection(hub, res, request.raw.socket, chunked, spec.heartbeatData);
  connection.start();
  connection.subscribe(spec, spec.lastEventId ?? hub.livePosition());
  res.on('close', () => connection.onClosed());
  res.on('error', (err) => request.log.debug({ err }, 'sse connection error'));
  hub.open(connection, spec.lastEventId, spec.lastEventIdText ?? undefined);
}
