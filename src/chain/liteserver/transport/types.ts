// The transport seam: anything that answers liteserver methods (one ADNL connection, the pool,
// a replayed recording, an in-process fake) implements LiteTransport.
import type { LiteMethodName, RequestOf, ResponseOf } from '../tl/lite-api.js';
import type { WaitMasterchainSeqno } from '../tl/envelope.js';

export interface LiteQueryOptions {
  /** Give up after this long (the default is the transport's). */
  timeoutMs?: number;
  /** Ask the server to answer only once its masterchain head reaches this seqno. */
  wait?: WaitMasterchainSeqno;
}

export interface LiteTransport {
  /** Calls a liteserver method; rejects with LiteServerError for liteServer.error, AdnlError for transport failures. */
  query<M extends LiteMethodName>(method: M, request: RequestOf<M>, options?: LiteQueryOptions): Promise<ResponseOf<M>>;
  close(): Promise<void>;
}

/** A transport to one server as the pool holds it: an ADNL connection, or another kind (`LitePoolOptions.connect`). */
export interface LiteConnection extends LiteTransport {
  /** Whether it has failed or been closed (the pool then reconnects). */
  readonly closed: boolean;
}

/** What went wrong on a connection: `kind` lets callers decide to retry elsewhere. */
export type AdnlErrorKind = 'connect' | 'handshake' | 'timeout' | 'closed' | 'protocol';

/** How a transport reports the queries its own close cut short (a recording's replay skips them). */
export const CLOSED_BY_CLIENT = 'connection closed by the client';

export class AdnlError extends Error {
  override readonly name = 'AdnlError';
  constructor(
    readonly kind: AdnlErrorKind,
    readonly server: string,
    detail: string,
  ) {
    super(`liteserver ${server}: ${detail}`);
  }
}

/** One query as the `record` option saves it (see docs/LITESERVER.md, "Recording a session"). */
export interface RecordedQuery {
  /** ISO time the query was sent. */
  at: string;
  /** host:port of the server. */
  server: string;
  method: LiteMethodName;
  /** The liteServer.query bytes sent, base64 (includes the waitMasterchainSeqno prefix if any). */
  query: string;
  /** The raw answer bytes, base64: the boxed reply or a liteServer.error. Absent when the transport failed. */
  answer?: string;
  /** The transport failure (timeout, closed connection), when there is no answer. */
  error?: string;
  /** AdnlError kind of that failure. */
  errorKind?: AdnlErrorKind;
  /** Milliseconds from send to answer or failure. */
  ms: number;
}

export type QueryRecorder = (entry: RecordedQuery) => void;
