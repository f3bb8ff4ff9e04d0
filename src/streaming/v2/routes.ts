// Streaming v2 endpoints under TON Center's and TonAPI's paths: `POST …/sse` (the JSON body is the
// subscription; `event: connected` then `event: event` frames, each with an `id:`; `: keepalive` every
// 15 s) and `GET …/ws` (JSON ops `subscribe`, `unsubscribe`, `ping`, `id` echoed; replies
// `{"id","status"}`, errors `{"id","error"}`), as ton-streaming-go/v2/server.go writes them.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import { httpChunkOf } from '../frames.js';
import { V2Connection } from './connection.js';
import type { V2Hub } from './hub.js';
import { parseEventId, type V2Cursor } from './notices.js';
import { V2RequestError, parseSubscription, parseUnsubscribe } from './request.js';
import { v2SseSchema, v2WsSchema } from './schemas.js';
import { sseEvent, wsEvent } from './wire.js';

export const V2_SSE_PATHS = ['/api/streaming/v2/sse', '/streaming/v2/sse'] as const;
export const V2_WS_PATHS = ['/api/streaming/v2/ws', '/streaming/v2/ws'] as const;
/** The key as the legacy streams take it (Bearer, `?token=`), plus TON Center's `api_key` and X-API-Key. */
const AUTH = { scope: 'streaming', anonymous: true, queryParams: ['token', 'api_key'], headers: ['x-api-key'] } as const;
const SLOW = { error: 'slow consumer: the client did not read its notifications fast enough; reconnect with Last-Event-ID to resume' };

class SseV2Connection extends V2Connection {
  readonly transport = 'sse-v2' as const;
  constructor(
    private readonly res: ServerResponse,
    private readonly socket: Socket,
    /** HTTP/1.1 chunked framing (HTTP/1.0 clients get bare frames). */
    private readonly chunked: boolean,
  ) {
    super();
  }
  /** Straight to the socket, a prebuilt chunk shared by every recipient (the headers went out first). */
  send(id: string, payload: string): void {
    if (!this.socket.destroyed) this.socket.write(sseEvent(id, payload, this.chunked));
  }
  bufferedBytes(): number {
    return this.res.writableLength + this.socket.writableLength;
  }
  cork(): void {
    this.socket.cork();
  }
  uncork(): void {
    this.socket.uncork();
  }
  /** Any other frame, on the same path as the notifications (so the wire keeps the order of the calls). */
  frame(text: string): void {
    if (!this.socket.destroyed) this.socket.write(this.chunked ? httpChunkOf(text) : Buffer.from(text));
  }
  keepalive(): void {
    this.frame(': keepalive\n\n');
  }
  closeSlow(): void {
    this.frame(`event: error\ndata: ${JSON.stringify(SLOW)}\n\n`);
    this.closed = true;
    this.res.end(() => this.socket.end());
  }
  terminate(): void {
    this.closed = true;
    this.socket.destroy();
  }
}

class WsV2Connection extends V2Connection {
  readonly transport = 'ws-v2' as const;
  /** Notifications carry `event_id` once the client asked (`event_ids: true` or a `last_event_id`). */
  eventIds = false;
  private readonly direct: boolean;
  constructor(private readonly ws: WebSocket, private readonly socket: Socket) {
    super();
    this.direct = !ws.extensions.includes('permessage-deflate');
  }
  /**
   * Without compression, a prebuilt text frame straight to the socket: ws writes its own frames (replies,
   * pings, close) synchronously to the same socket then, so the wire keeps the order of the calls.
   */
  send(id: string, payload: string): void {
    if (this.ws.readyState !== 1 || this.socket.destroyed) return;
    if (this.direct) this.socket.write(wsEvent(id, payload, this.eventIds, true));
    else this.ws.send(wsEvent(id, payload, this.eventIds, false), { binary: false });
  }
  reply(body: Record<string, unknown>): void {
    if (this.ws.readyState === 1) this.ws.send(JSON.stringify(body));
  }
  bufferedBytes(): number {
    return this.ws.bufferedAmount + this.socket.writableLength;
  }
  cork(): void {
    this.socket.cork();
  }
  uncork(): void {
    this.socket.uncork();
  }
  keepalive(): void {
    if (this.ws.readyState === 1) this.ws.ping();
  }
  closeSlow(): void {
    this.reply(SLOW);
    this.closed = true;
    this.ws.close(1008, 'slow consumer');
  }
  terminate(): void {
    this.closed = true;
    this.ws.terminate();
  }
}

function resumePoint(text: unknown): V2Cursor | null | 'bad' {
  if (text === undefined || text === null || text === '') return null;
  if (typeof text !== 'string') return 'bad';
  return parseEventId(text) ?? 'bad';
}

const BAD_ID = 'invalid last_event_id: an id this server sent (`<position>.<kind>` or `<position>.<kind>~<sequence>`)';

export async function v2Routes(parent: FastifyInstance, hub: V2Hub): Promise<void> {
  await parent.register(async (app) => {
    // Errors before the stream (key, limits, unknown query parameters) are the API's JSON `{"error": …}`
    // shape, as the anchor's ErrorResponse; subscription errors are answered in sse() and websocket().
    for (const url of V2_SSE_PATHS) {
      app.route({ method: 'POST', url, config: { auth: AUTH }, schema: v2SseSchema, attachValidation: true, handler: (request, reply) => sse(hub, request, reply) });
    }
    for (const url of V2_WS_PATHS) {
      app.route({
        method: 'GET',
        url,
        exposeHeadRoute: false,
        config: { auth: AUTH },
        schema: v2WsSchema,
        handler: (_request, reply) => reply.code(426).header('upgrade', 'websocket').send({ error: 'use a WebSocket upgrade for Streaming v2' }),
        wsHandler: (ws: WebSocket, request: FastifyRequest) => websocket(hub, ws, request),
      });
    }
  });
}

function sse(hub: V2Hub, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return reply.code(400).send({ error: 'invalid subscription request: the body must be a JSON object' });
  }
  const fields = body as Record<string, unknown>;
  const id = typeof fields.id === 'string' ? fields.id : undefined;
  let subscription;
  try {
    subscription = parseSubscription(fields, undefined, header(request, 'x-actions-version'));
  } catch (err) {
    if (err instanceof V2RequestError) return reply.code(400).send({ ...(id ? { id } : {}), error: err.message });
    throw err;
  }
  const resume = resumePoint(request.headers['last-event-id'] ?? fields.last_event_id);
  if (resume === 'bad') return reply.code(400).send({ ...(id ? { id } : {}), error: BAD_ID });
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { ...(reply.getHeaders() as Record<string, string>), 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  // notifications go straight to the socket: the headers must be on it first
  res.flushHeaders();
  const connection = new SseV2Connection(res, request.raw.socket, res.chunkedEncoding);
  res.on('close', () => hub.closed(connection));
  hub.open(connection, subscription, resume);
  // Its id is where the subscription starts: a client killed before any event still resumes without a hole.
  connection.frame(`event: connected\nid: ${hub.startId(connection)}\ndata: ${JSON.stringify({ ...(id ? { id } : {}), status: 'subscribed' })}\n\n`);
  return reply;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function websocket(hub: V2Hub, ws: WebSocket, request: FastifyRequest): void {
  const connection = new WsV2Connection(ws, request.socket);
  const actionsHeader = header(request, 'x-actions-version');
  hub.open(connection, null, null);
  ws.on('close', () => hub.closed(connection));
  ws.on('message', (data: RawData, isBinary: boolean) => {
    let msg: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(isBinary ? '' : data.toString());
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('expected a JSON object');
      msg = parsed as Record<string, unknown>;
    } catch (err) {
      connection.reply({ error: `invalid request envelope: ${(err as Error).message}` });
      return;
    }
    const id = typeof msg.id === 'string' ? { id: msg.id } : {};
    try {
      switch (msg.operation) {
        case 'ping':
          connection.reply({ ...id, status: 'pong' });
          return;
        case 'subscribe': {
          const subscription = parseSubscription(msg, connection.subscription ?? undefined, actionsHeader);
          const resume = resumePoint(msg.last_event_id);
          if (resume === 'bad') throw new V2RequestError(BAD_ID);
          if (resume !== null || msg.event_ids === true) connection.eventIds = true;
          connection.reply({ ...id, status: 'subscribed' });
          hub.subscribe(connection, subscription, resume);
          return;
        }
        case 'unsubscribe': {
          const { addresses, traces } = parseUnsubscribe(msg);
          hub.unsubscribe(connection, addresses, traces);
          connection.reply({ ...id, status: 'unsubscribed' });
          return;
        }
        default:
          connection.reply({ ...id, error: `unknown operation: ${String(msg.operation ?? '')}` });
      }
    } catch (err) {
      if (err instanceof V2RequestError) connection.reply({ ...id, error: err.message });
      else throw err;
    }
  });
}
