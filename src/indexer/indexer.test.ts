// Acceptance of #8 on the devnet, through the real service: after a scripted mix of deposits,
// fakes, failures and withdrawals, each tracked history equals a ground truth computed in the test
// from the chain's own transactions, and every audit reconciles to zero.
import { indexerMigrations } from './migrations.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToRaw } from '../chain/address.js';
import type { DevnetChain } from '../chain/devnet/chain.js';
import { startTestService, type TestService } from '../../test/support/service.js';
import { chainHistory, claimTruth, jettonTruth, newestFirst, tonTruth, type Expected } from '../../test/support/indexer.js';
import { jettonWalletAddress } from './chain.js';

const components = [
  { name: 'devnet', load: async () => (await import('../service/devnet.js')).devnetComponent },
  { name: 'indexer', migrations: indexerMigrations, load: async () => (await import('./index.js')).indexerComponent },
];

let service: TestService;
let chain: DevnetChain;
const id = (name: string) => chain.directory!.wallets.find((w) => w.name === name)!.id;
const master = (key: string) => chain.directory!.jettons.find((j) => j.key === key)!.masterId;
/** A deposit address that is never deployed: bounceable deposits to it bounce. */
const DEPOSIT = '0:' + 'de'.repeat(32);

async function json<T = any>(path: string, init?: Parameters<TestService['api']>[1]): Promise<{ status: number; body: T }> {
  const res = await service.api(path, init);
  return { status: res.status, body: (await res.json()) as T };
}

async function control(path: string, body: unknown): Promise<void> {
  const res = await service.api(`/devnet/${path}`, { method: 'POST', json: body });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

/** Waits until live tracking applied the chain head and no backfill walk is left. */
async function caughtUp(timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await json('/status');
    if (body.last_processed_masterchain_seqno !== null && body.last_processed_masterchain_seqno >= body.last_known_masterchain_seqno && body.backfill.pending === 0) return;
    if (Date.now() > until) throw new Error(`indexer not caught up: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every page of a history as a client reads it. */
async function history(path: string, limit = 1000): Promise<any[]> {
  const items: any[] = [];
  let before = '';
  for (let i = 0; i < 1000; i++) {
    const { status, body } = await json(`${path}/history?limit=${limit}${before ? `&before_lt=${before}` : ''}`);
    expect(status).toBe(200);
    items.push(...body.transfers);
    if (body.next_from === null) return items;
    before = encodeURIComponent(body.next_from);
  }
  throw new Error('history did not end');
}

const comparable = (t: any): Expected => ({
  hash: t.hash,
  lt: t.lt,
  direction: t.direction,
  kind: t.kind,
  status: t.status,
  amount: t.amount,
  sender: t.sender,
  recipients: t.recipients,
  comment: t.comment,
  jetton: t.jetton,
});

async function tonGroundTruth(owner: string): Promise<Expected[]> {
  return newestFirst((await chainHistory(chain, owner)).flatMap((tx) => tonTruth(tx, owner)));
}

async function jettonGroundTruth(jetton: string, owner: string, trackedWallets: string[]): Promise<Expected[]> {
  const wallet = await jettonWalletAddress(chain, master(jetton), owner);
  const moves = (await chainHistory(chain, wallet)).flatMap((tx) => jettonTruth(tx, master(jetton), owner));
  const claims = (await chainHistory(chain, owner)).flatMap((tx) => claimTruth(tx, owner, trackedWallets));
  return newestFirst([...moves, ...claims]);
}

beforeAll(async () => {
  service = await startTestService({ components });
  chain = service.source as DevnetChain;
  await service.settle();
}, 120_000);

afterAll(async () => {
  await service?.close();
});

describe('deposit indexer on the devnet', () => {
  it('tracks, lives through a scripted mix, and every history equals the ground truth with audits at zero', async () => {
    const exchange = id('exchange');
    const usdt = master('usdt');
    // track before the mix: the exchange's USDT (and with it its TON), and an undeployed deposit address
    const tracked = await json(`/jetton/${usdt}/${exchange}`, { method: 'POST' });
    expect(tracked.status).toBe(201);
    expect(tracked.body).toMatchObject({ address: exchange, jetton: usdt, owner_tracked: true });
    expect(tracked.body.jetton_wallet).toBe(await jettonWalletAddress(chain, usdt, exchange));
    expect((await json(`/account/${DEPOSIT}`, { method: 'POST' })).status).toBe(201);
    await caughtUp();

    // TON deposits with memos, jetton deposits with comments inline and in a ref
    await control('send', { from: 'alice', to: 'exchange', amount: '1500000000', comment: 'user:1001' });
    await control('send', { from: 'bob', to: 'exchange', amount: '700000000', comment: 'user:1002 ✓' });
    await control('jetton/send', { from: 'alice', jetton: 'usdt', to: 'exchange', amount: '5000000', comment: 'user:1003' });
    await control('jetton/send', { from: 'bob', jetton: 'usdt', to: 'exchange', amount: '2500000', comment: `user:1004 ${'long memo '.repeat(20)}`, comment_in_ref: true });
    // a bounced deposit and a credited non-bounceable one at the undeployed address
    await control('scenarios/bounce', { from: 'carol', to: DEPOSIT, amount: '300000000' });
    await control('send', { from: 'dave', to: DEPOSIT, amount: '200000000', bounce: false });
    await service.settle();
    // fakes: a failed jetton send toward the exchange, a forged notification, a look-alike USDT, a forged internal_transfer
    await control('scenarios/failed-jetton-transfer', { from: 'alice', jetton: 'usdt', to: 'exchange' });
    await control('scenarios/forged-notification', { from: 'mallory', to: 'exchange', amount: '9000000', comment: 'user:1001' });
    await control('jetton/send', { from: 'mallory', jetton: 'fake-usdt', to: 'exchange', amount: '50000000', comment: 'user:1003' });
    await control('scenarios/forged-internal-transfer', { from: 'mallory', jetton: 'usdt', to: 'exchange', amount: '7000000', comment: 'user:1005' });
    await service.settle();
    // withdrawals: TON, USDT (its excess comes back), a failed USDT withdrawal, a bounced TON withdrawal
    await control('send', { from: 'exchange', to: 'bob', amount: '400000000', comment: 'payout 1' });
    await control('jetton/send', { from: 'exchange', jetton: 'usdt', to: 'carol', amount: '1000000', comment: 'payout 2' });
    await service.settle();
    await control('scenarios/failed-jetton-transfer', { from: 'exchange', jetton: 'usdt', to: 'dave' });
    await control('scenarios/bounce', { from: 'exchange', amount: '250000000' });
    await service.settle();

    // an address with history already: tracking backfills all of it
    const carol = id('carol');
    expect((await json(`/jetton/${master('gram')}/${carol}`, { method: 'POST' })).status).toBe(201);
    await caughtUp();

    const usdtWallet = await jettonWalletAddress(chain, usdt, exchange);
    const entries = [
      { path: `/account/${exchange}`, truth: await tonGroundTruth(exchange) },
      { path: `/jetton/${usdt}/${exchange}`, truth: await jettonGroundTruth('usdt', exchange, [usdtWallet]) },
      { path: `/account/${DEPOSIT}`, truth: await tonGroundTruth(DEPOSIT) },
      { path: `/account/${carol}`, truth: await tonGroundTruth(carol) },
      { path: `/jetton/${master('gram')}/${carol}`, truth: await jettonGroundTruth('gram', carol, [await jettonWalletAddress(chain, master('gram'), carol)]) },
    ];
    for (const { path, truth } of entries) {
      const got = await history(path, 7);
      expect(got.map(comparable), path).toEqual(truth);
      const audit = await json(`${path}/audit`);
      expect(audit.status).toBe(200);
      expect(audit.body, path).toMatchObject({ difference: '0', missing_transactions: [], reconciled: true });
      const balance = await json(path);
      expect(balance.body.backfill.done, path).toBe(true);
      expect(balance.body.last_processed_lt).toBe(balance.body.last_lt);
      expect(balance.body.balance).toBe(audit.body.actual_change);
    }

    // the facts an exchange credits by, checked directly as well
    const ton = await history(`/account/${exchange}`);
    const credits = ton.filter((t) => t.kind === 'deposit' && t.status === 'ok' && t.comment?.startsWith('user:'));
    expect(credits.map((t) => [t.comment, t.amount, t.sender])).toEqual([
      ['user:1002 ✓', '700000000', id('bob')],
      ['user:1001', '1500000000', id('alice')],
    ]);
    expect(ton.filter((t) => t.kind === 'bounce_refund' && t.direction === 'in')).toHaveLength(2);
    expect(ton.some((t) => t.kind === 'excess')).toBe(true);
    expect(ton.find((t) => t.comment === 'payout 1')).toMatchObject({ direction: 'out', kind: 'withdrawal', status: 'ok', amount: '400000000', recipients: [id('bob')] });

    const jettons = await history(`/jetton/${usdt}/${exchange}`);
    const okDeposits = jettons.filter((t) => t.kind === 'deposit' && t.status === 'ok');
    expect(okDeposits.map((t) => [t.comment.slice(0, 9), t.amount, t.sender])).toEqual([
      ['user:1004', '2500000', id('bob')],
      ['user:1003', '5000000', id('alice')],
    ]);
    expect(okDeposits.every((t) => t.jetton === usdt)).toBe(true);
    const rejected = jettons.filter((t) => t.status === 'rejected');
    // the forged notification, the look-alike's notification, the forged internal_transfer (plus genesis GRAM)
    expect(rejected.filter((t) => t.comment?.startsWith('user:')).map((t) => [t.comment, t.amount]).sort()).toEqual(
      [['user:1001', '9000000'], ['user:1003', '50000000'], ['user:1005', '7000000']].sort(),
    );
    expect(jettons.filter((t) => t.kind === 'withdrawal').map((t) => [t.status, t.comment])).toEqual([
      ['failed', 'more than I have'],
      ['ok', 'payout 2'],
    ]);
    const deposit = await history(`/account/${DEPOSIT}`);
    expect(deposit.map((t) => [t.direction, t.kind, t.status])).toEqual([
      ['in', 'deposit', 'ok'],
      ['in', 'deposit', 'bounced'],
      ['out', 'bounce_refund', 'ok'],
    ]);

    // one transaction's records by hash, in hex and in base64url
    const bounced = deposit[1];
    const byHash = await json(`/account/${DEPOSIT}/history/${bounced.hash}`);
    expect(byHash.body.transfers.map((t: any) => t.kind)).toEqual(['deposit', 'bounce_refund']);
    const b64 = Buffer.from(bounced.hash, 'hex').toString('base64url');
    expect((await json(`/account/${DEPOSIT}/history/${b64}`)).body).toEqual(byHash.body);
    const claim = rejected.find((t) => t.comment === 'user:1001');
    expect((await json(`/jetton/${usdt}/${exchange}/history/${claim.hash}`)).body.transfers).toEqual([claim]);
  }, 180_000);

  it('history pages stay consistent while new transfers arrive', async () => {
    const exchange = id('exchange');
    const before = await history(`/account/${exchange}`);
    const seen: any[] = [];
    const sent: string[] = [];
    let next: string | null = null;
    do {
      const { body }: { body: any } = await json(`/account/${exchange}/history?limit=3${next ? `&before_lt=${encodeURIComponent(next)}` : ''}`);
      seen.push(...body.transfers);
      next = body.next_from;
      // new deposits land between page reads
      if (sent.length < 3) {
        sent.unshift(`late ${sent.length + 1}`);
        await control('send', { from: 'dave', to: 'exchange', amount: String(1_000_000 + sent.length), comment: sent[0] });
        await service.settle();
        await caughtUp();
      }
    } while (next !== null);
    expect(before.length).toBeGreaterThan(9);
    expect(seen.map((t) => `${t.hash}:${t.direction}:${t.amount}`)).toEqual(before.map((t) => `${t.hash}:${t.direction}:${t.amount}`));
    const after = await history(`/account/${exchange}`, 2);
    expect(after.slice(0, sent.length).map((t) => t.comment)).toEqual(sent);
    expect(after.slice(sent.length)).toEqual(before);
  }, 120_000);

  it('audits between two points: from the checkpoint an earlier audit left to the head', async () => {
    const exchange = id('exchange');
    const usdt = master('usdt');
    const first = await json(`/account/${exchange}/audit`);
    const firstJetton = await json(`/jetton/${usdt}/${exchange}/audit`);
    expect(first.body).toMatchObject({ from: { point: 'creation', balance: '0', last_lt: 0 }, reconciled: true });
    const since = first.body.to.mc_seqno;

    await control('send', { from: 'alice', to: 'exchange', amount: '3000000000', comment: 'after checkpoint' });
    await control('send', { from: 'exchange', to: 'carol', amount: '1000000000', comment: 'payout 3' });
    await control('jetton/send', { from: 'bob', jetton: 'usdt', to: 'exchange', amount: '4000000', comment: 'after checkpoint' });
    await service.settle();
    await caughtUp();

    const second = await json(`/account/${exchange}/audit?since=${since}`);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      from: { point: 'checkpoint', mc_seqno: since, last_lt: first.body.to.last_lt, balance: first.body.to.balance },
      difference: '0',
      missing_transactions: [],
      reconciled: true,
    });
    // only what happened after the checkpoint is counted
    const recent = (await history(`/account/${exchange}`)).filter((t) => t.lt > first.body.to.last_lt);
    expect(second.body.transactions).toBe(new Set(recent.map((t) => t.hash)).size);
    expect(BigInt(second.body.transfers_in)).toBe(recent.filter((t) => t.direction === 'in').reduce((n, t) => n + BigInt(t.amount), 0n));
    expect(recent.find((t) => t.comment === 'payout 3')).toMatchObject({ direction: 'out', amount: '1000000000' });
    expect(BigInt(second.body.transfers_out)).toBe(recent.filter((t) => t.direction === 'out').reduce((n, t) => n + BigInt(t.amount), 0n));
    expect(BigInt(second.body.to.balance) - BigInt(first.body.to.balance)).toBe(BigInt(second.body.actual_change));

    const jetton = await json(`/jetton/${usdt}/${exchange}/audit?since=${firstJetton.body.to.mc_seqno}`);
    expect(jetton.body).toMatchObject({ transfers_in: '4000000', transfers_out: '0', difference: '0', reconciled: true });

    const unknown = await json(`/account/${exchange}/audit?since=1`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.field).toBe('since');
  }, 60_000);

  it('resolves .ton names down the resolver chain; unknown names are 404, malformed 400', async () => {
    const alice = await json('/resolve/alice.ton');
    expect(alice.status).toBe(200);
    expect(alice.body).toEqual({ domain: 'alice.ton', address: id('alice'), resolvers: [chain.directory!.dns.rootId, chain.directory!.dns.zoneId] });
    expect((await json('/resolve/Exchange.TON')).body.address).toBe(id('exchange'));
    const unknown = await json('/resolve/nobody-here.ton');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/nobody-here\.ton/);
    const bad = await json(`/resolve/${encodeURIComponent('bad name!.ton')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('domain');
  });

  it('answers bad input, untracked addresses and repeated tracking with JSON errors', async () => {
    const exchange = id('exchange');
    const cases: Array<[string, string, number, string | undefined]> = [
      ['GET', '/account/not-an-address/history', 400, 'address'],
      ['GET', `/account/0:${'zz'.repeat(32)}`, 400, 'address'],
      ['POST', '/account/EQ_bad', 400, 'address'],
      ['GET', `/jetton/nope/${exchange}/history`, 400, 'jetton'],
      ['GET', `/account/${exchange}/history/abc`, 400, 'hash'],
      ['GET', `/account/${exchange}/history?limit=0`, 400, 'limit'],
      ['GET', `/account/${exchange}/history?limit=1001`, 400, 'limit'],
      ['GET', `/account/${exchange}/history?before_lt=12x`, 400, 'before_lt'],
      ['GET', `/account/${id('bob')}/history`, 404, undefined],
      ['GET', `/account/${id('bob')}`, 404, undefined],
      ['GET', `/account/${id('bob')}/audit`, 404, undefined],
      ['GET', `/jetton/${master('gram')}/${exchange}/history`, 404, undefined],
      ['GET', `/account/${exchange}/history/${'ab'.repeat(32)}`, 404, undefined],
      ['POST', `/account/${exchange}`, 409, undefined],
      ['POST', `/jetton/${master('usdt')}/${exchange}`, 409, undefined],
      ['POST', `/jetton/${id('alice')}/${id('bob')}`, 400, 'jetton'],
    ];
    for (const [method, path, status, field] of cases) {
      const res = await json(path, { method });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(typeof res.body.error, `${method} ${path}`).toBe('string');
      if (field) expect(res.body.field, `${method} ${path}`).toBe(field);
    }
    // a failed jetton tracking tracked nothing, not even the owner
    expect((await json(`/account/${id('bob')}`)).status).toBe(404);
    // user-friendly forms name the same entry
    const friendly = chain.directory!.wallets.find((w) => w.name === 'exchange')!.address.toString({ urlSafe: true, bounceable: false });
    expect((await json(`/account/${friendly}`)).body.address).toBe(exchange);
    // auth: a key is needed, with the indexer scope
    expect((await json(`/account/${exchange}`, { auth: null })).status).toBe(401);
    expect((await json(`/status`, { auth: await service.key('webhooks') })).status).toBe(403);
    expect((await json(`/status`, { auth: await service.key('indexer') })).status).toBe(200);
    expect(addressToRaw(chain.directory!.dns.root)).toBe(chain.directory!.dns.rootId);
  });

  it('reports status and metrics: lag, nodes, backfill progress, transfers by kind', async () => {
    const { body } = await json('/status');
    expect(body).toMatchObject({ rest_online: true, indexing_latency: 0, nodes: [{ network: 'devnet', online: true }] });
    expect(body.last_processed_masterchain_seqno).toBe(body.last_known_masterchain_seqno);
    expect(body.backfill).toMatchObject({ entries: 5, done: 5, pending: 0, failing: 0 });
    const metrics = await (await service.api('/metrics', { auth: null })).text();
    expect(metrics).toMatch(/^tonwatch_indexer_tracked_entries 5$/m);
    expect(metrics).toMatch(/^tonwatch_indexer_transfers_total\{kind="deposit",status="rejected"\} [1-9]/m);
    expect(metrics).toMatch(new RegExp(`^tonwatch_indexer_masterchain_seqno ${body.last_processed_masterchain_seqno}$`, 'm'));
    expect(metrics).toMatch(/^tonwatch_indexer_backfill_transactions_total [1-9]/m);
  });
});
