// The devnet as a service component: its control routes (`/devnet/…`) and a health fact. Only
// the service knows the embedded devnet; every other component sees ChainSource and the profile.
import type { FastifyContextConfig } from 'fastify';
import { DevnetChain } from '../chain/devnet/chain.js';
import { DevnetControl } from '../chain/devnet/control.js';
import { devnetRoutes } from '../chain/devnet/http.js';
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
