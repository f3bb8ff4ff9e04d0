// A lean HTTP/1.1 client for the one request shape webhooks send: a POST written in one piece,
// whose response is judged by its status line and Retry-After alone (the body is read and
// dropped). Keep-alive connections per origin, no pipelining, no redirects, one deadline per
// exchange. General-purpose clients spend about as much CPU per request as the rest of a
// delivery; this one does only what a delivery needs (docs/ARCHITECTURE.md, "Webhooks").
import type { LookupFunction } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';

export interface OriginOptions {
  /** Most open connections to the origin. */
  connections: number;
  /**
   * From a connection taking the request (connecting included) to the end of the response body;
   * a request queued for a free connection gives up after as long again.
   */
  timeoutMs: number;
  lookup: LookupFunction;
  /** Extra TLS options for https origins (tests pass a CA). */
  tls?: tls.ConnectionOptions;
}

export interface ExchangeResult {
  statusCode: number;
  retryAfter: string | undefined;
}

export type ExchangeError = Error & { code?: string };
export type ExchangeCallback = (err: ExchangeError | null, result: ExchangeResult | null) => void;

/** The most a response head may take; a receiver sending more is not a webhook receiver. */
const MAX_HEAD_BYTES = 16 * 1024;
/** Idle connections are closed this long before the receiver's advertised keep-alive timeout ends. */
const KEEP_ALIVE_MARGIN_MS = 1000;
/** How long an idle connection is kept when the receiver does not say. */
const DEFAULT_IDLE_MS = 4000;
const CRLF2 = Buffer.from('\r\n\r\n');
/** Bytes per read from a plain TCP connection. */
const READ_BUFFER_BYTES = 64 * 1024;
/** The read buffer of every plain TCP connection (of every origin) in this thread. */
let readBuffer: Buffer | null = null;
/** Name lengths of content-length, transfer-encoding, connection and keep-alive, retry-after. */
const WANTED_LENGTHS = new Set([14, 17, 10, 11]);

function fail(code: string, message: string): ExchangeError {
  return Object.assign(new Error(message), { code });
}

interface Exchange {
  /** Request head and body, written in one call. */
  data: string;
  cb: ExchangeCallback;
  deadline: number;
  /** Sent again once already, after a reused connection closed before answering. */
  retried: boolean;
  /** True when the exchange must not start after all (its receiver answered 410 meanwhile): answered ECANCELED unsent. */
  cancelled: (() => boolean) | undefined;
}

/** Keep-alive connections to one origin and the requests waiting for one. */
export class OriginClient {
  private readonly idle: Connection[] = [];
  private readonly open = new Set<Connection>();
  private readonly waiting: Exchange[] = [];
  private waitingHead = 0;
  private sweeper: NodeJS.Timeout | null = null;
  private closed = false;
  /** abort() is cutting exchanges: none is sent again. */
  private aborting = false;
  private readonly host: string;
  private readonly port: number;
  private readonly secure: boolean;

  constructor(
    origin: URL,
    private readonly options: OriginOptions,
  ) {
    this.secure = origin.protocol === 'https:';
    this.host = origin.hostname.startsWith('[') ? origin.hostname.slice(1, -1) : origin.hostname;
    this.port = Number(origin.port) || (this.secure ? 443 : 80);
  }

  /**
   * Sends `data` (a whole request) on a free connection, or queues it until one is free. `cancelled`
   * is asked just before it would be written: true answers ECANCELED, on a later microtask, unsent.
   */
  request(data: string, cb: ExchangeCallback, cancelled?: () => boolean): void {
    if (this.closed) return cb(fail('ECLOSED', 'client closed'), null);
    this.dispatch({ data, cb, deadline: Date.now() + this.options.timeoutMs, retried: false, cancelled });
  }

  private dispatch(ex: Exchange): void {
    if (isCancelled(ex)) return;
    const now = Date.now();
    let conn: Connection | undefined;
    while ((conn = this.idle.pop())) {
      if (conn.usableAt(now)) return conn.send(ex);
      conn.destroy();
    }
    if (this.open.size < this.options.connections) return this.connect().send(ex);
    this.waiting.push(ex);
  }

  private connect(): Connection {
    const o = this.options;
    let conn: Connection | null = null;
    // Plain TCP reads into one buffer shared by every connection and skips the stream machinery (a
    // chunk, events and a tick per response): each read is parsed at once and the parser copies
    // what it keeps.
    const socket = this.secure
      ? tls.connect({ host: this.host, port: this.port, lookup: o.lookup, servername: net.isIP(this.host) ? undefined : this.host, ALPNProtocols: ['http/1.1'], ...o.tls })
      : net.connect({ host: this.host, port: this.port, lookup: o.lookup, onread: { buffer: (readBuffer ??= Buffer.allocUnsafe(READ_BUFFER_BYTES)), callback: (n, buf) => (conn?.onData((buf as Buffer).subarray(0, n)), true) } });
    socket.setNoDelay(true);
    conn = new Connection(socket, this, this.secure);
    this.open.add(conn);
    this.sweeper ??= setInterval(() => this.sweep(), Math.min(1000, Math.max(10, o.timeoutMs / 10))).unref();
    return conn;
  }

  /** A connection finished an exchange and can take the next one. */
  released(conn: Connection): void {
    const next = this.nextWaiting();
    if (next) return conn.send(next);
    this.idle.push(conn);
  }

  /** A connection closed; its exchange (if any) was already answered or is handed back here. */
  dropped(conn: Connection, unanswered: Exchange | null, err: ExchangeError): void {
    this.open.delete(conn);
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    if (unanswered) {
      // A reused connection the receiver closed as the request went out: the one case worth an
      // immediate second try, on a new connection (receivers dedupe by webhook-id regardless).
      if (conn.served > 0 && !unanswered.retried && err.code !== 'ETIMEDOUT' && !this.closed && !this.aborting) {
        unanswered.retried = true;
        this.dispatch(unanswered);
      } else {
        unanswered.cb(err, null);
      }
    }
    // A freed slot lets a queued request open a new connection.
    const next = this.open.size < this.options.connections ? this.nextWaiting() : null;
    if (next) this.connect().send(next);
    if (this.open.size === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  /** The next queued exchange that may still start (cancelled ones are answered on the way). */
  private nextWaiting(): Exchange | null {
    let ex: Exchange | null;
    while ((ex = this.takeWaiting()) && isCancelled(ex));
    return ex;
  }

  private takeWaiting(): Exchange | null {
    if (this.waitingHead >= this.waiting.length) return null;
    const ex = this.waiting[this.waitingHead]!;
    this.waiting[this.waitingHead++] = undefined as unknown as Exchange;
    if (this.waitingHead > 1024 && this.waitingHead * 2 > this.waiting.length) {
      this.waiting.splice(0, this.waitingHead);
      this.waitingHead = 0;
    }
    return ex;
  }

  /** Times out late exchanges (queued or in flight) and closes connections idle too long. */
  private sweep(): void {
    const now = Date.now();
    for (const conn of [...this.open]) conn.checkDeadline(now);
    while (this.waitingHead < this.waiting.length && this.waiting[this.waitingHead]!.deadline <= now) {
      this.takeWaiting()!.cb(fail('ETIMEDOUT', `no connection free within ${this.options.timeoutMs} ms`), null);
    }
  }

  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  /** Connections open now (idle or busy). */
  get connectionCount(): number {
    return this.open.size;
  }

  /** Cuts every exchange, queued or in flight (their callbacks get EABORTED); idle connections stay. */
  abort(): void {
    this.aborting = true;
    try {
      let ex: Exchange | null;
      while ((ex = this.nextWaiting())) ex.cb(fail('EABORTED', 'attempt cut'), null);
      for (const conn of [...this.open]) conn.abort();
    } finally {
      this.aborting = false;
    }
  }

  /** Fails queued requests, lets in-flight ones finish, then closes every connection. */
  async close(): Promise<void> {
    this.closed = true;
    let ex: Exchange | null;
    while ((ex = this.takeWaiting())) ex.cb(fail('ECLOSED', 'client closed'), null);
    const closing = [...this.open].map((c) => c.closeWhenDone());
    await Promise.all(closing);
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

/** Answers a cancelled exchange with ECANCELED on a later microtask (never inside the caller's send) and says so. */
function isCancelled(ex: Exchange): boolean {
  if (!ex.cancelled?.()) return false;
  queueMicrotask(() => ex.cb(fail('ECANCELED', 'not sent: the receiver answered 410 Gone to an earlier attempt'), null));
  return true;
}

type Phase = 'idle' | 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'until-close';

/** One socket and the parser of the response on it. */
class Connection {
  private exchange: Exchange | null = null;
  private phase: Phase = 'idle';
  /** Bytes of an incomplete head or chunk-size/trailer line. */
  private pending: Buffer | null = null;
  private remaining = 0;
  private statusCode = 0;
  private retryAfter: string | undefined = undefined;
  private keepAlive = true;
  private gotBytes = false;
  private idleUntil = 0;
  private idleMs = DEFAULT_IDLE_MS;
  private dead = false;
  private onIdle: (() => void) | null = null;
  /** The response just finished within the current data event. */
  private completed = false;
  served = 0;

  constructor(
    private readonly socket: net.Socket,
    private readonly client: OriginClient,
    /** Whether bytes arrive as 'data' events (TLS) rather than through the socket's `onread`. */
    dataEvents: boolean,
  ) {
    if (dataEvents) socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err: ExchangeError) => this.die(err));
    // After an error, die() has already run: a close that gets here is the receiver ending cleanly.
    socket.on('close', () => this.die(fail('ECONNRESET', 'the receiver closed the connection'), true));
  }

  usableAt(now: number): boolean {
    return !this.dead && now < this.idleUntil;
  }

  send(ex: Exchange): void {
    // Time spent queued for a connection does not eat into the receiver's time to answer.
    ex.deadline = Date.now() + this.client.timeoutMs;
    this.exchange = ex;
    this.phase = 'head';
    this.statusCode = 0;
    this.retryAfter = undefined;
    this.keepAlive = true;
    this.gotBytes = false;
    this.socket.write(ex.data);
  }

  checkDeadline(now: number): void {
    if (this.exchange && this.exchange.deadline <= now) {
      this.die(fail('ETIMEDOUT', `timeout after ${this.client.timeoutMs} ms`));
    } else if (!this.exchange && this.idleUntil <= now) {
      this.destroy();
    }
  }

  destroy(): void {
    this.die(fail('ECONNRESET', 'closed'));
  }

  /** Cuts the exchange in flight, if any, with its connection. */
  abort(): void {
    if (this.exchange) this.die(fail('EABORTED', 'attempt cut'));
  }

  closeWhenDone(): Promise<void> {
    if (this.dead) return Promise.resolve();
    if (!this.exchange) {
      this.destroy();
      return Promise.resolve();
    }
    return new Promise((resolve) => (this.onIdle = resolve));
  }

  private die(err: ExchangeError, endedByPeer = false): void {
    if (this.dead) return;
    this.dead = true;
    let unanswered = this.exchange;
    this.exchange = null;
    // A body delimited by the connection's end is complete when the connection ends.
    if (unanswered && this.phase === 'until-close' && endedByPeer) {
      unanswered.cb(null, { statusCode: this.statusCode, retryAfter: this.retryAfter });
      unanswered = null;
    } else if (unanswered && this.gotBytes) {
      // Part of a response arrived: not a stale connection, so never a silent second try.
      unanswered.cb(err.code === 'ETIMEDOUT' ? err : fail(err.code ?? 'ECONNRESET', `response cut short: ${err.message}`), null);
      unanswered = null;
    }
    this.socket.destroy();
    this.client.dropped(this, unanswered, err);
    this.onIdle?.();
  }

  onData(chunk: Buffer): void {
    if (!this.exchange) return this.destroy(); // Bytes nobody asked for: the connection is unusable.
    this.gotBytes = true;
    this.completed = false;
    let at = 0;
    while (at < chunk.length && this.exchange) {
      switch (this.phase) {
        case 'head':
          at = this.readHead(chunk, at);
          break;
        case 'length':
          at = this.skip(chunk, at);
          if (this.remaining === 0) this.finish();
          break;
        case 'chunk-size':
        case 'trailers':
          at = this.readLine(chunk, at);
          break;
        case 'chunk-data':
          at = this.skip(chunk, at);
          if (this.remaining === 0) {
            this.phase = 'chunk-end';
            this.remaining = 2; // the CRLF after the data
          }
          break;
        case 'chunk-end':
          at = this.skip(chunk, at);
          if (this.remaining === 0) this.phase = 'chunk-size';
          break;
        case 'until-close':
          return;
        default:
          return this.destroy();
      }
    }
    if (!this.completed) return;
    // Bytes after the response would be read as the next one's: such a connection is not reused.
    if (at < chunk.length || this.onIdle || !this.keepAlive || this.client.isClosed) return this.destroy();
    this.idleUntil = Date.now() + this.idleMs;
    this.client.released(this);
  }

  /** Drops up to `remaining` body bytes from `at`; returns where it stopped. */
  private skip(chunk: Buffer, at: number): number {
    const take = Math.min(this.remaining, chunk.length - at);
    this.remaining -= take;
    return at + take;
  }

  /** Joins a partial line or head with the new bytes from `at`. */
  private joined(chunk: Buffer, at: number): Buffer {
    const rest = at === 0 ? chunk : chunk.subarray(at);
    const buf = this.pending ? Buffer.concat([this.pending, rest]) : rest;
    this.pending = null;
    return buf;
  }

  /** Parses the status line and headers once they are all here; returns where the body starts in `chunk`. */
  private readHead(chunk: Buffer, at: number): number {
    const pendingLength = this.pending?.length ?? 0;
    const buf = this.joined(chunk, at);
    const end = buf.indexOf(CRLF2);
    if (end < 0) {
      if (buf.length > MAX_HEAD_BYTES) this.protocolError('response head larger than 16 KB');
      else this.pending = Buffer.from(buf);
      return chunk.length;
    }
    const consumed = at + end + 4 - pendingLength;
    const head = buf.toString('latin1', 0, end);
    const lineEnd = head.indexOf('\r\n');
    const statusLine = lineEnd < 0 ? head : head.slice(0, lineEnd);
    const status = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(statusLine);
    if (!status) {
      this.protocolError(`not an HTTP/1.x response: ${JSON.stringify(statusLine.slice(0, 40))}`);
      return chunk.length;
    }
    const code = Number(status[2]);
    let length = -1;
    let chunked = false;
    let connection = '';
    let keepAliveHint = '';
    for (let from = lineEnd + 2; lineEnd >= 0 && from < head.length; ) {
      let to = head.indexOf('\r\n', from);
      if (to < 0) to = head.length;
      const colon = head.indexOf(':', from);
      const nameLength = colon - from;
      // Only five headers matter; the name's length rules out the rest without lower-casing them.
      if (colon > from && colon < to && WANTED_LENGTHS.has(nameLength)) {
        const name = head.slice(from, colon).toLowerCase();
        const value = head.slice(colon + 1, to).trim();
        if (name === 'content-length') {
          if (!/^\d{1,15}$/.test(value) || (length >= 0 && Number(value) !== length)) {
            this.protocolError('invalid content-length');
            return chunk.length;
          }
          length = Number(value);
        } else if (name === 'transfer-encoding') chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
        else if (name === 'connection') connection = value.toLowerCase();
        else if (name === 'keep-alive') keepAliveHint = value;
        else if (name === 'retry-after') this.retryAfter = value;
      }
      from = to + 2;
    }
    // Interim responses (100 Continue, 103 Early Hints) precede the real one.
    if (code >= 100 && code < 200) {
      if (code === 101) this.protocolError('the receiver switched protocols');
      this.retryAfter = undefined;
      return consumed;
    }
    this.statusCode = code;
    this.keepAlive = status[1] === '1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    const hint = /timeout=(\d+)/i.exec(keepAliveHint);
    if (hint) this.idleMs = Math.max(0, Number(hint[1]) * 1000 - KEEP_ALIVE_MARGIN_MS);
    if (code === 204 || code === 304) this.finish();
    else if (chunked) this.phase = 'chunk-size';
    else if (length >= 0) {
      this.phase = 'length';
      this.remaining = length;
      if (length === 0) this.finish();
    } else {
      this.phase = 'until-close';
      this.keepAlive = false;
    }
    return consumed;
  }

  /** A chunk-size line or a trailer line of a chunked body. */
  private readLine(chunk: Buffer, at: number): number {
    const pendingLength = this.pending?.length ?? 0;
    const buf = this.joined(chunk, at);
    const end = buf.indexOf('\r\n');
    if (end < 0) {
      if (buf.length > MAX_HEAD_BYTES) this.protocolError('chunk line too long');
      else this.pending = Buffer.from(buf);
      return chunk.length;
    }
    const consumed = at + end + 2 - pendingLength;
    if (this.phase === 'trailers') {
      if (end === 0) this.finish();
      return consumed;
    }
    const size = buf.toString('latin1', 0, end).split(';')[0]!.trim();
    if (!/^[0-9a-fA-F]{1,12}$/.test(size)) {
      this.protocolError('invalid chunk size');
      return chunk.length;
    }
    this.remaining = parseInt(size, 16);
    this.phase = this.remaining === 0 ? 'trailers' : 'chunk-data';
    return consumed;
  }

  private protocolError(message: string): void {
    this.die(fail('EPROTO', message));
  }

  /** The response is complete: answer; onData then reuses or closes the connection. */
  private finish(): void {
    const ex = this.exchange!;
    this.exchange = null;
    this.phase = 'idle';
    this.pending = null;
    this.served++;
    this.completed = true;
    ex.cb(null, { statusCode: this.statusCode, retryAfter: this.retryAfter });
  }
}
