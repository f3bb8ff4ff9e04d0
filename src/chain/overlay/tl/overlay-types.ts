// Overlay values (ton_api.tl): member nodes, certificates, the overlay.Broadcast union (simple, FEC
// part, short FEC part, FEC receipts, unicast), the ids their signatures cover (overlay/broadcast-simple.cpp,
// broadcast-fec.cpp), fec.Type and the tonNode values the public shard overlay carries.
import { createHash } from 'node:crypto';
import { TLError, type TLReader, type TLWriter, tlRead, tlWrite } from '../../liteserver/tl/codec.js';
import { type PublicKey, readPublicKey, writePublicKey } from './adnl-types.js';
import { ID, describeOverlayId } from './schema.js';

const sha256 = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();
const EMPTY = Buffer.alloc(0);

export interface OverlayNode {
  id: PublicKey;
  overlay: Buffer;
  version: number;
  signature: Buffer;
}

/** Bare overlay.node. */
export function writeOverlayNode(w: TLWriter, n: OverlayNode): void {
  writePublicKey(w, n.id);
  w.int256(n.overlay).int32(n.version).bytes(n.signature);
}

export const readOverlayNode = (r: TLReader): OverlayNode => ({ id: readPublicKey(r), overlay: r.int256(), version: r.int32(), signature: r.bytes() });

/** What an overlay.node signature covers: overlay.node.toSign{adnl.id.short, overlay, version} (overlay-peers.cpp). */
export const overlayNodeToSign = (adnlShortId: Buffer, overlay: Buffer, version: number): Buffer =>
  tlWrite((w) => w.id(ID['overlay.node.toSign']).id(ID['adnl.id.short']).int256(adnlShortId).int256(overlay).int32(version));

/** Boxed overlay.nodes (the answer to getRandomPeers); the count bound keeps a hostile answer small. */
export const encodeOverlayNodes = (nodes: readonly OverlayNode[]): Buffer => tlWrite((w) => w.id(ID['overlay.nodes']).vector(nodes, writeOverlayNode));
export const decodeOverlayNodes = (b: Uint8Array): OverlayNode[] =>
  tlRead(b, (r) => (r.expectId(ID['overlay.nodes'], 'overlay.nodes'), r.vector(readOverlayNode, 100)), 'overlay.nodes');

/** overlay.getRandomPeers with our own known peers (a bare overlay.nodes). */
export const encodeGetRandomPeers = (peers: readonly OverlayNode[]): Buffer =>
  tlWrite((w) => w.id(ID['overlay.getRandomPeers']).vector(peers, writeOverlayNode));

export type Certificate =
  | { kind: 'empty' }
  | { kind: 'v1'; issuedBy: PublicKey; expireAt: number; maxSize: number; signature: Buffer }
  | { kind: 'v2'; issuedBy: PublicKey; expireAt: number; maxSize: number; flags: number; signature: Buffer };

export function writeCertificate(w: TLWriter, c: Certificate): void {
  if (c.kind === 'empty') return void w.id(ID['overlay.emptyCertificate']);
  w.id(ID[c.kind === 'v1' ? 'overlay.certificate' : 'overlay.certificateV2']);
  writePublicKey(w, c.issuedBy);
  w.int32(c.expireAt).int32(c.maxSize);
  if (c.kind === 'v2') w.int32(c.flags);
  w.bytes(c.signature);
}

export function readCertificate(r: TLReader): Certificate {
  const id = r.uint32();
  if (id === ID['overlay.emptyCertificate']) return { kind: 'empty' };
  if (id === ID['overlay.certificate']) return { kind: 'v1', issuedBy: readPublicKey(r), expireAt: r.int32(), maxSize: r.int32(), signature: r.bytes() };
  if (id === ID['overlay.certificateV2']) {
    return { kind: 'v2', issuedBy: readPublicKey(r), expireAt: r.int32(), maxSize: r.int32(), flags: r.int32(), signature: r.bytes() };
  }
  throw new TLError(`TL: expected overlay.Certificate, got ${describeOverlayId(id)}`);
}

export interface FecType {
  kind: 'raptorQ' | 'roundRobin' | 'online';
  dataSize: number;
  symbolSize: number;
  symbolsCount: number;
}

export function writeFecType(w: TLWriter, f: FecType): void {
  w.id(ID[`fec.${f.kind}`]).int32(f.dataSize).int32(f.symbolSize).int32(f.symbolsCount);
}

export function readFecType(r: TLReader): FecType {
  const id = r.uint32();
  const kind = id === ID['fec.raptorQ'] ? 'raptorQ' : id === ID['fec.roundRobin'] ? 'roundRobin' : id === ID['fec.online'] ? 'online' : undefined;
  if (!kind) throw new TLError(`TL: expected fec.Type, got ${describeOverlayId(id)}`);
  return { kind, dataSize: r.int32(), symbolSize: r.int32(), symbolsCount: r.int32() };
}

export interface SimpleBroadcast {
  kind: 'broadcast';
  src: PublicKey;
  certificate: Certificate;
  flags: number;
  data: Buffer;
  date: number;
  signature: Buffer;
}

export interface FecBroadcastPart {
  kind: 'broadcastFec';
  src: PublicKey;
  certificate: Certificate;
  dataHash: Buffer;
  dataSize: number;
  flags: number;
  data: Buffer;
  seqno: number;
  fec: FecType;
  date: number;
  signature: Buffer;
}

export type OverlayBroadcast =
  | SimpleBroadcast
  | FecBroadcastPart
  | { kind: 'broadcastFecShort'; src: PublicKey; certificate: Certificate; broadcastHash: Buffer; partDataHash: Buffer; seqno: number; signature: Buffer }
  | { kind: 'fecReceived'; hash: Buffer }
  | { kind: 'fecCompleted'; hash: Buffer }
  | { kind: 'unicast'; data: Buffer }
  | { kind: 'notFound' };

export function writeBroadcast(w: TLWriter, b: OverlayBroadcast): void {
  switch (b.kind) {
    case 'broadcast':
      w.id(ID['overlay.broadcast']);
      writePublicKey(w, b.src);
      writeCertificate(w, b.certificate);
      return void w.int32(b.flags).bytes(b.data).int32(b.date).bytes(b.signature);
    case 'broadcastFec':
      w.id(ID['overlay.broadcastFec']);
      writePublicKey(w, b.src);
      writeCertificate(w, b.certificate);
      w.int256(b.dataHash).int32(b.dataSize).int32(b.flags).bytes(b.data).int32(b.seqno);
      writeFecType(w, b.fec);
      return void w.int32(b.date).bytes(b.signature);
    case 'broadcastFecShort':
      w.id(ID['overlay.broadcastFecShort']);
      writePublicKey(w, b.src);
      writeCertificate(w, b.certificate);
      return void w.int256(b.broadcastHash).int256(b.partDataHash).int32(b.seqno).bytes(b.signature);
    case 'fecReceived': return void w.id(ID['overlay.fec.received']).int256(b.hash);
    case 'fecCompleted': return void w.id(ID['overlay.fec.completed']).int256(b.hash);
    case 'unicast': return void w.id(ID['overlay.unicast']).bytes(b.data);
    case 'notFound': return void w.id(ID['overlay.broadcastNotFound']);
  }
}

export function readBroadcast(r: TLReader): OverlayBroadcast {
  const id = r.uint32();
  switch (id) {
    case ID['overlay.broadcast']:
      return { kind: 'broadcast', src: readPublicKey(r), certificate: readCertificate(r), flags: r.int32(), data: r.bytes(), date: r.int32(), signature: r.bytes() };
    case ID['overlay.broadcastFec']:
      return {
        kind: 'broadcastFec', src: readPublicKey(r), certificate: readCertificate(r), dataHash: r.int256(), dataSize: r.int32(), flags: r.int32(),
        data: r.bytes(), seqno: r.int32(), fec: readFecType(r), date: r.int32(), signature: r.bytes(),
      };
    case ID['overlay.broadcastFecShort']:
      return { kind: 'broadcastFecShort', src: readPublicKey(r), certificate: readCertificate(r), broadcastHash: r.int256(), partDataHash: r.int256(), seqno: r.int32(), signature: r.bytes() };
    case ID['overlay.fec.received']: return { kind: 'fecReceived', hash: r.int256() };
    case ID['overlay.fec.completed']: return { kind: 'fecCompleted', hash: r.int256() };
    case ID['overlay.unicast']: return { kind: 'unicast', data: r.bytes() };
    case ID['overlay.broadcastNotFound']: return { kind: 'notFound' };
  }
  throw new TLError(`TL: expected overlay.Broadcast, got ${describeOverlayId(id)}`);
}

/** An overlay custom message: overlay.message{overlay} prefix, then the broadcast. */
export const encodeOverlayMessage = (overlay: Buffer, b: OverlayBroadcast): Buffer =>
  tlWrite((w) => (w.id(ID['overlay.message']).int256(overlay), writeBroadcast(w, b)));

/** The overlay id of an overlay.message / overlay.messageWithExtra prefix (the extra, a member certificate, is skipped). */
function readOverlayPrefix(r: TLReader, plain: number, withExtra: number): Buffer {
  const id = r.uint32();
  if (id !== plain && id !== withExtra) throw new TLError(`TL: expected an overlay prefix, got ${describeOverlayId(id)}`);
  const overlay = r.int256();
  if (id === withExtra && r.uint32() & 1) {
    const cert = r.uint32();
    if (cert === ID['overlay.memberCertificate']) (readPublicKey(r), r.int32(), r.int32(), r.int32(), r.bytes());
    else if (cert !== ID['overlay.emptyMemberCertificate']) throw new TLError(`TL: expected overlay.MemberCertificate, got ${describeOverlayId(cert)}`);
  }
  return overlay;
}

/** overlay.message{overlay} or overlay.messageWithExtra{overlay, extra} (overlay-manager.cpp accepts both), then the broadcast. */
export function decodeOverlayMessage(b: Uint8Array): { overlay: Buffer; broadcast: OverlayBroadcast } {
  return tlRead(b, (r) => ({ overlay: readOverlayPrefix(r, ID['overlay.message'], ID['overlay.messageWithExtra']), broadcast: readBroadcast(r) }), 'overlay message');
}

/** An overlay query: overlay.query{overlay} prefix, then the boxed function (returned raw). */
export const encodeOverlayQuery = (overlay: Buffer, query: Uint8Array): Buffer => tlWrite((w) => w.id(ID['overlay.query']).int256(overlay).raw(query));

export function decodeOverlayQuery(b: Uint8Array): { overlay: Buffer; query: Buffer } {
  return tlRead(b, (r) => ({ overlay: readOverlayPrefix(r, ID['overlay.query'], ID['overlay.queryWithExtra']), query: r.rest() }), 'overlay query');
}

/** Flag 1: any sender; the id then names no source (overlays.h BroadcastFlagAnySender). */
export const BROADCAST_FLAG_ANY_SENDER = 1;
const ZERO = Buffer.alloc(32);

/** sha256(overlay.broadcast.id{src short id, sha256(data), flags}) — the hash a simple broadcast is known by. */
export function simpleBroadcastHash(srcShortId: Buffer, data: Uint8Array, flags: number): Buffer {
  const src = flags & BROADCAST_FLAG_ANY_SENDER ? ZERO : srcShortId;
  return sha256(tlWrite((w) => w.id(ID['overlay.broadcast.id']).int256(src).int256(sha256(data)).int32(flags)));
}

/** sha256(overlay.broadcastFec.id{src, sha256(fec type), data hash, size, flags}). */
export function fecBroadcastHash(srcShortId: Buffer, fec: FecType, dataHash: Buffer, dataSize: number, flags: number): Buffer {
  const src = flags & BROADCAST_FLAG_ANY_SENDER ? ZERO : srcShortId;
  const type = sha256(tlWrite((w) => writeFecType(w, fec)));
  return sha256(tlWrite((w) => w.id(ID['overlay.broadcastFec.id']).int256(src).int256(type).int256(dataHash).int32(dataSize).int32(flags)));
}

/** sha256(overlay.broadcastFec.partId{broadcast hash, sha256(part), seqno}). */
export const fecPartHash = (broadcastHash: Buffer, partDataHash: Buffer, seqno: number): Buffer =>
  sha256(tlWrite((w) => w.id(ID['overlay.broadcastFec.partId']).int256(broadcastHash).int256(partDataHash).int32(seqno)));

/** overlay.broadcast.toSign{hash, date}: what the source signs (broadcast hash, or part hash for FEC). */
export const broadcastToSign = (hash: Buffer, date: number): Buffer => tlWrite((w) => w.id(ID['overlay.broadcast.toSign']).int256(hash).int32(date));

/** The bytes a certificate's issuer signs: overlay.certificateId{overlay, node, expire_at, max_size}. */
export function certificateToSign(overlay: Buffer, node: Buffer, c: Exclude<Certificate, { kind: 'empty' }>): Buffer {
  return tlWrite((w) => {
    w.id(ID[c.kind === 'v1' ? 'overlay.certificateId' : 'overlay.certificateIdV2']).int256(overlay).int256(node).int32(c.expireAt).int32(c.maxSize);
    if (c.kind === 'v2') w.int32(c.flags);
  });
}

/** The public overlay of a shard: pub.overlay{name = tonNode.shardPublicOverlayId}; its id is sha256 of that key. */
export function shardOverlayKey(workchain: number, shard: bigint, zeroStateFileHash: Buffer): PublicKey {
  const name = tlWrite((w) => w.id(ID['tonNode.shardPublicOverlayId']).int32(workchain).int64(shard).int256(zeroStateFileHash));
  return { kind: 'overlay', name };
}

export type TonNodeBroadcast = { kind: 'externalMessage'; data: Buffer } | { kind: 'other'; id: number };

/** tonNode.externalMessageBroadcast{tonNode.externalMessage{data}} (the inner type is bare). */
export const encodeExternalMessageBroadcast = (boc: Uint8Array): Buffer => tlWrite((w) => w.id(ID['tonNode.externalMessageBroadcast']).bytes(boc));

/** A broadcast's payload: the external message BoC, or the id of a broadcast we do not use. */
export function decodeTonNodeBroadcast(b: Uint8Array): TonNodeBroadcast {
  const id = b.length >= 4 ? Buffer.from(b.buffer, b.byteOffset, b.byteLength).readUInt32LE(0) : -1;
  if (id !== ID['tonNode.externalMessageBroadcast']) return { kind: 'other', id: id >>> 0 };
  return tlRead(b, (r) => (r.uint32(), { kind: 'externalMessage', data: r.bytes() }), 'tonNode.externalMessageBroadcast');
}

export interface Capabilities {
  versionMajor: number;
  versionMinor: number;
  flags: number;
}

export const encodeCapabilities = (c: Capabilities): Buffer =>
  tlWrite((w) => w.id(ID['tonNode.capabilities']).int32(c.versionMajor).int32(c.versionMinor).uint32(c.flags));
export const decodeCapabilities = (b: Uint8Array): Capabilities =>
  tlRead(b, (r) => (r.expectId(ID['tonNode.capabilities'], 'tonNode.capabilities'), { versionMajor: r.int32(), versionMinor: r.int32(), flags: r.uint32() }), 'tonNode.capabilities');

export { EMPTY as NO_SIGNATURE };
