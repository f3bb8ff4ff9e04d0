// The overlay listener a liteserver source runs on a real network: one ADNL node on one UDP port, a DHT
// client walking from the global config's static nodes, and a member of the public overlay of workchain 0
// that hands every external message broadcast to a callback. It joins in the background and retries
// until it has peers; every limit (peers, bytes/s, messages/s, memory) is a setting.
import { type PeerAddress } from './adnl/peer.js';
import { AdnlNode } from './adnl/node.js';
import { DhtClient } from './dht/client.js';
import { dhtNodesFromConfig } from './dht/config-json.js';
import { type ExternalMessage, OverlayMember } from './member/member.js';
import { DEFAULT_BROADCAST_LIMITS } from './member/broadcasts.js';
import { shardOverlayKey } from './tl/overlay-types.js';

export interface OverlayLimits {
  /** Overlay peers kept (and ADNL peers, four times as many: DHT nodes are peers too). */
  maxPeers: number;
  /** Datagram bytes per second taken from all sources together. */
  bytesPerSecond: number;
  /** Overlay messages per second taken from each neighbour. */
  messagesPerSecond: number;
  /** Bytes the overlay may hold in FEC broadcasts being assembled and de-duplication tables. */
  memoryBytes: number;
}

export const DEFAULT_OVERLAY_LIMITS: OverlayLimits = { maxPeers: 64, bytesPerSecond: 8 << 20, messagesPerSecond: 200, memoryBytes: 64 << 20 };

export interface OverlayListenerOptions {
  /** The address other nodes reach us at (TONWATCH_OVERLAY_ADDRESS). */
  publicAddress: PeerAddress;
  /** Where the UDP socket binds. */
  listen: PeerAddress;
  /** The global config's `dht` object. */
  dht: unknown;
  /** The network's zero state file hash: part of the overlay's id. */
  zeroStateFileHash: Buffer;
  limits?: Partial<OverlayLimits>;
  seed?: Uint8Array;
  onExternalMessage(m: ExternalMessage): void;
  log?: (level: 'info' | 'warn' | 'debug', message: string, fields?: Record<string, unknown>) => void;
  /** How often the peer set is refreshed (and a join retried while it is empty). */
  refreshMs?: number;
}

/** What `/readyz`, `/metrics` and `chain info` show of the overlay. */
export interface OverlayStatus {
  address: string;
  peers: number;
  /** Why there are no peers yet (the last join's failure), or null. */
  waiting: string | null;
  broadcasts: { received: number; fecParts: number; valid: number; duplicate: number; dropped: number };
  fecDecodes: number;
  fecInFlight: number;
  externalMessages: number;
  duplicateMessages: number;
  badMessages: number;
  /** Datagrams refused before or during decryption, by reason. */
  packetsDropped: Record<string, number>;
  broadcastsDropped: Record<string, number>;
}

const sum = (o: Partial<Record<string, number>>): number => Object.values(o).reduce<number>((a, b) => a + (b ?? 0), 0);

/** FEC broadcasts a memory bound allows: each holds up to twice its data in symbols while it decodes. */
export function fecInFlightFor(memoryBytes: number, maxFecDataSize = DEFAULT_BROADCAST_LIMITS.maxFecDataSize): number {
  return Math.max(2, Math.min(64, Math.floor(memoryBytes / 2 / (2 * maxFecDataSize))));
}

export class OverlayListener {
  private waiting: string | null = 'joining';
  private timer?: NodeJS.Timeout;
  private joining = false;

  private constructor(
    readonly adnl: AdnlNode,
    readonly dht: DhtClient,
    readonly member: OverlayMember,
    private readonly options: OverlayListenerOptions,
  ) {}

  static async start(options: OverlayListenerOptions): Promise<OverlayListener> {
    const limits = { ...DEFAULT_OVERLAY_LIMITS, ...options.limits };
    const staticNodes = dhtNodesFromConfig(options.dht);
    const adnl = await AdnlNode.listen({
      seed: options.seed, host: options.listen.host, port: options.listen.port, publicAddress: options.publicAddress,
      maxPeers: limits.maxPeers * 4, bytesPerSecond: limits.bytesPerSecond,
    }).catch((err: NodeJS.ErrnoException) => {
      const where = `${options.listen.host}:${options.listen.port}`;
      if (err.code === 'EADDRINUSE' || err.code === 'EADDRNOTAVAIL') throw new Error(`TONWATCH_OVERLAY_LISTEN: cannot bind UDP ${where} (${err.code})`);
      throw err;
    });
    const dht = new DhtClient(adnl, { staticNodes });
    const member = new OverlayMember(adnl, {
      overlayKey: shardOverlayKey(0, -(1n << 63n), options.zeroStateFileHash),
      dht,
      onExternalMessage: options.onExternalMessage,
      maxPeers: limits.maxPeers,
      limits: {
        messagesPerSecond: limits.messagesPerSecond, burst: limits.messagesPerSecond * 2,
        maxFecInFlight: fecInFlightFor(limits.memoryBytes),
        // a remembered broadcast hash costs about 200 bytes in a Map; a quarter of the bound goes to them
        maxSeen: Math.max(1000, Math.floor(limits.memoryBytes / 4 / 200)),
      },
    });
    const listener = new OverlayListener(adnl, dht, member, options);
    if (staticNodes.length === 0) listener.waiting = 'the global config lists no dht.static_nodes: no overlay member can be found';
    const every = options.refreshMs ?? 30_000;
    member.start(every);
    listener.timer = setInterval(() => {
      if (member.peerCount === 0) void listener.join();
    }, Math.min(every, 5000));
    listener.timer.unref();
    void listener.join();
    return listener;
  }

  /** Finds the overlay's members through the DHT and announces us; retried by the timer while no peer is known. */
  async join(): Promise<void> {
    if (this.joining || this.dht.table.size === 0) return;
    this.joining = true;
    try {
      await this.member.join();
      await this.member.announce().catch((err) => this.options.log?.('debug', `overlay: announcing failed: ${(err as Error).message}`));
      this.waiting = this.member.peerCount > 0 ? null : 'no member of the overlay answered yet';
      if (!this.waiting) this.options.log?.('info', 'overlay joined', { peers: this.member.peerCount });
    } catch (err) {
      this.waiting = `joining the overlay failed: ${(err as Error).message}`;
    } finally {
      this.joining = false;
    }
  }

  status(): OverlayStatus {
    const r = this.member.receiver.stats;
    const m = this.member.stats;
    const a = this.adnl.address;
    return {
      address: `${this.options.publicAddress.host}:${this.options.publicAddress.port} (listening on ${a.host}:${a.port})`,
      peers: this.member.peerCount,
      waiting: this.member.peerCount > 0 ? null : this.waiting ?? 'no peers',
      broadcasts: { received: r.received, fecParts: r.fecParts, valid: r.valid, duplicate: r.duplicate + m.duplicateMessages, dropped: sum(r.dropped) + m.badMessages + m.malformed },
      fecDecodes: r.fecDecodes,
      fecInFlight: this.member.receiver.fecInFlight,
      externalMessages: m.externalMessages,
      duplicateMessages: m.duplicateMessages,
      badMessages: m.badMessages,
      packetsDropped: { ...this.adnl.stats.dropped } as Record<string, number>,
      broadcastsDropped: { ...r.dropped } as Record<string, number>,
    };
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.member.stop();
    await this.adnl.close();
  }
}
