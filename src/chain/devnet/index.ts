// The embedded devnet: a local TON chain (real TVM) behind ChainSource, with named wallets,
// jettons, DNS, and a control API to drive it. `startDevnet` is the one entry point;
// `devnetComponent` plugs its control routes and health into the service.
import type { FastifyContextConfig } from 'fastify';
import type { Component, ComponentFactory } from '../../service/component.js';
import { DevnetChain, type DevnetChainOptions } from './chain.js';
import { DevnetControl } from './control.js';
import type { DevnetDirectory } from './directory.js';
import { runGenesis } from './genesis.js';
import { devnetRoutes } from './http.js';

export { DevnetChain, type DevnetChainOptions } from './chain.js';
export { DevnetControl } from './control.js';
export type { DevnetDirectory, DevnetJetton } from './directory.js';
export { devnetRoutes } from './http.js';
export { resolveDns, walletFromRecord } from './dns.js';

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
  const control = new DevnetControl(chain, chain.directory);
  // Sending and paying move devnet funds: by default only callers on this machine do it without a key.
  const mode = ctx.config.devnetControl;
  const routeConfig: FastifyContextConfig = mode === 'open' ? {} : { auth: { scope: 'admin', localWithoutKey: mode === 'local' } };
  const component: Component = {
    name: 'devnet',
    routes: async (app) => {
      await app.register(devnetRoutes, { control, routeConfig });
    },
    health: async () => {
      const head = await chain.getMasterchainHead();
      const ageMs = Date.now() - head.genUtime * 1000;
      const ok = chain.manual || ageMs < Math.max(MAX_MISSED_BLOCKS * chain.blockIntervalMs, 5000);
      return { ok, masterchain_seqno: head.seqno, head_age_ms: ageMs, mempool: chain.mempoolSize, in_flight: chain.inflightCount };
    },
  };
  return component;
};
