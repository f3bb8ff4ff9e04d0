// A minimal DHT node (ton dht/dht.cpp): answers dht.ping, findNode, findValue, store and
// getSignedAddressList over an ADNL node, learns the nodes that announce themselves (dht.query), and keeps
// checked values in a bounded store. Enough for a devnet's static DHT node.
import { type AdnlNode } from '../adnl/node.js';
import { type AddressList } from '../tl/adnl-types.js';
import { type DhtNode, type DhtValue, decodeDhtQuery, encodeDhtNodes, encodeValueResult, writeDhtNode } from '../tl/dht-types.js';
import { decodeOverlayNodes, encodeOverlayNodes } from '../tl/overlay-types.js';
import { ID } from '../tl/schema.js';
import { tlWrite } from '../../liteserver/tl/codec.js';
import { NodeTable } from './table.js';
import { checkDhtValue, dhtKeyId, signedDhtNode } from './values.js';

export interface DhtServerOptions {
  networkId?: number;
  maxValues?: number;
  maxNodes?: number;
}

export class DhtServer {
  readonly table: NodeTable;
  readonly stats = { queries: 0, stored: 0, refusedValues: 0, malformed: 0 };
  private readonly values = new Map<string, DhtValue>();

  constructor(
    private readonly adnl: AdnlNode,
    private readonly options: DhtServerOptions = {},
  ) {
    this.table = new NodeTable(adnl, options.networkId ?? -1, options.maxNodes ?? 256);
    adnl.onQuery((_peer, q) => this.answer(q));
  }

  /** Our own signed dht.node (what other nodes and global configs list). */
  self(): DhtNode {
    const list: AddressList = this.adnl.addressList();
    return signedDhtNode(this.adnl.identity, list);
  }

  /** Stores a value after checking it; false when refused. */
  store(v: DhtValue): boolean {
    if (checkDhtValue(v)) return (this.stats.refusedValues++, false);
    const key = dhtKeyId(v.key.key).toString('hex');
    const old = this.values.get(key);
    let next = v;
    if (old && v.key.updateRule === 'signature' && old.ttl >= v.ttl) return true;
    if (old && v.key.updateRule === 'overlayNodes') next = { ...v, value: mergeOverlayNodes(old.value, v.value) };
    if (!old && this.values.size >= (this.options.maxValues ?? 4096)) this.evictOne();
    this.values.set(key, next);
    this.stats.stored++;
    return true;
  }

  private evictOne(): void {
    let soonest: [string, DhtValue] | undefined;
    for (const e of this.values) if (!soonest || e[1].ttl < soonest[1].ttl) soonest = e;
    if (soonest) this.values.delete(soonest[0]);
  }

  private answer(bytes: Buffer): Buffer | undefined {
    let decoded;
    try {
      decoded = decodeDhtQuery(bytes);
    } catch {
      return undefined; // not a DHT query: another handler's (or nobody's)
    }
    this.stats.queries++;
    if (decoded.announced) this.table.add(decoded.announced);
    const q = decoded.query;
    switch (q.kind) {
      case 'ping': return tlWrite((w) => w.id(ID['dht.pong']).int64(q.randomId));
      case 'findNode': return encodeDhtNodes(this.table.closest(q.key, clampK(q.k)).map((n) => n.node));
      case 'findValue': {
        const v = this.values.get(q.key.toString('hex'));
        if (v && v.ttl > Date.now() / 1000) return encodeValueResult({ found: true, value: v });
        return encodeValueResult({ found: false, nodes: this.table.closest(q.key, clampK(q.k)).map((n) => n.node) });
      }
      case 'store':
        if (!this.store(q.value)) return undefined;
        return tlWrite((w) => w.id(ID['dht.stored']));
      case 'getSignedAddressList': return tlWrite((w) => (w.id(ID['dht.node']), writeDhtNode(w, this.self())));
    }
  }
}

const clampK = (k: number): number => Math.max(1, Math.min(k, 10));

/** overlayNodes update: the union by node key, the higher version winning, at most 32 nodes. */
function mergeOverlayNodes(oldValue: Buffer, newValue: Buffer): Buffer {
  const byKey = new Map<string, ReturnType<typeof decodeOverlayNodes>[number]>();
  for (const n of [...decodeOverlayNodes(oldValue), ...decodeOverlayNodes(newValue)]) {
    const k = n.id.kind === 'ed25519' ? n.id.key.toString('hex') : '';
    const have = byKey.get(k);
    if (!have || have.version < n.version) byKey.set(k, n);
  }
  return encodeOverlayNodes([...byKey.values()].slice(-32));
}
