// What serves the liteserver protocol, whatever carries it: a LiteServerHandler's methods, and the answer
// bytes of one liteServer.query (the boxed reply or a liteServer.error) as any server sends them. The ADNL
// server and the in-process transport both answer through answerLiteQuery.
import { TLError } from '../tl/codec.js';
import type { LiteMethodName, RequestOf, ResponseOf } from '../tl/lite-api.js';
import { LiteErrorCode, LiteServerError, UnknownLiteMethodError, decodeLiteQuery, encodeLiteAnswer, encodeLiteError } from '../tl/envelope.js';

export type LiteServerMethods = {
  [M in LiteMethodName]?: (request: RequestOf<M>) => ResponseOf<M> | Promise<ResponseOf<M>>;
};

export interface LiteServerHandler {
  /** The methods served; one that is missing is answered with liteServer.error -400. Throw LiteServerError to choose the code. */
  methods: LiteServerMethods;
  /**
   * Resolves once the served masterchain head reaches `seqno` (a query's waitMasterchainSeqno prefix).
   * Rejecting answers the query with that error. Without it, prefixed queries are refused.
   */
  waitMasterchainSeqno?(seqno: number, timeoutMs: number): Promise<void>;
}

/** Longest wait a prefix may ask for; public liteservers refuse more than about 10 s the same way. */
export const MAX_WAIT_MS = 60_000;

/** The answer bytes of one liteServer.query: the boxed reply, or a liteServer.error. */
export async function answerLiteQuery(handler: LiteServerHandler, query: Buffer): Promise<Buffer> {
  let decoded;
  try {
    decoded = decodeLiteQuery(query);
  } catch (e) {
    if (e instanceof UnknownLiteMethodError) return encodeLiteError(LiteErrorCode.protoViolation, e.message);
    if (e instanceof TLError) return encodeLiteError(LiteErrorCode.protoViolation, `malformed query: ${e.message}`);
    throw e;
  }
  const { method, request, wait } = decoded;
  try {
    if (wait) {
      const waitFor = handler.waitMasterchainSeqno;
      if (!waitFor) throw new LiteServerError(LiteErrorCode.error, 'waitMasterchainSeqno is not supported');
      if (wait.timeoutMs > MAX_WAIT_MS || wait.timeoutMs < 0) {
        throw new LiteServerError(LiteErrorCode.error, `waitMasterchainSeqno timeout ${wait.timeoutMs} ms is out of range (0..${MAX_WAIT_MS})`);
      }
      await waitFor.call(handler, wait.seqno, wait.timeoutMs);
    }
    const fn = handler.methods[method] as ((r: unknown) => unknown) | undefined;
    if (!fn) throw new LiteServerError(LiteErrorCode.error, `method liteServer.${method} is not served here`);
    const response = await fn.call(handler.methods, request);
    return encodeLiteAnswer(method, response as never);
  } catch (e) {
    if (e instanceof LiteServerError) return encodeLiteError(e.code, e.serverMessage);
    return encodeLiteError(LiteErrorCode.error, `liteServer.${method} failed: ${(e as Error).message}`);
  }
}
