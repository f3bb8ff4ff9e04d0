// DHT values (ton_api.tl): signed nodes, keys, key descriptions, values and the findNode/findValue
// answers. A signature covers the object serialized with an empty signature (dht/dht-types.cpp).
import { TLError, type TLReader, type TLWriter, tlRead, tlWrite } from '../../liteserver/tl/codec.js';
import { type AddressList, type PublicKey, readAddressList, readPublicKey, writeAddressList, writePublicKey } from './adnl-types.js';
import { ID, describeOverlayId } from './schema.js';

const EMPTY = Buffer.alloc(0);

export interface DhtNode {
  id: PublicKey;
  addrList: AddressList;
  version: number;
  signature: Buffer;
}

/** Bare dht.node. */
export function writeDhtNode(w: TLWriter, n: DhtNode): void {
  writePublicKey(w, n.id);
  writeAddressList(w, n.addrList);
  w.int32(n.version).bytes(n.signature);
}

export function readDhtNode(r: TLReader): DhtNode {
  return { id: readPublicKey(r), addrList: readAddressList(r), version: r.int32(), signature: r.bytes() };
}

/** The boxed bytes a dht.node signature covers. */
export const dhtNodeToSign = (n: DhtNode): Buffer => tlWrite((w) => (w.id(ID['dht.node']), writeDhtNode(w, { ...n, signature: EMPTY })));

/** Bare dht.nodes (a vector of bare dht.node). The count bound keeps a hostile answer small. */
export const writeDhtNodes = (w: TLWriter, nodes: readonly DhtNode[]): void => void w.vector(nodes, writeDhtNode);
export const readDhtNodes = (r: TLReader): DhtNode[] => r.vector(readDhtNode, 64);

export interface DhtKey {
  id: Buffer;
  name: Buffer;
  idx: number;
}

export const writeDhtKey = (w: TLWriter, k: DhtKey): void => void w.int256(k.id).bytes(k.name).int32(k.idx);
export const readDhtKey = (r: TLReader): DhtKey => ({ id: r.int256(), name: r.bytes(), idx: r.int32() });

/** The DHT address of a key: sha256 of the boxed dht.key. */
export const dhtKeyBytes = (k: DhtKey): Buffer => tlWrite((w) => (w.id(ID['dht.key']), writeDhtKey(w, k)));

export type UpdateRule = 'signature' | 'anybody' | 'overlayNodes';
const RULE_ID: Record<UpdateRule, number> = {
  signature: ID['dht.updateRule.signature'],
  anybody: ID['dht.updateRule.anybody'],
  overlayNodes: ID['dht.updateRule.overlayNodes'],
};

function readUpdateRule(r: TLReader): UpdateRule {
  const id = r.uint32();
  for (const [rule, rid] of Object.entries(RULE_ID)) if (rid === id) return rule as UpdateRule;
  throw new TLError(`TL: expected dht.UpdateRule, got ${describeOverlayId(id)}`);
}

export interface DhtKeyDescription {
  key: DhtKey;
  id: PublicKey;
  updateRule: UpdateRule;
  signature: Buffer;
}

export function writeKeyDescription(w: TLWriter, d: DhtKeyDescription): void {
  writeDhtKey(w, d.key);
  writePublicKey(w, d.id);
  w.id(RULE_ID[d.updateRule]).bytes(d.signature);
}

export function readKeyDescription(r: TLReader): DhtKeyDescription {
  return { key: readDhtKey(r), id: readPublicKey(r), updateRule: readUpdateRule(r), signature: r.bytes() };
}

export const keyDescriptionToSign = (d: DhtKeyDescription): Buffer =>
  tlWrite((w) => (w.id(ID['dht.keyDescription']), writeKeyDescription(w, { ...d, signature: EMPTY })));

export interface DhtValue {
  key: DhtKeyDescription;
  value: Buffer;
  ttl: number;
  signature: Buffer;
}

/** Bare dht.value. */
export function writeDhtValue(w: TLWriter, v: DhtValue): void {
  writeKeyDescription(w, v.key);
  w.bytes(v.value).int32(v.ttl).bytes(v.signature);
}

export function readDhtValue(r: TLReader): DhtValue {
  return { key: readKeyDescription(r), value: r.bytes(), ttl: r.int32(), signature: r.bytes() };
}

export const dhtValueToSign = (v: DhtValue): Buffer => tlWrite((w) => (w.id(ID['dht.value']), writeDhtValue(w, { ...v, signature: EMPTY })));

export type DhtValueResult = { found: true; value: DhtValue } | { found: false; nodes: DhtNode[] };

export function writeValueResult(w: TLWriter, v: DhtValueResult): void {
  if (v.found) (w.id(ID['dht.valueFound']).id(ID['dht.value']), writeDhtValue(w, v.value));
  else (w.id(ID['dht.valueNotFound']), writeDhtNodes(w, v.nodes)); // dht.nodes is bare here
}

export function readValueResult(r: TLReader): DhtValueResult {
  const id = r.uint32();
  if (id === ID['dht.valueFound']) return (r.expectId(ID['dht.value'], 'dht.value'), { found: true, value: readDhtValue(r) });
  if (id === ID['dht.valueNotFound']) return { found: false, nodes: readDhtNodes(r) };
  throw new TLError(`TL: expected dht.ValueResult, got ${describeOverlayId(id)}`);
}

/** The DHT queries a node answers, boxed as sent. */
export type DhtQuery =
  | { kind: 'ping'; randomId: bigint }
  | { kind: 'findNode'; key: Buffer; k: number }
  | { kind: 'findValue'; key: Buffer; k: number }
  | { kind: 'store'; value: DhtValue }
  | { kind: 'getSignedAddressList' };

export function encodeDhtQuery(q: DhtQuery): Buffer {
  return tlWrite((w) => {
    switch (q.kind) {
      case 'ping': return void w.id(ID['dht.ping']).int64(q.randomId);
      case 'findNode': return void w.id(ID['dht.findNode']).int256(q.key).int32(q.k);
      case 'findValue': return void w.id(ID['dht.findValue']).int256(q.key).int32(q.k);
      case 'store': return void (w.id(ID['dht.store']), writeDhtValue(w, q.value));
      case 'getSignedAddressList': return void w.id(ID['dht.getSignedAddressList']);
    }
  });
}

/** A DHT query, optionally prefixed by dht.query{node} (a sender announcing itself, dht-remote-node.cpp). */
export function decodeDhtQuery(b: Uint8Array): { query: DhtQuery; announced?: DhtNode } {
  return tlRead(b, (r) => {
    let announced: DhtNode | undefined;
    if (r.peekId() === ID['dht.query']) (r.uint32(), (announced = readDhtNode(r)));
    const id = r.uint32();
    let query: DhtQuery;
    if (id === ID['dht.ping']) query = { kind: 'ping', randomId: r.int64() };
    else if (id === ID['dht.findNode']) query = { kind: 'findNode', key: r.int256(), k: r.int32() };
    else if (id === ID['dht.findValue']) query = { kind: 'findValue', key: r.int256(), k: r.int32() };
    else if (id === ID['dht.store']) query = { kind: 'store', value: readDhtValue(r) };
    else if (id === ID['dht.getSignedAddressList']) query = { kind: 'getSignedAddressList' };
    else throw new TLError(`DHT: unexpected query ${describeOverlayId(id)}`);
    return announced ? { query, announced } : { query };
  }, 'DHT query');
}

export const encodeDhtNodes = (nodes: readonly DhtNode[]): Buffer => tlWrite((w) => (w.id(ID['dht.nodes']), writeDhtNodes(w, nodes)));
export const decodeDhtNodes = (b: Uint8Array): DhtNode[] => tlRead(b, (r) => (r.expectId(ID['dht.nodes'], 'dht.nodes'), readDhtNodes(r)), 'dht.nodes');
export const encodeValueResult = (v: DhtValueResult): Buffer => tlWrite((w) => writeValueResult(w, v));
export const decodeValueResult = (b: Uint8Array): DhtValueResult => tlRead(b, readValueResult, 'dht.ValueResult');
