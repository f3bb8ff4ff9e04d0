// Picks the chain source from configuration: the embedded devnet (default), the replay source
// (load tests), or liteservers (real networks; not in this build yet).
import path from 'node:path';
import type { Logger } from 'pino';
import { ConfigError, type Config } from '../config.js';
import type { ChainSource } from '../chain/source.js';

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

export async function createChainSource(config: Config, logger: Logger): Promise<ChainSource> {
  checkChainAvailable(config);
  switch (config.chain) {
    case 'devnet': {
      const { createDevnetChain } = await import('../chain/devnet/index.js');
      return createDevnetChain({
        dataDir: path.join(config.dataDir, 'devnet'),
        blockIntervalMs: config.blockIntervalMs,
        manual: config.devnetManualBlocks,
        onWarning: (message) => logger.warn({ component: 'devnet' }, message),
      });
    }
    case 'replay': {
      const { createReplaySource, replayOptionsFromConfig } = await import('../chain/replay/index.js');
      return createReplaySource(replayOptionsFromConfig(config));
    }
    case 'liteserver':
      throw new Error('unreachable: refused by checkChainAvailable');
  }
}

