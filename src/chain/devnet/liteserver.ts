// The devnet served over the liteserver protocol: an ArchiveLiteServer over the devnet's block archive on a
// loopback ADNL TCP port, following the devnet's head, with sendMessage feeding its mempool and its shard
// blocks shown as liteServer.nonfinal.getPendingShardBlocks answers until the masterchain commits them. The server key
// is kept in the devnet's data directory, so the printed global config stays valid across restarts.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatGlobalConfig } from '../liteserver/config-format.js';
import type { BlockArchive } from '../liteserver/server/archive.js';
import { ArchiveLiteServer } from '../liteserver/server/archive-server.js';
import { SandboxGetMethods } from '../liteserver/server/run-method.js';
import { LiteErrorCode, LiteServerError } from '../liteserver/tl/envelope.js';
import type { BlockIdExt } from '../liteserver/tl/lite-api.js';
import { AdnlServer, type AdnlServerOptions } from '../liteserver/transport/adnl-server.js';
import { ChainRejectedError, type NonFinalBlock } from '../source.js';
import { NonFinalBlocks } from '../liteserver/server/nonfinal.js';
import { loadBlockInfo } from '../tlb/block-info.js';
import { tlBlockIdOf } from '../liteserver/server/block-id.js';

/** The server's ed25519 seed, in the devnet's data directory. */
export const LITESERVER_KEY_FILE = 'liteserver.key';

/** What the liteserver needs of the running devnet besides its archive. */
export interface DevnetFeed {
  onMasterchainHead(listener: (seqno: number) => void): () => void;
  /** Queues an external message (BoC) for the next block; ChainRejectedError when the devnet refuses it. */
  sendExternalMessage(boc: Buffer): Promise<unknown>;
  /** Shard blocks shown before the masterchain block that commits them (served as liteServer.nonfinal.*). */
  onNonFinalBlock?(listener: (block: NonFinalBlock) => void): () => void;
}

export interface DevnetLiteServerOptions {
  archive: BlockArchive;
  feed: DevnetFeed;
  /** The devnet's data directory (the key lives there). */
  dataDir: string;
  /** TONWATCH_DEVNET_LITESERVER_PORT; 0 picks a free port. */
  port: number;
  /** Loopback unless told otherwise. */
  host?: string;
  log?: AdnlServerOptions['log'];
}

/** A server's secret key: read from the data directory, or made and written there (mode 0600) on first start. */
export function liteServerKey(dataDir: string, name = LITESERVER_KEY_FILE): Buffer {
  const file = join(dataDir, name);
  if (existsSync(file)) {
    const key = readFileSync(file);
    if (key.length !== 32) throw new Error(`${file}: a server key is 32 bytes, this file has ${key.length}; delete it to make a new key`);
    return key;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key, { mode: 0o600 });
  chmodSync(file, 0o600);
  return key;
}

export class DevnetLiteServer {
  /** The config's `dht` object: the devnet's DHT node once its overlay runs (src/chain/devnet/overlay.ts). */
  dht: unknown = undefined;

  private constructor(
    private readonly adnl: AdnlServer,
    readonly handler: ArchiveLiteServer,
    private readonly archive: BlockArchive,
    private readonly unsubscribe: () => void,
  ) {}

  static async start(options: DevnetLiteServerOptions): Promise<DevnetLiteServer> {
    const nonFinal = options.feed.onNonFinalBlock ? new NonFinalBlocks() : undefined;
    const handler = new ArchiveLiteServer(options.archive, {
      getMethods: new SandboxGetMethods(),
      nonFinal,
      messages: async (_message, cell) => {
        try {
          await options.feed.sendExternalMessage(cell.toBoc());
        } catch (e) {
          if (e instanceof ChainRejectedError) throw new LiteServerError(LiteErrorCode.error, `the devnet refused the message: ${e.message}`);
          throw e;
        }
      },
    });
    // Subscribed before listening: no head is missed between the two.
    const unsubscribeHead = options.feed.onMasterchainHead((seqno) => {
      handler.advance(seqno);
      // one tick at a time: each masterchain block commits every shard block shown before it
      nonFinal?.committed();
    });
    const unsubscribeNonFinal = options.feed.onNonFinalBlock?.((b) => {
      if (b.boc) nonFinal!.show({ id: b.id, signed: b.signed, boc: b.boc });
    });
    const unsubscribe = () => {
      unsubscribeHead();
      unsubscribeNonFinal?.();
    };
    handler.advance();
    try {
      const adnl = await AdnlServer.listen({
        secretKey: liteServerKey(options.dataDir), handler, host: options.host ?? '127.0.0.1', port: options.port, log: options.log,
      });
      return new DevnetLiteServer(adnl, handler, options.archive, unsubscribe);
    } catch (e) {
      unsubscribe();
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'EADDRINUSE') throw new Error(`TONWATCH_DEVNET_LITESERVER_PORT: port ${options.port} is in use`);
      throw e;
    }
  }

  get address(): { host: string; port: number } {
    return this.adnl.address;
  }

  get publicKey(): Buffer {
    return this.adnl.publicKey;
  }

  /**
   * A global.config.json naming this server; its init block is the newest key block served (block 1 until the
   * first validator rotation; the zero state only before block 1), as TON's own configs name a recent key block.
   */
  globalConfig(): string {
    const zero = this.archive.zeroStates().masterchain.ref;
    const zeroState: BlockIdExt = { workchain: -1, shard: -(1n << 63n), seqno: 0, rootHash: zero.rootHash, fileHash: zero.fileHash };
    return formatGlobalConfig({
      liteservers: [{ ...this.address, publicKey: this.publicKey }],
      anchor: { zeroState, initBlock: this.newestKeyBlock() ?? zeroState, hardforks: [] },
      dht: this.dht,
    });
  }

  private newestKeyBlock(): BlockIdExt | null {
    const head = this.archive.masterchainBlock(this.handler.head.seqno);
    if (!head) return null;
    const info = loadBlockInfo(head.root.refs[0]!.beginParse());
    const key = info.keyBlock ? head : info.prevKeyBlockSeqno > 0 ? this.archive.masterchainBlock(info.prevKeyBlockSeqno) : undefined;
    return key ? tlBlockIdOf(key) : null;
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.adnl.close();
  }
}
