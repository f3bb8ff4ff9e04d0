// A member of one public overlay (ton overlay/overlay.cpp, overlay-peers.cpp, validator/full-node-shard.cpp):
// finds members through the DHT, exchanges overlay.getRandomPeers, keeps a bounded, refreshed peer set,
// answers what a member must (getRandomPeers, overlay.ping, tonNode.getCapabilities), and hands every
// valid tonNode.externalMessageBroadcast, de-duplicated by message hash, to a callback as a message BoC.
import { loadMessage } from '@ton/core';
import { randomInt } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { tlRead, tlWrite } from '../../liteserver/tl/codec.js';
import { singleRootBoc } from '../../message-boc.js';
import { type Identity, keyId, sha256, signEd25519, verifyEd25519 } from '../adnl/crypto.js';
import { type AdnlNode, type RemotePeer } from '../adnl/node.js';
import { type PeerAddress } from '../adnl/peer.js';
import { type DhtClient } from '../dht/client.js';
import { overlayNodesValue, shortId, signedAddressValue } from '../dht/values.js';
import { ipv4String, type PublicKey } from '../tl/adnl-types.js';
import {
  type OverlayBroadcast, type OverlayNode, decodeOverlayMessage, decodeOverlayNodes, decodeOverlayQuery, decodeTonNodeBroadcast,
  encodeCapabilities, encodeExternalMessageBroadcast, encodeGetRandomPeers, encodeOverlayMessage, encodeOverlayNodes, encodeOverlayQuery,
  overlayNodeToSign, readOverlayNode,
} from '../tl/overlay-types.js';
import { ID } from '../tl/schema.js';
import { BroadcastReceiver, type BroadcastLimits, DEFAULT_BROADCAST_LIMITS, type ReceivedBroadcast } from './broadcasts.js';
import { signedFecParts, signedSimpleBroadcast } from './send.js';

export interface ExternalMessage {
  /** The message BoC as broadcast (one root cell, an external-in message). */
  boc: Buffer;
  /** Hash of the message cell. */
  hash: Buffer;
  /** The broadcast's source key id and how it travelled. */
  source: Buffer;
  via: 'simple' | 'fec';
  receivedAt: number;
}

export interface OverlayMemberOptions {
  /** pub.overlay key of the overlay (shardOverlayKey for a shard's public overlay). */
  overlayKey: PublicKey;
  dht?: DhtClient;
  onExternalMessage(m: ExternalMessage): void;
  maxPeers?: number;
  /** Peers a broadcast we send goes to, and peers asked in each refresh. */
  neighbours?: number;
  limits?: Partial<BroadcastLimits>;
}

/** TON full node protocol version (validator/full-node.h PROTO_VERSION_MAJOR/MINOR). */
const CAPABILITIES = { versionMajor: 3, versionMinor: 2, flags: 0 };

interface Peer {
  node: OverlayNode;
  id: Buffer;
  lastSeen: number;
}

export class OverlayMember {
  readonly overlayId: Buffer;
  readonly receiver: BroadcastReceiver;
  readonly stats = { externalMessages: 0, duplicateMessages: 0, badMessages: 0, otherBroadcasts: 0, otherOverlay: 0, malformed: 0, refusedPeers: 0 };
  private readonly peers = new Map<string, Peer>();
  /** Hashes of the external messages heard, the oldest heard leaving first. */
  private readonly messages = new LRUCache<string, number>({ max: 100_000 });
  /** Versions of peers forgotten for silence: hearing the same node again second-hand does not revive it. The oldest forgotten leave first. */
  private readonly forgotten = new LRUCache<string, number>({ max: 4096 });
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly adnl: AdnlNode,
    private readonly options: OverlayMemberOptions,
  ) {
    this.overlayId = shortId(options.overlayKey);
    this.receiver = new BroadcastReceiver(this.overlayId, { ...DEFAULT_BROADCAST_LIMITS, ...options.limits }, (b) => this.onBroadcast(b));
    adnl.onMessage((peer, data) => this.onMessage(peer, data));
    adnl.onQuery((peer, q) => this.onQuery(peer, q));
  }

  get peerCount(): number {
    return this.peers.size;
  }

  /** Our overlay.node, signed over overlay.node.toSign{our ADNL id, overlay, version}. */
  self(): OverlayNode {
    const me: Identity = this.adnl.identity;
    const version = Math.floor(Date.now() / 1000);
    return {
      id: { kind: 'ed25519', key: me.publicKey }, overlay: this.overlayId, version,
      signature: signEd25519(me.secret, overlayNodeToSign(me.id, this.overlayId, version)),
    };
  }

  /** Adds a member after checking its signature; with an address it becomes reachable. False when refused. */
  addPeer(node: OverlayNode, address?: PeerAddress): boolean {
    if (node.id.kind !== 'ed25519' || !node.overlay.equals(this.overlayId)) return (this.stats.refusedPeers++, false);
    const id = keyId(node.id.key);
    if (id.equals(this.adnl.identity.id)) return false;
    if (!verifyEd25519(node.id.key, overlayNodeToSign(id, node.overlay, node.version), node.signature)) return (this.stats.refusedPeers++, false);
    const key = id.toString('hex');
    if ((this.forgotten.peek(key) ?? -Infinity) >= node.version) return false;
    this.forgotten.delete(key);
    const old = this.peers.get(key);
    if (!old && this.peers.size >= (this.options.maxPeers ?? 200)) {
      const [stalest] = [...this.peers.values()].sort((a, b) => a.lastSeen - b.lastSeen);
      if (stalest) this.peers.delete(stalest.id.toString('hex'));
    }
    // a newer version was signed recently: the peer is alive; the same node heard again second-hand is not news
    if (!old || old.node.version < node.version) this.peers.set(key, { node, id, lastSeen: Date.now() });
    if (address) this.adnl.addPeer(node.id.key, address);
    return true;
  }

  /** Finds members through the DHT ({overlay id, "nodes", 0}) and their addresses, then asks them for more. */
  async join(): Promise<void> {
    const dht = this.options.dht;
    if (!dht) throw new Error('overlay: joining needs a DHT client');
    const nodes = await dht.overlayNodes(this.options.overlayKey);
    await Promise.all(nodes.slice(0, 32).map(async (n) => {
      if (n.id.kind !== 'ed25519') return;
      const addr = await dht.resolveAddress(keyId(n.id.key)).catch(() => null);
      const udp = addr?.addrs.find((a) => a.kind === 'udp');
      if (udp?.kind === 'udp') this.addPeer(n, { host: ipv4String(udp.ip), port: udp.port });
    }));
    await this.refreshPeers();
  }

  /** Asks a few reachable peers for random peers (sending our own node and some we know). */
  async refreshPeers(): Promise<void> {
    const ask = this.neighbours(this.options.neighbours ?? 5);
    const mine = [this.self(), ...this.randomPeers(4).map((p) => p.node)];
    const query = encodeOverlayQuery(this.overlayId, encodeGetRandomPeers(mine));
    await Promise.all(ask.map(async (p) => {
      try {
        const nodes = decodeOverlayNodes(await this.adnl.query(p.id, query));
        p.lastSeen = Date.now();
        for (const n of nodes.slice(0, 32)) this.addPeer(n);
      } catch {
        this.stats.malformed++;
      }
    }));
  }

  /**
   * Makes us findable: our signed address list under {our id, "address", 0} and our node in the overlay's
   * {overlay id, "nodes", 0} value (merged with the members already there by the storing nodes).
   * Returns how many DHT nodes took each.
   */
  async announce(ttlSeconds = 3600): Promise<{ address: number; overlay: number }> {
    const dht = this.options.dht;
    if (!dht) throw new Error('overlay: announcing needs a DHT client');
    const ttl = Math.floor(Date.now() / 1000) + ttlSeconds;
    const address = await dht.store(signedAddressValue(this.adnl.identity, this.adnl.addressList(), ttl));
    const overlay = await dht.store(overlayNodesValue(this.options.overlayKey, encodeOverlayNodes([this.self()]), ttl));
    return { address, overlay };
  }

  /** Refreshes the peer set every `everyMs` and forgets peers silent for `peerTtlMs` (TON: 600 s). */
  start(everyMs = 30_000, peerTtlMs = 600_000): void {
    this.stop();
    this.timer = setInterval(() => {
      const cutoff = Date.now() - peerTtlMs;
      for (const [k, p] of this.peers) {
        if (p.lastSeen >= cutoff) continue;
        this.peers.delete(k);
        this.forgotten.set(k, p.node.version);
      }
      void this.refreshPeers();
    }, everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Broadcasts an external message BoC to our neighbours, simple or FEC as TON chooses by size. */
  broadcastExternalMessage(boc: Buffer): number {
    const payload = encodeExternalMessageBroadcast(boc);
    const parts: OverlayBroadcast[] = payload.length <= 768
      ? [signedSimpleBroadcast(this.adnl.identity, payload)]
      : signedFecParts(this.adnl.identity, payload, undefined, 0, this.receiverLimit());
    const to = this.neighbours(this.options.neighbours ?? 16);
    for (const p of to) for (const b of parts) this.adnl.send(p.id, encodeOverlayMessage(this.overlayId, b));
    return to.length;
  }

  private receiverLimit(): number {
    return this.options.limits?.maxFecDataSize ?? DEFAULT_BROADCAST_LIMITS.maxFecDataSize;
  }

  /** Reachable peers (ADNL knows their address), most recently seen first. */
  private neighbours(n: number): Peer[] {
    return [...this.peers.values()].filter((p) => this.adnl.reachable(p.id)).sort((a, b) => b.lastSeen - a.lastSeen).slice(0, n);
  }

  private randomPeers(n: number): Peer[] {
    const all = [...this.peers.values()];
    for (let i = all.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    return all.slice(0, n);
  }

  private onMessage(peer: RemotePeer, data: Buffer): void {
    const prefix = data.length >= 4 ? data.readUInt32LE(0) : 0;
    if (prefix !== ID['overlay.message'] && prefix !== ID['overlay.messageWithExtra']) return;
    let m;
    try {
      m = decodeOverlayMessage(data);
    } catch {
      return void this.stats.malformed++;
    }
    if (!m.overlay.equals(this.overlayId)) return void this.stats.otherOverlay++;
    const known = this.peers.get(peer.id.toString('hex'));
    if (known) known.lastSeen = Date.now();
    this.receiver.receive(peer.id, m.broadcast);
  }

  private onQuery(peer: RemotePeer, bytes: Buffer): Buffer | undefined {
    const prefix = bytes.length >= 4 ? bytes.readUInt32LE(0) : 0;
    if (prefix !== ID['overlay.query'] && prefix !== ID['overlay.queryWithExtra']) return undefined;
    let q;
    try {
      q = decodeOverlayQuery(bytes);
    } catch {
      return void this.stats.malformed++;
    }
    if (!q.overlay.equals(this.overlayId) || q.query.length < 4) return void this.stats.otherOverlay++;
    const fn = q.query.readUInt32LE(0);
    try {
      if (fn === ID['overlay.getRandomPeers']) {
        const theirs = tlRead(q.query, (r) => (r.uint32(), r.vector(readOverlayNode, 100)), 'overlay.getRandomPeers');
        // the asker is reachable at the address its packets came from; the rest only by id
        for (const n of theirs.slice(0, 32)) this.addPeer(n, n.id.kind === 'ed25519' && keyId(n.id.key).equals(peer.id) ? peer.address : undefined);
        return encodeOverlayNodes([this.self(), ...this.randomPeers(19).map((p) => p.node)]);
      }
      if (fn === ID['overlay.ping']) return tlWrite((w) => w.id(ID['overlay.pong']));
      if (fn === ID['tonNode.getCapabilities']) return encodeCapabilities(CAPABILITIES);
    } catch {
      return void this.stats.malformed++;
    }
    return undefined;
  }

  private onBroadcast(b: ReceivedBroadcast): void {
    const tn = (() => {
      try {
        return decodeTonNodeBroadcast(b.data);
      } catch {
        return null;
      }
    })();
    if (!tn) return void this.stats.malformed++;
    if (tn.kind !== 'externalMessage') return void this.stats.otherBroadcasts++;
    // TON de-duplicates external messages by sha256 of the BoC (full-node-shard.cpp)
    const key = sha256(tn.data).toString('hex');
    if (this.messages.has(key)) return void this.stats.duplicateMessages++;
    let hash: Buffer;
    try {
      const cell = singleRootBoc(tn.data);
      if (loadMessage(cell.beginParse()).info.type !== 'external-in') throw new Error('not an external-in message');
      hash = cell.hash();
    } catch {
      return void this.stats.badMessages++;
    }
    this.messages.set(key, Date.now());
    this.stats.externalMessages++;
    this.options.onExternalMessage({ boc: tn.data, hash, source: b.source, via: b.kind, receivedAt: Date.now() });
  }
}
