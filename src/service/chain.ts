// Picks the chain source from configuration: the embedded devnet (default), the replay source
// (load tests), or liteservers (real networks; not in this build yet), and the network profile
// that goes with it. Each source is loaded on demand: the devnet pulls in the TVM and Tolk.
import path from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config.js';
import { realNetworkProfile, withOverrides, type NetworkProfile } from '../chain/profile.js';
import type { ChainSource } from '../chain/source.js';

export interface ChainChoice {
  source: ChainSource;
  /** The source's network profile with the configured overrides; call after `source.start()`. */
  profile(): Promise<NetworkProfile>;
}

/** A chain source this build cannot run, refused before anything (the data directory, the store) is touched. */
export function checkChainAvailable(config: Pick<Config, 'chain'>): void {
  if (config.chain === 'liteserver') {
    throw new ConfigError([
      {
        setting: 'TONWATCH_CHAIN',
        message: 'TONWATCH_CHAIN: liteserver is not available in this build yet; use devnet or replay',
      },
    ]);
  }
}

/** The embedded devnet's own directory (its SQLite file, its liteserver key). */
export function devnetDataDir(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'devnet');
}

export async function createChainSource(config: Config, logger: Logger): Promise<ChainChoice> {
  checkChainAvailable(config);
  const overrides = { usdtMaster: config.usdtMaster, dnsRoot: config.indexerDnsRoot };
  switch (config.chain) {
    case 'devnet': {
      const { createDevnetChain, devnetProfile } = await import('../chain/devnet/index.js');
      const chain = createDevnetChain({
        dataDir: devnetDataDir(config),
        blockIntervalMs: config.blockIntervalMs,
        manual: config.devnetManualBlocks,
        onWarning: (message) => logger.warn({ component: 'devnet' }, message),
      });
      return { source: chain, profile: async () => withOverrides(await devnetProfile(chain), overrides) };
    }
    case 'replay': {
      const { createReplaySource, replayOptionsFromConfig } = await import('../chain/replay/index.js');
      // Synthetic blocks standing in for the configured network; its addresses are not test-only.
      const profile: NetworkProfile = { ...realNetworkProfile(config.network), network: 'replay', testOnly: false };
      return { source: createReplaySource(replayOptionsFromConfig(config)), profile: async () => withOverrides(profile, overrides) };
    }
    case 'liteserver':
      throw new Error('unreachable: refused by checkChainAvailable');
  }
}

