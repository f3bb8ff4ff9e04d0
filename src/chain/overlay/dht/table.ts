// The DHT nodes one node knows, checked before they enter (signature, UDP address), bounded; the k
// closest to a key by XOR distance (ton dht/dht-bucket.cpp keeps k-buckets; a flat table does for us).
import { type AdnlNode } from '../adnl/node.js';
import { type DhtNode } from '../tl/dht-types.js';
import { checkDhtNode, distance } from './values.js';

export interface KnownNode {
  id: Buffer;
  node: DhtNode;
}

export class NodeTable {
  private readonly nodes = new Map<string, KnownNode>();
  /** Nodes refused for a bad signature or address. */
  refused = 0;

  constructor(
    private readonly adnl: AdnlNode,
    private readonly networkId = -1,
    private readonly max = 256,
  ) {}

  get size(): number {
    return this.nodes.size;
  }

  /** Adds a node after checking it; makes it reachable over ADNL. Returns its id, or null when refused. */
  add(node: DhtNode): Buffer | null {
    const checked = checkDhtNode(node, this.networkId);
    if (typeof checked === 'string') return (this.refused++, null);
    if (checked.id.equals(this.adnl.identity.id)) return null;
    const key = checked.id.toString('hex');
    const old = this.nodes.get(key);
    if (old && old.node.version > node.version) return checked.id;
    if (!old && this.nodes.size >= this.max) {
      // keep the table bounded: forget the node farthest from us
      const me = this.adnl.identity.id;
      const far = [...this.nodes.values()].sort((a, b) => Buffer.compare(distance(b.id, me), distance(a.id, me)))[0]!;
      if (Buffer.compare(distance(checked.id, me), distance(far.id, me)) >= 0) return checked.id;
      this.nodes.delete(far.id.toString('hex'));
    }
    this.nodes.set(key, { id: checked.id, node });
    this.adnl.addPeer(checked.publicKey, { host: checked.host, port: checked.port });
    return checked.id;
  }

  /** The `k` known nodes closest to `keyId`. */
  closest(keyId: Buffer, k: number): KnownNode[] {
    return [...this.nodes.values()].sort((a, b) => Buffer.compare(distance(a.id, keyId), distance(b.id, keyId))).slice(0, k);
  }
}
