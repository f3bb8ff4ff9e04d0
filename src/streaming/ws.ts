// JSON-RPC 2.0 over a WebSocket at `/v2/websocket` (compat.md §3): eight methods, replies whose
// `result` is always a string, notifications that share the hub's prebuilt frames. A frame that is
// not a JSON-RPC request closes the socket with 1007 (1003 for binary); a request with a bad id or
// an unknown method gets an error reply. The socket is never left half-dead.
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { AccountId } from '../chain/model.js';
import type { Position } from '../bus/events.js';
import { StreamConnection, writeBatch } from './connection.js';
import { WS_SLOW_CONSUMER_FRAME, wsGapNotification, wsReply, type PayloadVariant, type PreparedEvent } from './frames.js';
import type { StreamHub } from './hub.js';
import type { OperationFilter } from './operations.js';
import { websocketRouteSchema } from './schemas.js';
import { RpcParamError, paramList, parseAccountItems, parseAccountList, parseBlockItems, parseMempoolItems } from './ws-params.js';

export const WS_PATH = '/v2/websocket';

/** Close codes (RFC 6455). */
export const CLOSE_GOING_AWAY = 1001;
export const CLOSE_UNSUPPORTED_DATA = 1003;
export const CLOSE_INVALID_PAYLOAD = 1007;
export const CLOSE_POLICY = 1008;
/** WebSocket.OPEN */
const OPEN = 1;

export interface WsLimits {
  /** Accounts per connection for transactions, and separately for traces. */
  maxAccounts: number;
  writeTimeoutMs: number;
}

export class WsConnection extends StreamConnection {
  readonly transport = 'ws' as const;
  /** Notifications carry `"event_id"` (asked for with `?event_ids=true`, or implied by a resume). */
  eventIds: boolean;
  private pingSentAt = 0;
  /** Frames go straight to the socket unless a compression extension makes ws transform them. */
  private readonly direct: boolean;

  constructor(
    private readonly hub: StreamHub,
    private readonly ws: WebSocket,
    private readonly socket: Socket,
    private readonly limits: WsLimits,
    eventIds: boolean,
  ) {
    super(hub);
    this.eventIds = eventIds;
    this.direct = !ws.extensions.includes('permessage-deflate');
    ws.on('pong', () => {
      this.pingSentAt = 0;
    });
  }

  protected frame(event: PreparedEvent, variant: PayloadVariant): Buffer {
    return this.direct ? event.wsWire(variant, this.eventIds) : event.wsFrame(variant, this.eventIds);
  }

  /**
   * Notifications are complete prebuilt WebSocket frames written straight to the socket: the same bytes
   * for every recipient. ws writes its own frames (replies, pings, close) synchronously to the same
   * socket (no compression is negotiated), so the order on the wire is the order of the calls.
   */
  protected writeFrames(first: Buffer, more: Buffer[] | null): void {
    if (this.ws.readyState !== OPEN || this.socket.destroyed) return;
    if (!this.direct) {
      this.ws.send(first, { binary: false });
      for (const frame of more ?? []) this.ws.send(frame, { binary: false });
      return;
    }
    writeBatch(this.socket, first, more);
  }

  bufferedBytes(): number {
    // without compression ws queues nothing of its own: the socket's count is all (and the write reads it anyway)
    return this.direct ? this.socket.writableLength : this.ws.bufferedAmount;
  }

  heartbeat(): void {
    if (this.pingSentAt === 0) this.pingSentAt = Date.now();
    this.ws.ping();
  }

  /** A ping unanswered for longer than the write timeout means the peer is gone. */
  override unresponsive(now: number): boolean {
    return this.pingSentAt !== 0 && now - this.pingSentAt > this.limits.writeTimeoutMs;
  }

  writeGap(lastEventId: Position | string, firstAvailable: Position): void {
    this.ws.send(wsGapNotification(lastEventId, firstAvailable), { binary: false });
    this.lastWriteAt = Date.now();
  }

  protected closeAsSlow(): void {
    this.ws.send(WS_SLOW_CONSUMER_FRAME, { binary: false });
    this.ws.close(CLOSE_POLICY, 'slow consumer');
  }

  terminate(reason: 'dead' | 'shutdown'): void {
    if (reason === 'dead') this.ws.terminate();
    else {
      this.closing = true;
      this.ws.close(CLOSE_GOING_AWAY, 'server shutting down');
    }
  }

  private reply(id: number | null, method: string, result: string): void {
    this.ws.send(wsReply(id, method, result), { binary: false });
    this.lastWriteAt = Date.now();
  }

  /** One incoming frame. */
  onMessage(data: RawData, isBinary: boolean): void {
    if (this.closing || this.closed) return;
    if (isBinary) {
      this.ws.close(CLOSE_UNSUPPORTED_DATA, 'binary frames are not supported: send JSON-RPC requests as text');
      return;
    }
    let request: unknown;
    try {
      request = JSON.parse(rawText(data));
    } catch {
      this.ws.close(CLOSE_INVALID_PAYLOAD, 'malformed JSON: expected a JSON-RPC request object');
      return;
    }
    if (request === null || typeof request !== 'object' || Array.isArray(request)) {
      this.ws.close(CLOSE_INVALID_PAYLOAD, 'expected a JSON-RPC request object');
      return;
    }
    const { id, method, params } = request as { id?: unknown; method?: unknown; params?: unknown };
    const methodName = typeof method === 'string' ? method : '';
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
      this.reply(null, methodName, "failed to process request: 'id' must be an unsigned integer");
      return;
    }
    if (typeof method !== 'string') {
      this.reply(id, '', "failed to process request: 'method' must be a string");
      return;
    }
    let result: string;
    try {
      result = this.call(method, params);
    } catch (err) {
      if (!(err instanceof RpcParamError)) throw err;
      result = err.message;
    }
    this.reply(id, method, result);
  }

  private call(method: string, params: unknown): string {
    switch (method) {
      case 'subscribe_account':
        return this.subscribeAccounts('transactions', paramList(params));
      case 'subscribe_trace':
        return this.subscribeAccounts('traces', paramList(params));
      case 'unsubscribe_account':
        return `success! ${this.removeAccounts('transactions', parseAccountList(paramList(params)))} subscription(s) removed`;
      case 'unsubscribe_trace':
        return `success! ${this.removeAccounts('traces', parseAccountList(paramList(params)))} subscription(s) removed`;
      case 'subscribe_mempool':
        return this.subscribeMempool(paramList(params, true));
      case 'unsubscribe_mempool':
        if (!this.hasMempool()) return 'you are not subscribed to mempool';
        this.clearMempool();
        return 'success! you have unsubscribed from mempool';
      case 'subscribe_block': {
        const { workchain, lastEventId, lastEventIdText } = parseBlockItems(paramList(params));
        this.checkResume(lastEventId);
        this.resumeFrom(lastEventId, lastEventIdText);
        this.setBlocks(this.newRoute(null, this.startAfter(lastEventId), workchain));
        return 'success! you have subscribed to blocks';
      }
      case 'unsubscribe_block':
        if (!this.hasBlocks()) return 'you are not subscribed to blocks';
        this.setBlocks(null);
        return 'success! you have unsubscribed from blocks';
      default:
        return `unknown method: ${method}`;
    }
  }

  private subscribeAccounts(kind: 'transactions' | 'traces', items: string[]): string {
    const { accounts, lastEventId, lastEventIdText } = parseAccountItems(items);
    let fresh = 0;
    for (const account of accounts.keys()) if (!this.hasAccount(kind, account)) fresh++;
    if (this.accountCount(kind) + fresh > this.limits.maxAccounts) {
      return `you have reached the limit of ${this.limits.maxAccounts} subscriptions`;
    }
    this.checkResume(lastEventId);
    this.resumeFrom(lastEventId, lastEventIdText);
    const after = this.startAfter(lastEventId);
    // One route per distinct operations filter in this call, shared by its accounts.
    const groups = new Map<string, { ops: OperationFilter; accounts: AccountId[] }>();
    for (const [account, ops] of accounts) {
      const key = ops === null ? '*' : [...ops].sort((a, b) => a - b).join(',');
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { ops, accounts: [] }));
      group.accounts.push(account);
    }
    let created = 0;
    for (const group of groups.values()) created += this.addAccounts(kind, group.accounts, this.newRoute(group.ops, after));
    return `success! ${created} new subscriptions created`;
  }

  private subscribeMempool(items: string[]): string {
    if (this.hasMempool()) return 'you are already subscribed to mempool';
    const { accounts, operations, lastEventId, lastEventIdText } = parseMempoolItems(items);
    if (accounts && accounts.length > this.limits.maxAccounts) {
      return `you have reached the limit of ${this.limits.maxAccounts} subscriptions`;
    }
    this.checkResume(lastEventId);
    this.resumeFrom(lastEventId, lastEventIdText);
    const route = this.newRoute(operations, this.startAfter(lastEventId));
    if (accounts) this.addAccounts('mempool', accounts, route);
    else this.setMempool(route);
    return 'success! you have subscribed to mempool';
  }

  /** Events already sent cannot be sent again in order: a resume point must not precede them. */
  private checkResume(lastEventId: Position | null): void {
    if (lastEventId !== null && lastEventId < this.lastSent) {
      throw new RpcParamError(
        `failed to process params: last_event_id ${lastEventId} is before the last event sent on this connection (${this.lastSent}); reconnect to resume from it`,
      );
    }
  }

  /** A new route starts after the resume point, or after what is live now. */
  private startAfter(lastEventId: Position | null): Position {
    return lastEventId ?? this.hub.livePosition();
  }

  /** Starts (or rewinds) the replay before the call's routes are added: routes already held keep their place. */
  private resumeFrom(lastEventId: Position | null, claimed?: string): void {
    if (lastEventId === null) return;
    this.eventIds = true;
    this.hub.resume(this, lastEventId, claimed);
  }
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

export interface WsRouteOptions {
  hub: StreamHub;
  limits: WsLimits;
}

export async function websocketRoutes(app: FastifyInstance, { hub, limits }: WsRouteOptions): Promise<void> {
  app.route({
    method: 'GET',
    url: WS_PATH,
    exposeHeadRoute: false,
    config: { auth: { scope: 'streaming', anonymous: true } },
    schema: websocketRouteSchema,
    // A plain GET (no upgrade) lands here.
    handler: (_request: FastifyRequest, reply: FastifyReply) =>
      reply.code(426).header('upgrade', 'websocket').send({ error: 'use a WebSocket upgrade (Upgrade: websocket) for JSON-RPC streaming' }),
    wsHandler: (ws: WebSocket, request: FastifyRequest) => {
      const query = (request.query ?? {}) as Record<string, unknown>;
      const eventIds = typeof query.event_ids === 'string' && ['true', '1', 'yes'].includes(query.event_ids.toLowerCase());
      const connection = new WsConnection(hub, ws, request.socket, limits, eventIds);
      ws.on('message', (data, isBinary) => {
        try {
          connection.onMessage(data, isBinary);
        } catch (err) {
          request.log.error({ err }, 'websocket request failed');
          ws.close(1011, 'internal error');
        }
      });
      ws.on('close', () => connection.onClosed());
      hub.open(connection, null);
    },
  });
}
