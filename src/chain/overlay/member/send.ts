// Building the broadcasts a source signs (ton overlay/broadcast-simple.cpp, broadcast-fec.cpp): a simple
// broadcast for ≤ 768 bytes, else RaptorQ parts of 768 bytes, (size / 768 + 1) × 2 of them as TON sends.
import { type Identity, sha256, signEd25519 } from '../adnl/crypto.js';
import { TON_SYMBOL_SIZE, raptorqEncode, raptorqParams } from '../fec/raptorq.js';
import {
  type FecBroadcastPart, type FecType, type SimpleBroadcast, broadcastToSign, fecBroadcastHash, fecPartHash, simpleBroadcastHash,
} from '../tl/overlay-types.js';

export function signedSimpleBroadcast(me: Identity, data: Buffer, date = Math.floor(Date.now() / 1000), flags = 0): SimpleBroadcast {
  const hash = simpleBroadcastHash(me.id, data, flags);
  return {
    kind: 'broadcast', src: { kind: 'ed25519', key: me.publicKey }, certificate: { kind: 'empty' }, flags, data, date,
    signature: signEd25519(me.secret, broadcastToSign(hash, date)),
  };
}

export function signedFecParts(me: Identity, data: Buffer, date = Math.floor(Date.now() / 1000), flags = 0, maxDataSize?: number): FecBroadcastPart[] {
  const fec: FecType = { kind: 'raptorQ', ...raptorqParams(data.length, TON_SYMBOL_SIZE) };
  const count = (Math.floor(data.length / TON_SYMBOL_SIZE) + 1) * 2;
  const dataHash = sha256(data);
  const hash = fecBroadcastHash(me.id, fec, dataHash, data.length, flags);
  return raptorqEncode(data, TON_SYMBOL_SIZE, Math.max(0, count - fec.symbolsCount), maxDataSize).map((s) => ({
    kind: 'broadcastFec', src: { kind: 'ed25519', key: me.publicKey }, certificate: { kind: 'empty' }, dataHash, dataSize: data.length, flags,
    data: s.data, seqno: s.id, fec, date, signature: signEd25519(me.secret, broadcastToSign(fecPartHash(hash, sha256(s.data), s.id), date)),
  }));
}
