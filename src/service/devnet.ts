// The devnet as a service component: its control routes (`/devnet/…`), a health fact, and its liteserver
// when TONWATCH_DEVNET_LITESERVER_PORT is set. Only the service knows the embedded devnet; every other
// component sees ChainSource and the profile.
import type { FastifyContextConfig } from 'fastify';
import type { Logger } from 'pino';
import { DevnetChain } from '../chain/devnet/chain.js';
import { DevnetControl } from '../chain/devnet/control.js';
import { devnetRoutes } from '../chain/devnet/http.js';
import { DevnetLiteServer } from '../chain/devnet/liteserver.js';
import { DevnetOverlay } from '../chain/devnet/overlay.js';
import type { Config } from '../config.js';
import { devnetDataDir } from './chain.js';
import type { Component, ComponentFactory } from './component.js';

/** Most blocks the head may lag behind the timer before /readyz reports the devnet unhealthy. */
const MAX_MISSED_BLOCKS = 10;

/**
 * The service component of a started devnet chain: the control routes and a health fact. With any
 * other chain source (liteserver, replay) it is an empty component: the control API exists only on
 * the devnet.
 */
export const devnetComponent: ComponentFactory = (ctx) => {
  const chain = ctx.source;
  if (!(chain instanceof DevnetChain) || !chain.directory) return { name: 'devnet' };
  return devnetComponentOf(chain, ctx.config, ctx.logger);
};

/** The devnet component of a started chain (also what `tonwatch devnet serve` runs alone). */
export function devnetComponentOf(
  chain: DevnetChain,
  config: Pick<Config, 'devnetControl' | 'devnetLiteserverPort' | 'devnetOverlayPort' | 'dataDir'>,
  logger: Logger,
): Component {
  if (!chain.directory) throw new Error('devnet genesis did not run');
  const control = new DevnetControl(chain, chain.directory);
  // Sending and paying move devnet funds: by default only callers on this machine do it without a key.
  const mode = config.devnetControl;
  const routeConfig: FastifyContextConfig = mode === 'open' ? {} : { auth: { scope: 'admin', localWithoutKey: mode === 'local' } };
  let liteserver: DevnetLiteServer | null = null;
  let overlay: DevnetOverlay | null = null;
  let unsubscribe = () => {};
  const port = config.devnetLiteserverPort;
  return {
    name: 'devnet',
    routes: async (app) => {
      await app.register(devnetRoutes, { control, routeConfig, liteserver: () => liteserver });
    },
    start: async () => {
      if (port === undefined) return;
      liteserver = await DevnetLiteServer.start({
        archive: chain.archive(), feed: chain, dataDir: devnetDataDir(config), port,
        log: (message, { level, peer }) => logger[level]({ component: 'devnet-liteserver', peer }, message),
      });
      logger.info({ ...liteserver.address, publicKey: liteserver.publicKey.toString('base64') }, 'devnet liteserver listening');
      // With the liteserver, the devnet joins TON's gossip protocol: a DHT node and the public overlay.
      overlay = await DevnetOverlay.start({
        dataDir: devnetDataDir(config), port: config.devnetOverlayPort ?? 0, zeroStateFileHash: chain.archive().zeroStates().masterchain.ref.fileHash,
      });
      liteserver.dht = overlay.globalConfigDht();
      const broadcasting = overlay;
      unsubscribe = chain.onPendingMessage((m) => broadcasting.broadcast(Buffer.from(m.boc, 'base64')));
      logger.info({ ...overlay.address }, 'devnet DHT node and overlay member listening (UDP)');
    },
    stop: async () => {
      unsubscribe();
      await overlay?.close();
      overlay = null;
      await liteserver?.close();
      liteserver = null;
    },
    banner: () => liteserver ? [
      `  liteserver       ${liteserver.address.host}:${liteserver.address.port}  public key ${liteserver.publicKey.toString('base64')}`,
      ...(overlay ? [`  DHT + overlay    ${overlay.address.host}:${overlay.address.port} (UDP)  external messages broadcast to workchain 0's public overlay`] : []),
      '  global config    npm run -s tonwatch -- devnet global-config > devnet.global.config.json',
    ] : [],
    health: async () => {
      const head = await chain.getMasterchainHead();
      const ageMs = Date.now() - head.genUtime * 1000;
      const ok = chain.manual || ageMs < Math.max(MAX_MISSED_BLOCKS * chain.blockIntervalMs, 5000);
      return {
        ok, masterchain_seqno: head.seqno, head_age_ms: ageMs, mempool: chain.mempoolSize, in_flight: chain.inflightCount,
        ...(overlay ? { overlay: { peers: overlay.peerCount, ...overlay.stats } } : {}),
      };
    },
  };
}
