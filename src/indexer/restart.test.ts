// The indexer across a service restart on the same data dir: tracked entries and the live cursor
// survive, transfers made after the restart join the history, and the audit still reconciles.
import { indexerMigrations } from './migrations.js';
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DevnetChain } from '../chain/devnet/chain.js';
import { startTestService, type TestService } from '../../test/support/service.js';
import { chainHistory, newestFirst, tonTruth } from '../../test/support/indexer.js';

const components = [
  { name: 'devnet', load: async () => (await import('../service/devnet.js')).devnetComponent },
  { name: 'indexer', migrations: indexerMigrations, load: async () => (await import('./index.js')).indexerComponent },
];
const dataDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-indexer-restart-'));
let service: TestService | undefined;

afterAll(async () => {
  await service?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function get(path: string): Promise<any> {
  const res = await service!.api(path);
  expect(res.status, path).toBe(200);
  return res.json();
}

async function caughtUp(): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const s = await get('/status');
    if (s.last_processed_masterchain_seqno >= s.last_known_masterchain_seqno && s.backfill.pending === 0) return;
    if (Date.now() > until) throw new Error(`not caught up: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('indexer across a restart', () => {
  it('keeps tracking after a restart on the same data dir', async () => {
    service = await startTestService({ components, dataDir });
    await service.settle();
    const chain = service.source as DevnetChain;
    const merchant = chain.directory!.wallets.find((w) => w.name === 'merchant')!.id;
    expect((await service.api(`/account/${merchant}`, { method: 'POST' })).status).toBe(201);
    await service.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: 'merchant', amount: '100000000', comment: 'before restart' } });
    await service.settle();
    await caughtUp();
    await service.close({ keepData: true });

    service = await startTestService({ components, dataDir });
    expect((await get('/status')).backfill).toMatchObject({ entries: 1, done: 1 });
    await service.api('/devnet/send', { method: 'POST', json: { from: 'bob', to: 'merchant', amount: '200000000', comment: 'after restart' } });
    await service.settle();
    await caughtUp();
    const history = (await get(`/account/${merchant}/history`)).transfers;
    expect(history.map((t: any) => t.comment).slice(0, 2)).toEqual(['after restart', 'before restart']);
    const truth = newestFirst((await chainHistory(service.source, merchant)).flatMap((tx) => tonTruth(tx, merchant)));
    expect(history.map((t: any) => [t.hash, t.direction, t.kind, t.amount])).toEqual(truth.map((t) => [t.hash, t.direction, t.kind, t.amount]));
    expect(await get(`/account/${merchant}/audit`)).toMatchObject({ difference: '0', reconciled: true });
    expect(await service.api(`/account/${merchant}`, { method: 'POST' }).then((r) => r.status)).toBe(409);
  }, 120_000);
});
