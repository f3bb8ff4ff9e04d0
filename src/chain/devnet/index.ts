// The embedded devnet: a local TON chain (real TVM) behind ChainSource, with named wallets,
// jettons, DNS, and a control API to drive it. `startDevnet` is the one entry point;
// the service's `devnetComponent` (service/devnet.ts) plugs its control routes and health in.
import { DevnetChain, type DevnetChainOptions } from './chain.js';
import { DevnetControl } from './control.js';
import type { DevnetDirectory } from './directory.js';
import { runGenesis } from './genesis.js';

export { DevnetChain, type DevnetChainOptions } from './chain.js';
export { DevnetControl } from './control.js';
export type { DevnetDirectory, DevnetJetton } from './directory.js';
export { devnetRoutes } from './http.js';
export { devnetProfile } from './profile.js';

export interface Devnet {
  chain: DevnetChain;
  directory: DevnetDirectory;
  control: DevnetControl;
}

/** A devnet chain that runs genesis on first start (start it with `chain.start()`). */
export function createDevnetChain(options: DevnetChainOptions): DevnetChain {
  return new DevnetChain(options, runGenesis);
}

/** Opens (or creates, with genesis) the devnet in `options.dataDir` and starts its block producer. */
export async function startDevnet(options: DevnetChainOptions): Promise<Devnet> {
  const chain = createDevnetChain(options);
  await chain.start();
  if (!chain.directory) throw new Error('devnet genesis did not run');
  return { chain, directory: chain.directory, control: new DevnetControl(chain, chain.directory) };
}
