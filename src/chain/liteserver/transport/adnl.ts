// ADNL-over-TCP client for one liteserver: handshake, optional tcp.authentificate with a key of
// its own, encrypted frames, query ids, per-query timeouts, tcp.ping keep-alive. Every failure is an
// AdnlError naming the server and what failed; a failed connection stays failed (the pool reconnects
// with a new client).
import { randomBytes } from 'node:crypto';
import { Socket, connect as tcpConnect } from 'node:net';
import { type LiteMethodName, type RequestOf, type ResponseOf } from '../tl/lite-api.js';
import { decodeAdnlMessage, decodeLiteAnswer, encodeAdnlMessage, encodeLiteQuery } from '../tl/envelope.js';
import { FrameDecoder, type SessionCiphers, clientHandshake, encodeFrame, sessionCiphers } from './frame.js';
import { ClientAuthClient } from './client-auth.js';
import { AdnlError, CLOSED_BY_CLIENT, type LiteQueryOptions, type LiteTransport, type QueryRecorder } from './types.js';

export interface AdnlClientOptions {
  host: string;
  port: number;
  /** The server's ed25519 public key (`id.key` of a global config entry). */
  publicKey: Uint8Array;
  /** TCP connect plus handshake. */
  connectTimeoutMs?: number;
  /** Default per-query timeout (a waitMasterchainSeqno prefix adds its own timeout on top). */
  queryTimeoutMs?: number;
  /** tcp.ping period; 0 turns keep-alive off. A ping unanswered within queryTimeoutMs closes the connection. */
  pingIntervalMs?: number;
  /** Called with every query and its answer or failure (the transport's `record` option). */
  record?: QueryRecorder;
  /**
   * A 32-byte ed25519 seed: the client proves it holds this key right after the handshake
   * (tcp.authentificate), as TON's client does when it has a local key and tonutils-go's pool always does.
   */
  authenticateWith?: Uint8Array;
}

interface Pending {
  resolve(answer: Buffer): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class AdnlClient implements LiteTransport {
  readonly server: string;
  private readonly decoder = new FrameDecoder();
  private readonly pending = new Map<string, Pending>();
  private readonly pings = new Map<bigint, Pending>();
  private readonly closeListeners: ((err: AdnlError) => void)[] = [];
  private keepAlive?: NodeJS.Timeout;
  private failure?: AdnlError;

  private constructor(
    private readonly socket: Socket,
    private readonly ciphers: SessionCiphers,
    private readonly options: AdnlClientOptions,
  ) {
    this.server = `${options.host}:${options.port}`;
  }

  /**
   * Connects and completes the handshake (the server's first, empty frame proves it holds the key), then,
   * with `authenticateWith`, the authentication exchange (ready once tcp.authentificationComplete is sent).
   */
  static connect(options: AdnlClientOptions): Promise<AdnlClient> {
    const server = `${options.host}:${options.port}`;
    const timeoutMs = options.connectTimeoutMs ?? 5000;
    return new Promise((resolve, reject) => {
      let hs: ReturnType<typeof clientHandshake>;
      let auth: ClientAuthClient | undefined;
      try {
        hs = clientHandshake(options.publicKey);
        if (options.authenticateWith) auth = new ClientAuthClient(options.authenticateWith);
      } catch (e) {
        return reject(new AdnlError('handshake', server, (e as Error).message));
      }
      const socket = tcpConnect({ host: options.host, port: options.port, noDelay: true });
      const client = new AdnlClient(socket, sessionCiphers(hs.params, 'client'), options);
      let stage: 'connect' | 'handshake' | 'authentication' | 'ready' = 'connect';
      const fail = (err: AdnlError) => {
        clearTimeout(timer);
        socket.destroy();
        reject(err);
      };
      const timer = setTimeout(() => fail(new AdnlError(stage === 'connect' ? 'connect' : 'handshake', server,
        stage === 'connect' ? `TCP connect timed out after ${timeoutMs} ms`
          : stage === 'authentication' ? `no tcp.authentificationNonce within ${timeoutMs} ms` : `no handshake answer within ${timeoutMs} ms`)), timeoutMs);
      socket.once('connect', () => {
        stage = 'handshake';
        socket.write(hs.packet);
      });
      socket.on('error', (e) => {
        if (stage !== 'ready') fail(new AdnlError(stage === 'connect' ? 'connect' : 'handshake', server, `${stage === 'connect' ? 'TCP connect' : stage} failed: ${e.message}`));
        else client.fail(new AdnlError('closed', server, `socket error: ${e.message}`));
      });
      socket.on('close', () => {
        if (stage === 'authentication') fail(new AdnlError('handshake', server, 'server closed the connection after tcp.authentificate (it does not take authentication?)'));
        else if (stage !== 'ready') fail(new AdnlError('handshake', server, 'server closed the connection during the handshake (wrong server key?)'));
        else client.fail(new AdnlError('closed', server, 'connection closed by the server'));
      });
      socket.on('data', (chunk: Buffer) => {
        let frames: Buffer[];
        try {
          frames = client.decoder.push(client.ciphers.rx.update(chunk));
        } catch (e) {
          const err = new AdnlError('protocol', server, (e as Error).message);
          return stage === 'ready' ? client.fail(err) : fail(err);
        }
        const ready = () => {
          stage = 'ready';
          clearTimeout(timer);
          client.startKeepAlive();
          resolve(client);
        };
        for (const payload of frames) {
          if (stage === 'handshake') {
            if (payload.length !== 0) return fail(new AdnlError('handshake', server, 'first frame after the handshake is not empty'));
            if (!auth) ready();
            else {
              stage = 'authentication';
              client.send(encodeAdnlMessage(auth.start()));
            }
          } else if (stage === 'authentication') {
            try {
              const msg = decodeAdnlMessage(payload);
              if (msg.kind !== 'authNonce') throw new Error(`expected tcp.authentificationNonce, got ${msg.kind}`);
              client.send(encodeAdnlMessage(auth!.answer(msg.nonce)));
            } catch (e) {
              return fail(new AdnlError('handshake', server, `authentication failed: ${(e as Error).message}`));
            }
            ready();
          } else client.onFrame(payload);
        }
      });
    });
  }

  /** Whether the connection has failed or been closed. */
  get closed(): boolean {
    return this.failure !== undefined;
  }

  /** Called once when the connection ends, with the reason. */
  onClose(listener: (err: AdnlError) => void): void {
    if (this.failure) listener(this.failure);
    else this.closeListeners.push(listener);
  }

  async query<M extends LiteMethodName>(method: M, request: RequestOf<M>, options: LiteQueryOptions = {}): Promise<ResponseOf<M>> {
    const query = encodeLiteQuery(method, request, options.wait);
    const timeoutMs = options.timeoutMs ?? (this.options.queryTimeoutMs ?? 10_000) + (options.wait?.timeoutMs ?? 0);
    const started = Date.now();
    let answer: Buffer;
    try {
      answer = await this.queryRaw(query, timeoutMs, method);
    } catch (e) {
      this.options.record?.({ at: new Date(started).toISOString(), server: this.server, method, query: query.toString('base64'),
        error: (e as Error).message, errorKind: e instanceof AdnlError ? e.kind : undefined, ms: Date.now() - started });
      throw e;
    }
    this.options.record?.({ at: new Date(started).toISOString(), server: this.server, method, query: query.toString('base64'),
      answer: answer.toString('base64'), ms: Date.now() - started });
    try {
      return decodeLiteAnswer(method, answer);
    } catch (e) {
      if (e instanceof Error && e.name === 'TLError') throw new AdnlError('protocol', this.server, `bad ${method} answer: ${e.message}`);
      throw e;
    }
  }

  /** Sends adnl.message.query with a fresh query id; resolves with the answer's bytes. */
  queryRaw(query: Buffer, timeoutMs: number, what = 'query'): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    const queryId = randomBytes(32);
    const key = queryId.toString('hex');
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(key);
        reject(new AdnlError('timeout', this.server, `${what} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(key, { resolve, reject, timer });
      this.send(encodeAdnlMessage({ kind: 'query', queryId, query }));
    });
  }

  /** Round trip of one tcp.ping, in milliseconds. */
  ping(timeoutMs = this.options.queryTimeoutMs ?? 10_000): Promise<number> {
    if (this.failure) return Promise.reject(this.failure);
    const randomId = randomBytes(8).readBigInt64LE();
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pings.delete(randomId);
        reject(new AdnlError('timeout', this.server, `no tcp.pong within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pings.set(randomId, { resolve: () => resolve(performance.now() - started), reject, timer });
      this.send(encodeAdnlMessage({ kind: 'ping', randomId }));
    });
  }

  async close(): Promise<void> {
    if (this.failure) return;
    this.fail(new AdnlError('closed', this.server, CLOSED_BY_CLIENT));
    await new Promise<void>((resolve) => (this.socket.closed ? resolve() : this.socket.once('close', () => resolve())));
  }

  private send(payload: Buffer): void {
    this.socket.write(this.ciphers.tx.update(encodeFrame(payload)));
  }

  private onFrame(payload: Buffer): void {
    let msg;
    try {
      msg = decodeAdnlMessage(payload);
    } catch (e) {
      return this.fail(new AdnlError('protocol', this.server, (e as Error).message));
    }
    if (msg.kind === 'answer') {
      const key = msg.queryId.toString('hex');
      const p = this.pending.get(key);
      if (!p) return; // answer after its timeout: dropped
      this.pending.delete(key);
      clearTimeout(p.timer);
      p.resolve(msg.answer);
    } else if (msg.kind === 'pong') {
      const p = this.pings.get(msg.randomId);
      if (!p) return;
      this.pings.delete(msg.randomId);
      clearTimeout(p.timer);
      p.resolve(Buffer.alloc(0));
    } else if (msg.kind === 'ping') {
      this.send(encodeAdnlMessage({ kind: 'pong', randomId: msg.randomId }));
    } else {
      this.fail(new AdnlError('protocol', this.server, `server sent a client's message (${msg.kind})`));
    }
  }

  private startKeepAlive(): void {
    const every = this.options.pingIntervalMs ?? 5000;
    if (every <= 0) return;
    this.keepAlive = setInterval(() => {
      this.ping().catch((e: AdnlError) => this.fail(new AdnlError('timeout', this.server, `keep-alive failed: ${e.message}`)));
    }, every);
    this.keepAlive.unref();
  }

  /** Ends the connection once: every waiting query and ping fails with `err`. */
  private fail(err: AdnlError): void {
    if (this.failure) return;
    this.failure = err;
    clearInterval(this.keepAlive);
    this.socket.destroy();
    for (const p of [...this.pending.values(), ...this.pings.values()]) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    this.pings.clear();
    for (const l of this.closeListeners.splice(0)) l(err);
  }
}
