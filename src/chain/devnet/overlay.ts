// The devnet on TON's gossip protocol, as a local TON network runs it: one ADNL node on a loopback UDP port
// that is both the network's static DHT node (listed in `tonwatch devnet global-config`) and a member of
// the public overlay of workchain 0, which broadcasts every external message the devnet admits (simple up
// to 768 bytes, RaptorQ FEC above, as validator/full-node-shard.cpp). Its key lives in the data directory.
import { AdnlNode } from '../overlay/adnl/node.js';
import { dhtNodeToConfig } from '../overlay/dht/config-json.js';
import { DhtServer } from '../overlay/dht/server.js';
import { overlayNodesValue, signedAddressValue } from '../overlay/dht/values.js';
import { OverlayMember } from '../overlay/member/member.js';
import { encodeExternalMessageBroadcast, encodeOverlayNodes, shardOverlayKey } from '../overlay/tl/overlay-types.js';
import { liteServerKey } from './liteserver.js';

/** The overlay node's ed25519 seed, in the devnet's data directory. */
export const OVERLAY_KEY_FILE = 'overlay.key';
/** How long the DHT records we publish for ourselves live; refreshed at half that. */
const RECORD_TTL_S = 3600;

export interface DevnetOverlayOptions {
  dataDir: string;
  /** TONWATCH_DEVNET_OVERLAY_PORT; 0 picks a free port. */
  port: number;
  host?: string;
  /** The devnet's masterchain zero state file hash (the overlay id depends on it). */
  zeroStateFileHash: Buffer;
}

export class DevnetOverlay {
  readonly stats = { broadcast: 0, fec: 0, noPeers: 0 };
  private readonly timer: NodeJS.Timeout;

  private constructor(
    readonly adnl: AdnlNode,
    readonly dhtServer: DhtServer,
    readonly member: OverlayMember,
    private readonly overlayKey: ReturnType<typeof shardOverlayKey>,
  ) {
    this.publish();
    this.timer = setInterval(() => this.publish(), (RECORD_TTL_S / 2) * 1000);
    this.timer.unref();
    member.start(10_000);
  }

  static async start(options: DevnetOverlayOptions): Promise<DevnetOverlay> {
    const host = options.host ?? '127.0.0.1';
    let adnl: AdnlNode;
    try {
      adnl = await AdnlNode.listen({ seed: liteServerKey(options.dataDir, OVERLAY_KEY_FILE), host, port: options.port });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new Error(`TONWATCH_DEVNET_OVERLAY_PORT: UDP port ${options.port} is in use`);
      throw e;
    }
    adnl.setPublicAddress(adnl.address);
    const dhtServer = new DhtServer(adnl);
    const overlayKey = shardOverlayKey(0, -(1n << 63n), options.zeroStateFileHash);
    // Broadcasts go to every member that joined (a devnet has few); nothing is received here.
    const member = new OverlayMember(adnl, { overlayKey, onExternalMessage: () => {}, neighbours: 256, maxPeers: 256 });
    return new DevnetOverlay(adnl, dhtServer, member, overlayKey);
  }

  get address(): { host: string; port: number } {
    return this.adnl.address;
  }

  /** The `dht` object of the devnet's global config: this node as the one static node. */
  globalConfigDht(): Record<string, unknown> {
    return { '@type': 'dht.config.global', k: 6, a: 3, static_nodes: { '@type': 'dht.nodes', nodes: [dhtNodeToConfig(this.dhtServer.self())] } };
  }

  /** Sends an admitted external message to the overlay's members; returns how many it went to. */
  broadcast(boc: Buffer): number {
    const to = this.member.broadcastExternalMessage(boc);
    this.stats.broadcast++;
    if (encodeExternalMessageBroadcast(boc).length > 768) this.stats.fec++;
    if (to === 0) this.stats.noPeers++;
    return to;
  }

  get peerCount(): number {
    return this.member.peerCount;
  }

  /** Our address and our overlay membership, stored in our own DHT node (as announce() does on a network). */
  private publish(): void {
    const ttl = Math.floor(Date.now() / 1000) + RECORD_TTL_S;
    this.dhtServer.store(signedAddressValue(this.adnl.identity, this.adnl.addressList(), ttl));
    this.dhtServer.store(overlayNodesValue(this.overlayKey, encodeOverlayNodes([this.member.self()]), ttl));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.member.stop();
    await this.adnl.close();
  }
}
