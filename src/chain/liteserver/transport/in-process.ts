// A liteserver in this process behind the transport interface: each query is encoded to the bytes an ADNL
// connection would carry, answered by a LiteServerHandler through the same dispatch the ADNL server uses
// (answerLiteQuery), and the answer decoded back. No socket, no handshake, no keep-alive; the same typed
// replies, errors (LiteServerError, AdnlError) and recordings as a real connection.
import type { LiteMethodName, RequestOf, ResponseOf } from '../tl/lite-api.js';
import { decodeLiteAnswer, encodeLiteQuery } from '../tl/envelope.js';
import { answerLiteQuery, type LiteServerHandler } from './lite-handler.js';
import { AdnlError, CLOSED_BY_CLIENT, type LiteConnection, type LiteQueryOptions, type QueryRecorder } from './types.js';

export interface InProcessTransportOptions {
  /** How errors and recordings name this server (host:port in a pool). */
  name?: string;
  /** Default per-query timeout (a waitMasterchainSeqno prefix adds its own timeout on top). */
  queryTimeoutMs?: number;
  record?: QueryRecorder;
}

export class InProcessTransport implements LiteConnection {
  private closedBy: AdnlError | undefined;
  private readonly name: string;

  constructor(
    private readonly handler: LiteServerHandler,
    private readonly options: InProcessTransportOptions = {},
  ) {
    this.name = options.name ?? 'in-process';
  }

  get closed(): boolean {
    return this.closedBy !== undefined;
  }

  async query<M extends LiteMethodName>(method: M, request: RequestOf<M>, options: LiteQueryOptions = {}): Promise<ResponseOf<M>> {
    if (this.closedBy) throw this.closedBy;
    const query = encodeLiteQuery(method, request, options.wait);
    const timeoutMs = options.timeoutMs ?? (this.options.queryTimeoutMs ?? 10_000) + (options.wait?.timeoutMs ?? 0);
    const started = Date.now();
    const entry = { at: new Date(started).toISOString(), server: this.name, method, query: query.toString('base64') };
    let answer: Buffer;
    try {
      answer = await this.answer(query, timeoutMs, method);
    } catch (e) {
      this.options.record?.({ ...entry, error: (e as Error).message, errorKind: e instanceof AdnlError ? e.kind : undefined, ms: Date.now() - started });
      throw e;
    }
    this.options.record?.({ ...entry, answer: answer.toString('base64'), ms: Date.now() - started });
    return decodeLiteAnswer(method, answer);
  }

  async close(): Promise<void> {
    this.closedBy ??= new AdnlError('closed', this.name, CLOSED_BY_CLIENT);
  }

  /** The handler's answer bytes, or a timeout as a connection would report it. */
  private answer(query: Buffer, timeoutMs: number, method: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new AdnlError('timeout', this.name, `${method} timed out after ${timeoutMs} ms`)), timeoutMs);
      answerLiteQuery(this.handler, query).then(
        (answer) => {
          clearTimeout(timer);
          // A connection closed while the query was in flight gets no answer, as over TCP.
          if (this.closedBy) reject(this.closedBy);
          else resolve(answer);
        },
        (e: Error) => {
          clearTimeout(timer);
          reject(new AdnlError('protocol', this.name, `the handler failed: ${e.message}`));
        },
      );
    });
  }
}
