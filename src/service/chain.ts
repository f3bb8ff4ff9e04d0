// Picks the chain source from configuration: the embedded devnet (default), the replay source
// (load tests), or liteservers (real networks), and the network profile that goes with it. Each
// source is loaded on demand: the devnet pulls in the TVM and Tolk.
import path from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config.js';
import type { TrustMemory } from '../chain/liteserver/trust/head-trust.js';
import { realNetworkProfile, withOverrides, type NetworkProfile } from '../chain/profile.js';
import type { ChainChoice } from './chain-choice.js';

export type { ChainChoice } from './chain-choice.js';

/** Trust levels this build can run: `secure` (validator signatures from the init block, the default) and `fast`. */
export const AVAILABLE_TRUST_LEVELS: ReadonlyArray<Config['trust']> = ['secure', 'fast'];

/** Settings this build cannot run, refused before anything (the data directory, the store) is touched. */
export function checkChainSettings(config: Pick<Config, 'chain' | 'trust' | 'startSeqno'>): void {
  if (config.chain !== 'liteserver') return;
  const problems = [];
  if (!AVAILABLE_TRUST_LEVELS.includes(config.trust)) {
    problems.push({
      setting: 'TONWATCH_TRUST',
      message: `TONWATCH_TRUST: ${config.trust} is not available in this build yet; use ${AVAILABLE_TRUST_LEVELS.join(' or ')}`,
    });
  }
  // A walk proves block n from block n-1's shard tops; block 0 is the zero state, which has none to walk from.
  if (config.startSeqno === 1) {
    problems.push({ setting: 'TONWATCH_START_SEQNO', message: 'TONWATCH_START_SEQNO: must be 2 or more with TONWATCH_CHAIN=liteserver, got 1' });
  }
  if (problems.length > 0) throw new ConfigError(problems);
}

/** The embedded devnet's own directory (its SQLite file, its liteserver key). */
export function devnetDataDir(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'devnet');
}

export interface ChainSourceOptions {
  /** Where the liteserver source's `secure` trust remembers its newest key block (the service's store). */
  trustMemory?: TrustMemory;
}

export async function createChainSource(config: Config, logger: Logger, options: ChainSourceOptions = {}): Promise<ChainChoice> {
  checkChainSettings(config);
  const overrides = { usdtMaster: config.usdtMaster, dnsRoot: config.indexerDnsRoot };
  switch (config.chain) {
    case 'devnet': {
      const { createDevnetChain, devnetProfile } = await import('../chain/devnet/index.js');
      const chain = createDevnetChain({
        dataDir: devnetDataDir(config),
        blockIntervalMs: config.blockIntervalMs,
        confirmationLagMs: config.devnetConfirmationLagMs,
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
    case 'liteserver': {
      const { createLiteserverChoice } = await import('./liteserver.js');
      return createLiteserverChoice(config, logger.child({ component: 'liteserver' }), { memory: options.trustMemory });
    }
  }
}
