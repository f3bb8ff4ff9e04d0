// ADNL-over-TCP liteserver: accepts the handshake for its ed25519 key, answers tcp.ping and a client's
// tcp.authentificate exchange, and hands each decoded liteServer query to a LiteServerHandler. The waitMasterchainSeqno prefix holds a query
// until the handler's head reaches the seqno. Handler failures become liteServer.error answers.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { LiteErrorCode, LiteServerError, decodeAdnlMessage, encodeAdnlMessage } from '../tl/envelope.js';
import {
  FrameDecoder, HANDSHAKE_BYTES, type SessionCiphers, ed25519KeyPair, encodeFrame, keyId, serverHandshake, sessionCiphers,
} from './frame.js';
import { answerLiteQuery, type LiteServerHandler } from './lite-handler.js';
import { ClientAuthServer } from './client-auth.js';

export { MAX_WAIT_MS, type LiteServerHandler, type LiteServerMethods } from './lite-handler.js';

/** Frames read ahead of handling before the server stops reading a connection. */
const MAX_BACKLOG_FRAMES = 1024;

export interface AdnlServerOptions {
  /** 32-byte ed25519 seed; clients connect with its public key. */
  secretKey: Uint8Array;
  handler: LiteServerHandler;
  host?: string;
  port?: number;
  /**
   * Told about refused handshakes and broken connections (nothing is thrown for a client's fault): `warn`
   * for a client speaking what this server does not (an unknown message, a bad authentication), else `debug`.
   */
  log?: (message: string, detail: AdnlLogDetail) => void;
  /** Queries of one connection handled at once (default 256); later ones wait their turn, in order. */
  maxQueriesPerConnection?: number;
  /** Unsent answer bytes above which a connection's further queries wait unread (default 32 MiB). */
  writeHighWaterBytes?: number;
}

export interface AdnlLogDetail {
  level: 'debug' | 'warn';
  /** The client's address, host:port. */
  peer: string;
}

export class AdnlServer {
  readonly publicKey: Buffer;
  private readonly keyId: Buffer;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly tcp: Server,
    private readonly options: AdnlServerOptions,
  ) {
    this.publicKey = ed25519KeyPair(options.secretKey).publicKey;
    this.keyId = keyId(this.publicKey);
  }

  static async listen(options: AdnlServerOptions): Promise<AdnlServer> {
    const tcp = createServer({ noDelay: true });
    const server = new AdnlServer(tcp, options);
    tcp.on('connection', (s) => server.accept(s));
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
        tcp.off('error', reject);
        resolve();
      });
    });
    return server;
  }

  get address(): { host: string; port: number } {
    const a = this.tcp.address() as AddressInfo;
    return { host: a.address, port: a.port };
  }

  get connectionCount(): number {
    return this.sockets.size;
  }

  /** Stops listening and drops every connection (queries in flight get no answer). */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.tcp.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    const peer = `${socket.remoteAddress}:${socket.remotePort}`;
    const log = (m: string, level: AdnlLogDetail['level'] = 'debug') => this.options.log?.(`liteserver connection ${peer}: ${m}`, { level, peer });
    const auth = new ClientAuthServer();
    const maxInFlight = this.options.maxQueriesPerConnection ?? 256;
    const highWater = this.options.writeHighWaterBytes ?? 32 << 20;
    let inFlight = 0;
    let head: Buffer = Buffer.alloc(0);
    let ciphers: SessionCiphers | undefined;
    const decoder = new FrameDecoder();
    // Frames read but not handled yet. They wait while the connection has its fill of queries in
    // flight or the client leaves answers unread; then the socket is not read either, so neither a
    // flood of queries nor a slow reader makes the server buffer without limit.
    const backlog: Buffer[] = [];
    let writeBlocked = false;
    const readControl = () => {
      const stop = writeBlocked || backlog.length >= MAX_BACKLOG_FRAMES;
      if (stop && !socket.isPaused()) socket.pause();
      else if (!stop && socket.isPaused()) socket.resume();
    };
    const send = (payload: Buffer) => {
      if (socket.destroyed) return;
      socket.write(ciphers!.tx.update(encodeFrame(payload)));
      if (!writeBlocked && socket.writableNeedDrain && socket.writableLength > highWater) {
        writeBlocked = true;
        readControl();
        socket.once('drain', () => {
          writeBlocked = false;
          pump();
        });
      }
    };
    const refuse = (why: string): false => {
      log(why, 'warn');
      socket.destroy();
      return false;
    };
    const handle = (payload: Buffer): boolean => {
      let msg;
      try {
        msg = decodeAdnlMessage(payload);
      } catch (e) {
        return refuse((e as Error).message);
      }
      switch (msg.kind) {
        case 'ping':
          send(encodeAdnlMessage({ kind: 'pong', randomId: msg.randomId }));
          return true;
        // TON's server closes the connection on a failed exchange (protoviolation); so does this one.
        case 'authenticate':
        case 'authComplete':
          try {
            if (msg.kind === 'authenticate') send(encodeAdnlMessage(auth.challenge(msg.nonce)));
            else log(`client authenticated as key id ${auth.complete(msg.publicKey, msg.signature).toString('hex')}`);
          } catch (e) {
            return refuse((e as Error).message);
          }
          return true;
        case 'query': {
          const queryId = msg.queryId;
          inFlight++;
          void answerLiteQuery(this.options.handler, msg.query)
            .then(
              (answer) => send(encodeAdnlMessage({ kind: 'answer', queryId, answer })),
              (e: Error) => log(`query failed: ${e.message}`),
            )
            .finally(() => {
              inFlight--;
              pump();
            });
          return true;
        }
        default:
          return refuse(`ADNL: a client sent ${msg.kind}, which only a server sends`);
      }
    };
    const pump = () => {
      while (!writeBlocked && inFlight < maxInFlight && backlog.length > 0) if (!handle(backlog.shift()!)) return;
      readControl();
    };
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', (e) => log(`socket error: ${e.message}`));
    socket.on('data', (chunk: Buffer) => {
      if (!ciphers) {
        head = Buffer.concat([head, chunk]);
        if (head.length < HANDSHAKE_BYTES) return;
        try {
          ciphers = sessionCiphers(serverHandshake(head.subarray(0, HANDSHAKE_BYTES), this.options.secretKey, this.keyId), 'server');
        } catch (e) {
          log(`handshake refused: ${(e as Error).message}`);
          return void socket.destroy();
        }
        send(Buffer.alloc(0));
        chunk = head.subarray(HANDSHAKE_BYTES);
        if (chunk.length === 0) return;
      }
      try {
        backlog.push(...decoder.push(ciphers.rx.update(chunk)));
      } catch (e) {
        log((e as Error).message, 'warn');
        return void socket.destroy();
      }
      pump();
    });
  }
}

/**
 * The served masterchain head for waitMasterchainSeqno: `advance` moves it, `wait` resolves when
 * it reaches a seqno or rejects with liteServer.error 652 after the timeout.
 */
export class MasterchainHead {
  private waiters = new Set<{ seqno: number; resolve(): void }>();

  constructor(private current = 0) {}

  get seqno(): number {
    return this.current;
  }

  advance(seqno: number): void {
    if (seqno <= this.current) return;
    this.current = seqno;
    for (const w of this.waiters) if (w.seqno <= seqno) {
      this.waiters.delete(w);
      w.resolve();
    }
  }

  wait(seqno: number, timeoutMs: number): Promise<void> {
    if (seqno <= this.current) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const w = {
        seqno,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(w);
        reject(new LiteServerError(LiteErrorCode.timeout, `masterchain block ${seqno} not reached within ${timeoutMs} ms (head ${this.current})`));
      }, timeoutMs);
      this.waiters.add(w);
    });
  }
}
