// DHT lookups (ton dht/dht-query.cpp): an iterative walk from the global config's static nodes toward a
// key — up to `a` queries in flight, the closest unasked nodes first, each answer's nodes checked before
// they are used — that stops at the first value whose signatures hold. Values are cached until their
// ttl; lies (bad signatures, malformed answers) are refused and counted, and the walk goes on.
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { type AdnlNode } from '../adnl/node.js';
import { type AddressList, type PublicKey } from '../tl/adnl-types.js';
import { type DhtKey, type DhtNode, type DhtValue, decodeDhtNodes, decodeValueResult, encodeDhtQuery } from '../tl/dht-types.js';
import { type OverlayNode, decodeOverlayNodes } from '../tl/overlay-types.js';
import { ID } from '../tl/schema.js';
import { NodeTable } from './table.js';
import { addressListOf, checkDhtValue, distance, dhtKeyId, shortId } from './values.js';

export interface DhtClientOptions {
  /** dht.static_nodes of the global config. */
  staticNodes: DhtNode[];
  /** Nodes asked for in each query, and kept as the closest set (config `k`, 6 on mainnet). */
  k?: number;
  /** Queries in flight (config `a`, 3 on mainnet). */
  a?: number;
  networkId?: number;
  queryTimeoutMs?: number;
  /** Most queries one walk may send. */
  maxQueries?: number;
  maxCachedValues?: number;
}

export class DhtClient {
  readonly table: NodeTable;
  readonly stats = { queries: 0, failedQueries: 0, malformedAnswers: 0, refusedValues: 0, cacheHits: 0 };
  /** Found values by key id, the oldest stored leaving first (a value found again moves to the newest end). */
  private readonly cache: LRUCache<string, DhtValue>;

  constructor(
    private readonly adnl: AdnlNode,
    private readonly options: DhtClientOptions,
  ) {
    this.cache = new LRUCache({ max: options.maxCachedValues ?? 1024 });
    this.table = new NodeTable(adnl, options.networkId ?? -1);
    for (const n of options.staticNodes) this.table.add(n);
  }

  /** Nodes refused for a bad signature or address (from the config or from answers). */
  get refusedNodes(): number {
    return this.table.refused;
  }

  /** The value stored under `key`, checked, or null when the walk finds none. */
  async findValue(key: DhtKey): Promise<DhtValue | null> {
    const id = dhtKeyId(key);
    const hex = id.toString('hex');
    const cached = this.cache.peek(hex);
    if (cached && cached.ttl > Date.now() / 1000) return (this.stats.cacheHits++, cached);
    let found: DhtValue | null = null;
    await this.walk(id, async (nodeId) => {
      const answer = decodeValueResult(await this.adnl.query(nodeId, encodeDhtQuery({ kind: 'findValue', key: id, k: this.k })));
      if (!answer.found) return answer.nodes;
      const bad = checkDhtValue(answer.value);
      if (bad || !dhtKeyId(answer.value.key.key).equals(id)) return (this.stats.refusedValues++, []);
      found = answer.value;
      return 'stop';
    });
    if (found) this.remember(hex, found);
    return found;
  }

  /** The `k` nodes closest to `keyId` the walk reaches. */
  async findNodes(keyId: Buffer): Promise<Buffer[]> {
    await this.walk(keyId, async (nodeId) => decodeDhtNodes(await this.adnl.query(nodeId, encodeDhtQuery({ kind: 'findNode', key: keyId, k: this.k }))));
    return this.table.closest(keyId, this.k).map((n) => n.id);
  }

  /**
   * Publishes a value: stores it on the `k` nodes closest to its key (found by a walk), as TON's
   * Dht::set_value does. Returns how many nodes confirmed with dht.stored.
   */
  async store(value: DhtValue): Promise<number> {
    const bad = checkDhtValue(value);
    if (bad) throw new Error(`DHT: refusing to store a value that does not check: ${bad}`);
    const id = dhtKeyId(value.key.key);
    const targets = await this.findNodes(id);
    const query = encodeDhtQuery({ kind: 'store', value });
    const acks = await Promise.all(targets.map(async (nodeId) => {
      try {
        const answer = await this.adnl.query(nodeId, query);
        return answer.length === 4 && answer.readUInt32LE(0) === ID['dht.stored'];
      } catch {
        this.stats.failedQueries++;
        return false;
      }
    }));
    this.remember(id.toString('hex'), value);
    return acks.filter(Boolean).length;
  }

  /** An ADNL node's published address list ({id, "address", 0}), or null. */
  async resolveAddress(adnlId: Buffer): Promise<AddressList | null> {
    const v = await this.findValue({ id: adnlId, name: Buffer.from('address'), idx: 0 });
    if (!v) return null;
    try {
      return addressListOf(v);
    } catch {
      return (this.stats.refusedValues++, null);
    }
  }

  /**
   * The members an overlay published ({overlay id, "nodes", 0}), signatures checked. Each DHT node keeps
   * its own merge of the lists stored on it, so the walk goes on past the first value and joins every
   * value it meets, the newest version of each member winning (TON's get_value_many).
   */
  async overlayNodes(overlayKey: PublicKey): Promise<OverlayNode[]> {
    const id = dhtKeyId({ id: shortId(overlayKey), name: Buffer.from('nodes'), idx: 0 });
    const byKey = new Map<string, OverlayNode>();
    await this.walk(id, async (nodeId) => {
      const answer = decodeValueResult(await this.adnl.query(nodeId, encodeDhtQuery({ kind: 'findValue', key: id, k: this.k })));
      if (!answer.found) return answer.nodes;
      if (checkDhtValue(answer.value) || !dhtKeyId(answer.value.key.key).equals(id)) return (this.stats.refusedValues++, []);
      for (const n of decodeOverlayNodes(answer.value.value)) {
        const k = n.id.kind === 'ed25519' ? n.id.key.toString('hex') : '';
        if ((byKey.get(k)?.version ?? -Infinity) < n.version) byKey.set(k, n);
      }
      return [];
    });
    return [...byKey.values()];
  }

  private get k(): number {
    return this.options.k ?? 6;
  }

  private remember(hex: string, v: DhtValue): void {
    this.cache.set(hex, v);
  }

  /**
   * Asks the closest unasked known nodes, `a` at a time, adding the nodes each answer names, until `ask`
   * says stop, nobody closer is left, or the query budget is spent.
   */
  private async walk(keyId: Buffer, ask: (nodeId: Buffer) => Promise<DhtNode[] | 'stop'>): Promise<void> {
    const asked = new Set<string>();
    const budget = this.options.maxQueries ?? 48;
    let stop = false;
    while (!stop && asked.size < budget) {
      const next = this.table.closest(keyId, this.table.size).filter((n) => !asked.has(n.id.toString('hex'))).slice(0, this.options.a ?? 3);
      // nobody left, or nobody closer than the k closest already asked
      if (next.length === 0) return;
      const kth = this.table.closest(keyId, this.k).filter((n) => asked.has(n.id.toString('hex')));
      if (kth.length >= this.k && Buffer.compare(distance(next[0]!.id, keyId), distance(kth[kth.length - 1]!.id, keyId)) > 0) return;
      await Promise.all(next.map(async (n) => {
        asked.add(n.id.toString('hex'));
        this.stats.queries++;
        try {
          const result = await ask(n.id);
          if (result === 'stop') stop = true;
          else for (const node of result) this.table.add(node);
        } catch (e) {
          if ((e as Error).name === 'AdnlQueryError') this.stats.failedQueries++;
          else this.stats.malformedAnswers++;
        }
      }));
    }
  }

  /** A random key (for refreshing the table with findNodes). */
  static randomKey(): Buffer {
    return randomBytes(32);
  }
}
