// The layers around a liteserver request: adnl.message.query{query_id, liteServer.query{data}},
// where data is [liteServer.waitMasterchainSeqno] + the boxed function; the answer is either the
// boxed reply or liteServer.error. tcp.ping/pong and the tcp.authentificate exchange share the same
// ADNL frames.
import { TLError, TLReader, tlIdHex, tlRead, tlWrite } from './codec.js';
import { ID } from './lite-schema.js';
import { type LiteMethodName, type RequestOf, type ResponseOf, METHOD_BY_ID, liteApi } from './lite-api.js';
import { describeId, liteError } from './lite-types.js';

/** A liteserver answered with liteServer.error. */
export class LiteServerError extends Error {
  override readonly name = 'LiteServerError';
  constructor(
    readonly code: number,
    readonly serverMessage: string,
    context = '',
  ) {
    super(`liteserver error ${code}${context ? ` (${context})` : ''}: ${serverMessage}`);
  }
}

/** Error codes liteservers use (ton common/errorcode.h); 651 = block not (yet) known, -400 = not ready. */
export const LiteErrorCode = {
  failure: 0,
  error: -400,
  protoViolation: -401,
  notReady: 651,
  timeout: 652,
  cancelled: 653,
} as const;

/** Long-poll prefix: the server answers only once its masterchain head reaches `seqno`. */
export interface WaitMasterchainSeqno {
  seqno: number;
  timeoutMs: number;
}

/** liteServer.query bytes for a method call, with the waitMasterchainSeqno prefix when given. */
export function encodeLiteQuery<M extends LiteMethodName>(method: M, request: RequestOf<M>, wait?: WaitMasterchainSeqno): Buffer {
  const data = tlWrite((w) => {
    if (wait) w.id(ID['liteServer.waitMasterchainSeqno']).int32(wait.seqno).int32(wait.timeoutMs);
    (liteApi[method].request as { write(w: unknown, v: unknown): void }).write(w, request);
  });
  return tlWrite((w) => w.id(ID['liteServer.query']).bytes(data));
}

export type DecodedLiteQuery = {
  [M in LiteMethodName]: { method: M; request: RequestOf<M>; wait?: WaitMasterchainSeqno };
}[LiteMethodName];

/** A function id the server does not serve; the server answers it with liteServer.error. */
export class UnknownLiteMethodError extends TLError {
  constructor(readonly id: number) {
    super(`unsupported liteserver method ${describeId(id)} (#${tlIdHex(id)})`);
  }
}

/** Server side: liteServer.query bytes → method, typed request and optional wait prefix. */
export function decodeLiteQuery(query: Uint8Array): DecodedLiteQuery {
  const data = tlRead(query, (r) => (r.expectId(ID['liteServer.query'], 'liteServer.query'), r.bytes()), 'liteServer.query');
  const r = new TLReader(data);
  let wait: WaitMasterchainSeqno | undefined;
  if (r.peekId() === ID['liteServer.waitMasterchainSeqno']) {
    r.uint32();
    wait = { seqno: r.int32(), timeoutMs: r.int32() };
  }
  const id = r.peekId();
  const method = METHOD_BY_ID.get(id);
  if (!method) throw new UnknownLiteMethodError(id);
  const request = liteApi[method].request.read(r);
  r.end(liteApi[method].name);
  return (wait ? { method, request, wait } : { method, request }) as DecodedLiteQuery;
}

/** Server side: the boxed reply of a method. */
export function encodeLiteAnswer<M extends LiteMethodName>(method: M, response: ResponseOf<M>): Buffer {
  return tlWrite((w) => (liteApi[method].response as { write(w: unknown, v: unknown): void }).write(w, response));
}

export function encodeLiteError(code: number, message: string): Buffer {
  return tlWrite((w) => liteError.write(w, { code, message }));
}

/** Client side: the reply to `method`, or LiteServerError when the server sent liteServer.error. */
export function decodeLiteAnswer<M extends LiteMethodName>(method: M, answer: Uint8Array): ResponseOf<M> {
  const r = new TLReader(answer);
  if (r.remaining >= 4 && r.peekId() === ID['liteServer.error']) {
    const e = liteError.read(r);
    throw new LiteServerError(e.code, e.message, method);
  }
  const res = liteApi[method].response.read(r);
  r.end(liteApi[method].response.name);
  return res as ResponseOf<M>;
}

export type AdnlMessage =
  | { kind: 'query'; queryId: Buffer; query: Buffer }
  | { kind: 'answer'; queryId: Buffer; answer: Buffer }
  | { kind: 'ping'; randomId: bigint }
  | { kind: 'pong'; randomId: bigint }
  // A client proving it holds an ed25519 key (ton adnl/adnl-ext-server.cpp):
  //   tcp.authentificate nonce:bytes = tcp.Message                                  client → server
  //   tcp.authentificationNonce nonce:bytes = tcp.Message                           server → client
  //   tcp.authentificationComplete key:PublicKey signature:bytes = tcp.Message      client → server,
  // the signature over client nonce ‖ server nonce; the server answers nothing to the last one.
  | { kind: 'authenticate'; nonce: Buffer }
  | { kind: 'authNonce'; nonce: Buffer }
  | { kind: 'authComplete'; publicKey: Buffer; signature: Buffer };

export function encodeAdnlMessage(m: AdnlMessage): Buffer {
  return tlWrite((w) => {
    switch (m.kind) {
      case 'query': return void w.id(ID['adnl.message.query']).int256(m.queryId).bytes(m.query);
      case 'answer': return void w.id(ID['adnl.message.answer']).int256(m.queryId).bytes(m.answer);
      case 'ping': return void w.id(ID['tcp.ping']).int64(m.randomId);
      case 'pong': return void w.id(ID['tcp.pong']).int64(m.randomId);
      case 'authenticate': return void w.id(ID['tcp.authentificate']).bytes(m.nonce);
      case 'authNonce': return void w.id(ID['tcp.authentificationNonce']).bytes(m.nonce);
      case 'authComplete': return void w.id(ID['tcp.authentificationComplete']).id(ID['pub.ed25519']).int256(m.publicKey).bytes(m.signature);
    }
  });
}

export function decodeAdnlMessage(payload: Uint8Array): AdnlMessage {
  return tlRead(payload, (r): AdnlMessage => {
    const id = r.uint32();
    if (id === ID['adnl.message.query']) return { kind: 'query', queryId: r.int256(), query: r.bytes() };
    if (id === ID['adnl.message.answer']) return { kind: 'answer', queryId: r.int256(), answer: r.bytes() };
    if (id === ID['tcp.ping']) return { kind: 'ping', randomId: r.int64() };
    if (id === ID['tcp.pong']) return { kind: 'pong', randomId: r.int64() };
    if (id === ID['tcp.authentificate']) return { kind: 'authenticate', nonce: r.bytes() };
    if (id === ID['tcp.authentificationNonce']) return { kind: 'authNonce', nonce: r.bytes() };
    if (id === ID['tcp.authentificationComplete']) {
      // PublicKey has other constructors (pub.aes, pub.unenc, pub.overlay); only ed25519 keys sign.
      const keyType = r.uint32();
      if (keyType !== ID['pub.ed25519']) throw new TLError(`ADNL: tcp.authentificationComplete with a ${describeId(keyType)} key, not pub.ed25519`);
      return { kind: 'authComplete', publicKey: r.int256(), signature: r.bytes() };
    }
    throw new TLError(`ADNL: unexpected message ${describeId(id)}`);
  }, 'ADNL message');
}
