// What the Streaming v2 end-to-end tests share: a service on the devnet with a confirmation lag (so a
// trace is seen pending, confirmed, then finalized), a key with the `streaming` scope, and small helpers.
import type { DevnetChain } from '../../src/chain/devnet/chain.js';
import { startTestService, type TestService } from './service.js';

export interface V2Devnet {
  svc: TestService;
  key: string;
  chain: DevnetChain;
}

/** A service on its own devnet whose shard blocks stay non-final for `lagMs` before the masterchain commits them. */
export async function startV2Devnet(lagMs = 300): Promise<V2Devnet> {
  const svc = await startTestService({ env: { TONWATCH_DEVNET_CONFIRMATION_LAG_MS: String(lagMs) } });
  return { svc, key: await svc.key('streaming'), chain: svc.source as DevnetChain };
}

/** Waits for `cond`; on timeout the error shows what was seen, so a failure says what arrived instead. */
export async function until(cond: () => boolean, what: () => unknown, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out; saw ${JSON.stringify(what()).slice(0, 4000)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A raw address as API v3 writes it (upper-case hex). */
export const v3 = (raw: string): string => raw.replace(/:(.*)$/, (_m, h: string) => ':' + h.toUpperCase());
/** A hex hash as API v3 writes it (base64). */
export const b64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');
