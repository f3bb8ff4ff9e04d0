// Checks and builds the signed things the DHT carries (ton dht/dht-node.cpp, dht-types.cpp): nodes signed
// by their key (optionally prefixed by a 4-byte network id), key descriptions, and values under the
// three update rules. A check returns why a thing is refused, or null — never throws on hostile input.
import { tlRead, tlWrite } from '../../liteserver/tl/codec.js';
import { type Identity, keyId, sha256, signEd25519, verifyEd25519 } from '../adnl/crypto.js';
import { type AddressList, type PublicKey, ipv4String, publicKeyBytes, readAddressList, writeAddressList } from '../tl/adnl-types.js';
import { type DhtKey, type DhtKeyDescription, type DhtNode, type DhtValue, dhtKeyBytes, dhtNodeToSign, dhtValueToSign, keyDescriptionToSign } from '../tl/dht-types.js';
import { decodeOverlayNodes, overlayNodeToSign } from '../tl/overlay-types.js';
import { ID } from '../tl/schema.js';

export const MAX_VALUE_SIZE = 768;
const MAX_NAME = 127;
const MAX_IDX = 15;

/** The DHT id of a key: sha256 of the boxed dht.key. */
export const dhtKeyId = (k: DhtKey): Buffer => sha256(dhtKeyBytes(k));

/** The short id of any public key (sha256 of its boxed TL). */
export const shortId = (k: PublicKey): Buffer => sha256(publicKeyBytes(k));

/** A node's ADNL id and UDP address, once its signature is checked; or why it is refused. */
export function checkDhtNode(n: DhtNode, networkId = -1): { id: Buffer; publicKey: Buffer; host: string; port: number } | string {
  if (n.id.kind !== 'ed25519') return 'node key is not ed25519';
  let signature = n.signature;
  let signed: DhtNode = { ...n, signature: Buffer.alloc(0) };
  if (n.signature.length === 68) {
    const theirs = n.signature.readInt32LE(0);
    if (networkId !== -1 && theirs !== -1 && theirs !== networkId) return `node of network ${theirs}, not ${networkId}`;
    signature = n.signature.subarray(4);
    signed = { ...n, signature: n.signature.subarray(0, 4) };
  } else if (n.signature.length !== 64) return `node signature of ${n.signature.length} bytes`;
  if (!verifyEd25519(n.id.key, dhtNodeToSign(signed), signature)) return 'bad node signature';
  const udp = n.addrList.addrs.find((a) => a.kind === 'udp');
  if (!udp || udp.kind !== 'udp' || udp.port <= 0 || udp.port > 65535) return 'node has no UDP address';
  return { id: keyId(n.id.key), publicKey: n.id.key, host: ipv4String(udp.ip), port: udp.port };
}

/** A dht.node for our identity, signed (version: the address list version, as TON uses). */
export function signedDhtNode(me: Identity, addrList: AddressList, version = addrList.version): DhtNode {
  const node: DhtNode = { id: { kind: 'ed25519', key: me.publicKey }, addrList, version, signature: Buffer.alloc(0) };
  return { ...node, signature: signEd25519(me.secret, dhtNodeToSign(node)) };
}

/** Why a DHT value is refused, or null (dht-types.cpp DhtKeyDescription::check and the update rules). */
export function checkDhtValue(v: DhtValue, nowSeconds = Math.floor(Date.now() / 1000)): string | null {
  const d = v.key;
  if (d.key.name.length === 0 || d.key.name.length > MAX_NAME) return 'bad key name';
  if (d.key.idx < 0 || d.key.idx > MAX_IDX) return 'bad key index';
  if (!shortId(d.id).equals(d.key.id)) return 'key hash mismatch';
  if (v.value.length > MAX_VALUE_SIZE) return 'value too big';
  if (v.ttl <= nowSeconds) return 'value expired';
  const overlay = d.id.kind === 'overlay';
  if (overlay) {
    if (d.signature.length !== 0) return 'overlay key description carries a signature';
  } else if (d.id.kind !== 'ed25519' || !verifyEd25519(d.id.key, keyDescriptionToSign(d), d.signature)) return 'bad key description signature';
  switch (d.updateRule) {
    case 'signature':
      if (overlay || d.id.kind !== 'ed25519') return 'signature rule needs an ed25519 key';
      return verifyEd25519(d.id.key, dhtValueToSign(v), v.signature) ? null : 'bad value signature';
    case 'anybody':
      if (overlay) return 'anybody rule with an overlay key';
      return v.signature.length === 0 ? null : 'anybody value carries a signature';
    case 'overlayNodes':
      if (!overlay) return 'overlay nodes rule needs an overlay key';
      if (v.signature.length !== 0) return 'overlay nodes value carries a signature';
      return checkOverlayNodesValue(v.value, d.key.id);
  }
}

function checkOverlayNodesValue(value: Buffer, overlayId: Buffer): string | null {
  let nodes;
  try {
    nodes = decodeOverlayNodes(value);
  } catch {
    return 'bad overlay nodes value';
  }
  for (const n of nodes) {
    if (n.id.kind !== 'ed25519') return 'overlay node key is not ed25519';
    if (!n.overlay.equals(overlayId)) return 'overlay node of another overlay';
    if (!verifyEd25519(n.id.key, overlayNodeToSign(keyId(n.id.key), n.overlay, n.version), n.signature)) return 'bad overlay node signature';
  }
  return null;
}

/** The signed value announcing our address list under {our id, "address", 0} (what nodes publish). */
export function signedAddressValue(me: Identity, addrList: AddressList, ttl: number): DhtValue {
  const id: PublicKey = { kind: 'ed25519', key: me.publicKey };
  const key: DhtKeyDescription = { key: { id: me.id, name: Buffer.from('address'), idx: 0 }, id, updateRule: 'signature', signature: Buffer.alloc(0) };
  key.signature = signEd25519(me.secret, keyDescriptionToSign(key));
  const value: DhtValue = { key, value: tlWrite((w) => (w.id(ID['adnl.addressList']), writeAddressList(w, addrList))), ttl, signature: Buffer.alloc(0) };
  return { ...value, signature: signEd25519(me.secret, dhtValueToSign(value)) };
}

/** The address list inside an "address" value. */
export const addressListOf = (v: DhtValue): AddressList =>
  tlRead(v.value, (r) => (r.expectId(ID['adnl.addressList'], 'adnl.addressList'), readAddressList(r)), 'adnl.addressList');

/** The unsigned value listing an overlay's nodes under {overlay id, "nodes", 0}. */
export function overlayNodesValue(overlayKey: PublicKey, nodesBoxed: Buffer, ttl: number): DhtValue {
  const key: DhtKeyDescription = { key: { id: shortId(overlayKey), name: Buffer.from('nodes'), idx: 0 }, id: overlayKey, updateRule: 'overlayNodes', signature: Buffer.alloc(0) };
  return { key, value: nodesBoxed, ttl, signature: Buffer.alloc(0) };
}

/** XOR distance of two 256-bit ids, comparable as a big-endian byte string. */
export function distance(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(32);
  for (let i = 0; i < 32; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}
