// `tonwatch devnet serve`: the devnet alone — its block producer, its liteserver and its control API —
// without the store, the follower or the other components, so several tonwatch processes (and any TON
// tool with the printed global config) follow one local chain.
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import { createDevnetChain } from '../chain/devnet/index.js';
import type { DevnetChain } from '../chain/devnet/chain.js';
import type { Config } from '../config.js';
import { buildApp } from '../http/app.js';
import { devnetDataDir } from './chain.js';
import { devnetComponentOf } from './devnet.js';
import { ListenError, listenProblem } from './starting.js';

export interface StandaloneDevnet {
  chain: DevnetChain;
  /** The control API's base URL. */
  url: string;
  /** The liteserver's address and key, and how to get its global config. */
  banner: string[];
  stop(): Promise<void>;
}

/** Starts the devnet, its liteserver (TONWATCH_DEVNET_LITESERVER_PORT, a free port when unset) and its control API on PORT. */
export async function startStandaloneDevnet(config: Config, options: { logger?: Logger } = {}): Promise<StandaloneDevnet> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const chain = createDevnetChain({
    dataDir: devnetDataDir(config),
    blockIntervalMs: config.blockIntervalMs,
        confirmationLagMs: config.devnetConfirmationLagMs,
    manual: config.devnetManualBlocks,
    onWarning: (message) => logger.warn({ component: 'devnet' }, message),
  });
  const cleanup: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch((err) => logger.error({ err }, 'shutdown step failed'));
  };
  try {
    await chain.start();
    cleanup.push(() => chain.stop());
    const devnet = devnetComponentOf(chain, { ...config, devnetLiteserverPort: config.devnetLiteserverPort ?? 0 }, logger.child({ component: 'devnet' }));
    const app = await buildApp({ config, metrics: new Registry(), logger, components: [devnet] });
    await app.listen({ port: config.port, host: config.host }).catch((err: NodeJS.ErrnoException) => {
      throw new ListenError(listenProblem(err, config), { cause: err });
    });
    cleanup.push(() => app.close());
    await devnet.start!();
    cleanup.push(() => devnet.stop!());
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    return { chain, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, banner: devnet.banner!(), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
