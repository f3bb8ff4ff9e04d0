// The decision on the indexer's tenancy (docs/INDEXER.md, "Who sees what"): one shared deposit pool
// per deployment, and `indexer` keys are operator keys. Both sides of it: every indexer key sees the
// whole pool; no other key reaches any of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetChain } from '../chain/devnet/chain.js';
import { componentFactories } from '../components.js';
import { startTestService, type TestService } from '../../test/support/service.js';

const components = componentFactories.filter((c) => ['devnet', 'indexer', 'invoices'].includes(c.name));

let service: TestService;
let bob: string;

async function call(path: string, key: string, method = 'GET'): Promise<{ status: number; body: any }> {
  const res = await service.api(path, { method, auth: key });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  service = await startTestService({ components });
  bob = (service.source as DevnetChain).directory!.wallets.find((w) => w.name === 'bob')!.id;
  await service.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: 'bob', amount: '1000000000', comment: 'pool' } });
  await service.settle();
});
afterAll(() => service?.close());

describe('indexer tenancy: one shared pool, operator keys', () => {
  it('an address tracked with one indexer key is read, audited and known to every other indexer key', async () => {
    const a = await service.key('indexer');
    const b = await service.key('indexer');
    expect((await call(`/account/${bob}`, a, 'POST')).status).toBe(201);
    for (let i = 0; i < 200 && (await call('/status', a)).body.backfill.pending > 0; i++) await new Promise((r) => setTimeout(r, 50));

    const historyA = await call(`/account/${bob}/history?limit=100`, a);
    const historyB = await call(`/account/${bob}/history?limit=100`, b);
    expect(historyA.status).toBe(200);
    expect(historyA.body.transfers.some((t: any) => t.comment === 'pool')).toBe(true);
    expect(historyB).toEqual(historyA);
    expect(await call(`/account/${bob}`, b)).toEqual(await call(`/account/${bob}`, a));
    expect((await call(`/account/${bob}/audit`, b)).status).toBe(200);
    // The pool is one per deployment: the second operator is told it is tracked already.
    expect((await call(`/account/${bob}`, b, 'POST')).status).toBe(409);
  });

  it('no key without the indexer scope reaches any of it: other scopes and application tokens get 403', async () => {
    const others = [await service.key('webhooks', 'streaming', 'invoices')];
    const app = await service.api('/api/v1/services/invoices/app', {
      method: 'POST',
      json: { name: 'shop', recipient_address: (service.source as DevnetChain).directory!.wallets.find((w) => w.name === 'merchant')!.address.toString() },
    });
    expect(app.status).toBe(201);
    others.push(((await app.json()) as { token: string }).token);
    const routes: Array<[string, string]> = [
      ['GET', `/account/${bob}/history`],
      ['GET', `/account/${bob}`],
      ['GET', `/account/${bob}/audit`],
      ['POST', `/account/${bob}`],
      ['GET', '/status'],
      ['GET', '/resolve/alice.ton'],
    ];
    for (const key of others) {
      for (const [method, path] of routes) {
        const res = await call(path, key, method);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.error).toMatch(/indexer/);
      }
    }
  });
});
