// The embedded devnet: a local TON chain (real TVM) behind ChainSource, with named wallets,
// jettons, DNS, and a control API to drive it. `startDevnet` is the one entry point.
import { DevnetChain, type DevnetChainOptions } from './chain.js';
import { DevnetControl } from './control.js';
import type { DevnetDirectory } from './directory.js';
import { runGenesis } from './genesis.js';

export { DevnetChain, type DevnetChainOptions } from './chain.js';
export { DevnetControl } from './control.js';
export type { DevnetDirectory, DevnetJetton } from './directory.js';
export { devnetRoutes } from './http.js';

export interface Devnet {
  chain: DevnetChain;
  directory: DevnetDirectory;
  control: DevnetControl;
}

/** Opens (or creates, with genesis) the devnet in `options.dataDir` and starts its block producer. */
export async function startDevnet(options: DevnetChainOptions): Promise<Devnet> {
  let directory: DevnetDirectory | null = null;
  const chain = new DevnetChain(options, async (c) => {
    directory = await runGenesis(c);
  });
  await chain.start();
  if (!directory) throw new Error('devnet genesis did not run');
  return { chain, directory, control: new DevnetControl(chain, directory) };
}
