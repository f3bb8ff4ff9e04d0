// ADNL-over-UDP values: public keys, addresses and address lists, the adnl.Message union and
// adnl.packetContents with its flag-gated fields (ton_api.tl; flag meanings from adnl/adnl-packet.h).
import { TLError, type TLReader, type TLWriter, tlRead, tlWrite } from '../../liteserver/tl/codec.js';
import { ID, describeOverlayId } from './schema.js';

export type PublicKey =
  | { kind: 'ed25519'; key: Buffer }
  | { kind: 'aes'; key: Buffer }
  | { kind: 'overlay'; name: Buffer }
  | { kind: 'unenc'; data: Buffer };

export function writePublicKey(w: TLWriter, k: PublicKey): void {
  switch (k.kind) {
    case 'ed25519': return void w.id(ID['pub.ed25519']).int256(k.key);
    case 'aes': return void w.id(ID['pub.aes']).int256(k.key);
    case 'overlay': return void w.id(ID['pub.overlay']).bytes(k.name);
    case 'unenc': return void w.id(ID['pub.unenc']).bytes(k.data);
  }
}

export function readPublicKey(r: TLReader): PublicKey {
  const id = r.uint32();
  if (id === ID['pub.ed25519']) return { kind: 'ed25519', key: r.int256() };
  if (id === ID['pub.aes']) return { kind: 'aes', key: r.int256() };
  if (id === ID['pub.overlay']) return { kind: 'overlay', name: r.bytes() };
  if (id === ID['pub.unenc']) return { kind: 'unenc', data: r.bytes() };
  throw new TLError(`TL: expected PublicKey, got ${describeOverlayId(id)}`);
}

/** The boxed TL bytes of a key; its sha256 is the key's short id (adnl.id.short, overlay id, channel id). */
export const publicKeyBytes = (k: PublicKey): Buffer => tlWrite((w) => writePublicKey(w, k));

export type AdnlAddress =
  | { kind: 'udp'; ip: number; port: number }
  | { kind: 'udp6'; ip: Buffer; port: number }
  | { kind: 'tunnel'; to: Buffer; pubkey: PublicKey }
  | { kind: 'reverse' }
  | { kind: 'quic'; ip: number; port: number };

function writeAddress(w: TLWriter, a: AdnlAddress): void {
  switch (a.kind) {
    case 'udp': return void w.id(ID['adnl.address.udp']).int32(a.ip | 0).int32(a.port);
    case 'udp6': return void w.id(ID['adnl.address.udp6']).int128(a.ip).int32(a.port);
    case 'tunnel': return void (w.id(ID['adnl.address.tunnel']).int256(a.to), writePublicKey(w, a.pubkey));
    case 'reverse': return void w.id(ID['adnl.address.reverse']);
    case 'quic': return void w.id(ID['adnl.address.quic']).int32(a.ip | 0).int32(a.port);
  }
}

function readAddress(r: TLReader): AdnlAddress {
  const id = r.uint32();
  // ip is a signed TL int holding the IPv4 address big-endian-first; we keep it unsigned.
  if (id === ID['adnl.address.udp']) return { kind: 'udp', ip: r.int32() >>> 0, port: r.int32() };
  if (id === ID['adnl.address.udp6']) return { kind: 'udp6', ip: r.int128(), port: r.int32() };
  if (id === ID['adnl.address.tunnel']) return { kind: 'tunnel', to: r.int256(), pubkey: readPublicKey(r) };
  if (id === ID['adnl.address.reverse']) return { kind: 'reverse' };
  if (id === ID['adnl.address.quic']) return { kind: 'quic', ip: r.int32() >>> 0, port: r.int32() };
  throw new TLError(`TL: expected adnl.Address, got ${describeOverlayId(id)}`);
}

export interface AddressList {
  addrs: AdnlAddress[];
  version: number;
  reinitDate: number;
  priority: number;
  expireAt: number;
}

/** Bare adnl.addressList (every use in the schema is the bare type). */
export function writeAddressList(w: TLWriter, l: AddressList): void {
  w.vector(l.addrs, writeAddress).int32(l.version).int32(l.reinitDate).int32(l.priority).int32(l.expireAt);
}

export function readAddressList(r: TLReader): AddressList {
  return { addrs: r.vector(readAddress, 16), version: r.int32(), reinitDate: r.int32(), priority: r.int32(), expireAt: r.int32() };
}

/** `a.b.c.d` of an adnl.address.udp ip (the int's value is the address read as a big-endian number). */
export const ipv4String = (ip: number): string => [24, 16, 8, 0].map((s) => (ip >>> s) & 0xff).join('.');
export const ipv4Number = (s: string): number => s.split('.').reduce((n, part) => (n * 256 + Number(part)) >>> 0, 0);

export type AdnlMessage =
  | { kind: 'createChannel'; key: Buffer; date: number }
  | { kind: 'confirmChannel'; key: Buffer; peerKey: Buffer; date: number }
  | { kind: 'custom'; data: Buffer }
  | { kind: 'nop' }
  | { kind: 'reinit'; date: number }
  | { kind: 'query'; queryId: Buffer; query: Buffer }
  | { kind: 'answer'; queryId: Buffer; answer: Buffer }
  | { kind: 'part'; hash: Buffer; totalSize: number; offset: number; data: Buffer };

export function writeAdnlMessage(w: TLWriter, m: AdnlMessage): void {
  switch (m.kind) {
    case 'createChannel': return void w.id(ID['adnl.message.createChannel']).int256(m.key).int32(m.date);
    case 'confirmChannel': return void w.id(ID['adnl.message.confirmChannel']).int256(m.key).int256(m.peerKey).int32(m.date);
    case 'custom': return void w.id(ID['adnl.message.custom']).bytes(m.data);
    case 'nop': return void w.id(ID['adnl.message.nop']);
    case 'reinit': return void w.id(ID['adnl.message.reinit']).int32(m.date);
    case 'query': return void w.id(ID['adnl.message.query']).int256(m.queryId).bytes(m.query);
    case 'answer': return void w.id(ID['adnl.message.answer']).int256(m.queryId).bytes(m.answer);
    case 'part': return void w.id(ID['adnl.message.part']).int256(m.hash).int32(m.totalSize).int32(m.offset).bytes(m.data);
  }
}

export function readAdnlMessage(r: TLReader): AdnlMessage {
  const id = r.uint32();
  switch (id) {
    case ID['adnl.message.createChannel']: return { kind: 'createChannel', key: r.int256(), date: r.int32() };
    case ID['adnl.message.confirmChannel']: return { kind: 'confirmChannel', key: r.int256(), peerKey: r.int256(), date: r.int32() };
    case ID['adnl.message.custom']: return { kind: 'custom', data: r.bytes() };
    case ID['adnl.message.nop']: return { kind: 'nop' };
    case ID['adnl.message.reinit']: return { kind: 'reinit', date: r.int32() };
    case ID['adnl.message.query']: return { kind: 'query', queryId: r.int256(), query: r.bytes() };
    case ID['adnl.message.answer']: return { kind: 'answer', queryId: r.int256(), answer: r.bytes() };
    case ID['adnl.message.part']: return { kind: 'part', hash: r.int256(), totalSize: r.int32(), offset: r.int32(), data: r.bytes() };
  }
  throw new TLError(`TL: expected adnl.Message, got ${describeOverlayId(id)}`);
}

/** Flag bits of adnl.packetContents (adnl/adnl-packet.h). */
export const PacketFlag = {
  from: 0x1,
  fromShort: 0x2,
  oneMessage: 0x4,
  messages: 0x8,
  address: 0x10,
  priorityAddress: 0x20,
  seqno: 0x40,
  confirmSeqno: 0x80,
  recvAddrListVersion: 0x100,
  recvPriorityAddrListVersion: 0x200,
  reinitDate: 0x400,
  signature: 0x800,
} as const;
const ALL_FLAGS = 0xfff;

/** adnl.packetContents; a field is present when set (the flags word is derived, never stored). */
export interface PacketContents {
  rand1: Buffer;
  from?: PublicKey;
  fromShort?: Buffer;
  messages: AdnlMessage[];
  address?: AddressList;
  priorityAddress?: AddressList;
  seqno?: bigint;
  confirmSeqno?: bigint;
  recvAddrListVersion?: number;
  recvPriorityAddrListVersion?: number;
  reinitDate?: number;
  dstReinitDate?: number;
  signature?: Buffer;
  rand2: Buffer;
}

function packetFlags(p: PacketContents): number {
  let f = 0;
  if (p.from) f |= PacketFlag.from;
  if (p.fromShort) f |= PacketFlag.fromShort;
  if (p.messages.length === 1) f |= PacketFlag.oneMessage;
  else if (p.messages.length > 1) f |= PacketFlag.messages;
  if (p.address) f |= PacketFlag.address;
  if (p.priorityAddress) f |= PacketFlag.priorityAddress;
  if (p.seqno !== undefined) f |= PacketFlag.seqno;
  if (p.confirmSeqno !== undefined) f |= PacketFlag.confirmSeqno;
  if (p.recvAddrListVersion !== undefined) f |= PacketFlag.recvAddrListVersion;
  if (p.recvPriorityAddrListVersion !== undefined) f |= PacketFlag.recvPriorityAddrListVersion;
  if (p.reinitDate !== undefined) f |= PacketFlag.reinitDate;
  if (p.signature) f |= PacketFlag.signature;
  return f;
}

export function writePacketContents(w: TLWriter, p: PacketContents): void {
  const f = packetFlags(p);
  w.id(ID['adnl.packetContents']).bytes(p.rand1).uint32(f);
  if (p.from) writePublicKey(w, p.from);
  if (p.fromShort) w.id(ID['adnl.id.short']).int256(p.fromShort);
  if (f & PacketFlag.oneMessage) writeAdnlMessage(w, p.messages[0]!);
  if (f & PacketFlag.messages) w.vector(p.messages, writeAdnlMessage);
  if (p.address) writeAddressList(w, p.address);
  if (p.priorityAddress) writeAddressList(w, p.priorityAddress);
  if (p.seqno !== undefined) w.int64(p.seqno);
  if (p.confirmSeqno !== undefined) w.int64(p.confirmSeqno);
  if (p.recvAddrListVersion !== undefined) w.int32(p.recvAddrListVersion);
  if (p.recvPriorityAddrListVersion !== undefined) w.int32(p.recvPriorityAddrListVersion);
  if (p.reinitDate !== undefined) w.int32(p.reinitDate).int32(p.dstReinitDate ?? 0);
  if (p.signature) w.bytes(p.signature);
  w.bytes(p.rand2);
}

export function readPacketContents(r: TLReader): PacketContents {
  r.expectId(ID['adnl.packetContents'], 'adnl.packetContents');
  const rand1 = r.bytes();
  const f = r.uint32();
  if ((f & ALL_FLAGS) !== f) throw new TLError(`ADNL packet: unknown flags ${f.toString(16)}`);
  if (f & PacketFlag.oneMessage && f & PacketFlag.messages) throw new TLError('ADNL packet: both one-message and messages flags');
  const p: PacketContents = { rand1, messages: [], rand2: Buffer.alloc(0) };
  if (f & PacketFlag.from) p.from = readPublicKey(r);
  if (f & PacketFlag.fromShort) (r.expectId(ID['adnl.id.short'], 'adnl.id.short'), (p.fromShort = r.int256()));
  if (f & PacketFlag.oneMessage) p.messages = [readAdnlMessage(r)];
  if (f & PacketFlag.messages) p.messages = r.vector(readAdnlMessage, 64);
  if (f & PacketFlag.address) p.address = readAddressList(r);
  if (f & PacketFlag.priorityAddress) p.priorityAddress = readAddressList(r);
  if (f & PacketFlag.seqno) p.seqno = r.int64();
  if (f & PacketFlag.confirmSeqno) p.confirmSeqno = r.int64();
  if (f & PacketFlag.recvAddrListVersion) p.recvAddrListVersion = r.int32();
  if (f & PacketFlag.recvPriorityAddrListVersion) p.recvPriorityAddrListVersion = r.int32();
  if (f & PacketFlag.reinitDate) (p.reinitDate = r.int32()), (p.dstReinitDate = r.int32());
  if (f & PacketFlag.signature) p.signature = r.bytes();
  p.rand2 = r.bytes();
  return p;
}

export const encodePacketContents = (p: PacketContents): Buffer => tlWrite((w) => writePacketContents(w, p));
export const decodePacketContents = (b: Uint8Array): PacketContents => tlRead(b, readPacketContents, 'adnl.packetContents');

/** The bytes a packet's signature covers: the packet without its signature (adnl-packet.cpp to_sign). */
export const packetToSign = (p: PacketContents): Buffer => encodePacketContents({ ...p, signature: undefined });
