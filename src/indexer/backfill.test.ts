// Backfill walks on a real devnet and a real store (SQLite and PostgreSQL): a walk interrupted by
// a failing chain source resumes after a restart where it stopped, and events live tracking missed
// (expired from the event log) are filled by a resync walk. Histories end equal to the ground truth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { StoreEventLog } from '../bus/store-log.js';
import { writeCursor } from '../bus/cursors.js';
import { makePosition, type EventBatch } from '../bus/events.js';
import { openTestDevnet, type TestDevnet } from '../../test/support/devnet.js';
import { settle } from '../chain/devnet/genesis.js';
import type { ChainSource } from '../chain/source.js';
import { openStore, type Store } from '../store/db.js';
import { dialects, dropTestStore, openTestStore, PG_URL } from '../../test/support/stores.js';
import { Backfill } from './backfill.js';
import { claimWalks } from './claims.js';
import { TON } from './extract.js';
import { Indexer } from './indexer.js';
import { IndexerQueries } from './queries.js';
import { asDb, getTracked, historyRows, insertTracked, updateWalk } from './store.js';
import { chainHistory, newestFirst, tonTruth } from '../../test/support/indexer.js';

let devnet: TestDevnet;
const id = (name: string) => devnet.directory.wallets.find((w) => w.name === name)!.id;
const logger = pino({ level: 'silent' });

/** The devnet as a chain source whose getTransactions fails from call `failFrom` on (a node going away). */
function failingAfter(source: ChainSource, failFrom: number): ChainSource & { calls: number } {
  const state = { calls: 0 };
  return new Proxy(source, {
    get(target, prop) {
      if (prop === 'calls') return state.calls;
      if (prop === 'getTransactions') {
        return async (...args: Parameters<ChainSource['getTransactions']>) => {
          state.calls++;
          if (state.calls >= failFrom) throw new Error('liteserver timeout');
          return target.getTransactions(...args);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as ChainSource & { calls: number };
}

async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function historyOf(store: Store, owner: string) {
  const rows = await historyRows(asDb(store.db), { asset: TON, owner, limit: 10_000 });
  return rows.map((r) => ({ hash: r.hash, lt: Number(r.lt), direction: r.direction, kind: r.kind, status: r.status, amount: r.amount, comment: r.comment }));
}

async function truthOf(owner: string) {
  const truth = newestFirst((await chainHistory(devnet.chain, owner)).flatMap((tx) => tonTruth(tx, owner)));
  return truth.map((t) => ({ hash: t.hash, lt: t.lt, direction: t.direction, kind: t.kind, status: t.status, amount: t.amount, comment: t.comment }));
}

beforeAll(async () => {
  devnet = await openTestDevnet();
  // give carol a history of several getTransactions pages
  for (let i = 0; i < 40; i++) await devnet.control.send({ from: i % 2 ? 'bob' : 'dave', to: 'carol', amount: String(10_000_000 + i), comment: `deposit ${i}` });
  await settle(devnet.chain);
}, 120_000);

afterAll(async () => {
  await devnet?.close();
});

describe('without a chain node', () => {
  it('answers 503 naming the node, and tracks nothing', async () => {
    const store = await openTestStore('sqlite');
    const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await log.open();
    const down = new Proxy(devnet.chain, {
      get(target, prop) {
        if (prop === 'getAccountState' || prop === 'runGetMethod') return async () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.1:4924'));
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as ChainSource;
    const indexer = new Indexer({ store, source: down, events: log, logger, backfillConcurrency: 1, now: Date.now });
    try {
      await indexer.start();
      const failure = await indexer.track(TON, id('dave')).then(() => null, (err: unknown) => err);
      expect(failure).toMatchObject({ statusCode: 503, details: { error_code: 'no_node' } });
      expect((failure as Error).message).toMatch(/ECONNREFUSED/);
      expect(indexer.tracked.size).toBe(0);
      expect(await getTracked(asDb(store.db), { asset: TON, owner: id('dave') })).toBeUndefined();
      const master = devnet.directory.jettons[0]!.masterId;
      await expect(indexer.track(master, id('dave'))).rejects.toMatchObject({ statusCode: 503 });
    } finally {
      await indexer.stop();
      await dropTestStore(store);
    }
  });
});

describe.each(dialects)('backfill on %s', (dialect) => {
  let store: Store;
  let log: StoreEventLog;
  const indexers: Indexer[] = [];
  const open = (source: ChainSource) => {
    const indexer = new Indexer({ store, source, events: log, logger, backfillConcurrency: 2, now: Date.now, consumerName: 'indexer-test' });
    indexers.push(indexer);
    return indexer;
  };

  beforeAll(async () => {
    store = await openTestStore(dialect);
    log = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await log.open();
  });
  afterAll(async () => {
    for (const i of indexers) await i.stop();
    await dropTestStore(store);
  });

  it('resumes an interrupted walk after a restart, from where it stopped, to the contract\'s creation', async () => {
    const carol = id('carol');
    const txCount = (await chainHistory(devnet.chain, carol)).length;
    expect(txCount).toBeGreaterThan(40);

    const broken = failingAfter(devnet.chain, 3);
    const first = open(broken);
    await first.start();
    await first.track(TON, carol);
    const failed = await until('the walk to fail', async () => {
      const row = await getTracked(asDb(store.db), { asset: TON, owner: carol });
      return row?.error ? row : null;
    });
    expect(failed.error).toMatch(/liteserver timeout/);
    expect(failed.backfill_done).toBe(0n);
    expect(failed.walk_lt).not.toBeNull();
    const queries = new IndexerQueries(store, devnet.chain);
    const progress = await queries.backfill(failed);
    expect(progress.done).toBe(false);
    // two pages of 16 arrived before the node went away
    expect((await historyOf(store, carol)).length).toBeGreaterThanOrEqual(32);
    await first.stop();

    // a restart with a healthy node continues from the stored walk position
    const healthy = failingAfter(devnet.chain, Number.MAX_SAFE_INTEGER);
    const second = open(healthy);
    await second.start();
    const done = await until('the walk to finish', async () => {
      const row = await getTracked(asDb(store.db), { asset: TON, owner: carol });
      return row?.backfill_done === 1n ? row : null;
    });
    expect(done).toMatchObject({ pending: 0n, walk_lt: null, error: null });
    expect(healthy.calls).toBe(Math.ceil(txCount / 16) - 2);
    expect(await historyOf(store, carol)).toEqual(await truthOf(carol));
    const audit = await queries.audit({ asset: TON, owner: carol });
    expect(audit).toMatchObject({ transactions: txCount, difference: '0', reconciled: true, missing_transactions: [] });
    await second.stop();
  }, 60_000);

  it('fills what live tracking missed when its events expired from the log (a resync walk)', async () => {
    const carol = id('carol');
    // while the indexer is down, carol gets new transactions, and the log forgets old events
    for (let i = 0; i < 5; i++) await devnet.control.send({ from: 'alice', to: 'carol', amount: String(20_000_000 + i), comment: `${dialect} away ${i}` });
    await settle(devnet.chain);
    const before = await new IndexerQueries(store, devnet.chain).audit({ asset: TON, owner: carol });
    expect(before.reconciled).toBe(false);
    expect(before.missing_transactions.length).toBeGreaterThan(0);

    await writeCursor(store.db, 'consumer:indexer-test', makePosition(1, 0));
    const seqno = devnet.chain.masterchainSeqno + 1000;
    const batch: EventBatch = { kind: 'block', mcSeqno: seqno, firstPosition: makePosition(seqno, 0), lastPosition: makePosition(seqno, 0), events: [] };
    await store.db.transaction().execute((trx) => log.append(trx, batch));
    log.published(batch);

    const third = open(devnet.chain);
    await third.start();
    await until('the resync to finish', async () => {
      const row = await getTracked(asDb(store.db), { asset: TON, owner: carol });
      return row && row.pending === 0n && row.resync === 0n && (await historyOf(store, carol)).some((t) => t.comment === `${dialect} away 4`);
    });
    expect(await historyOf(store, carol)).toEqual(await truthOf(carol));
    const after = await new IndexerQueries(store, devnet.chain).audit({ asset: TON, owner: carol });
    expect(after).toMatchObject({ difference: '0', reconciled: true, missing_transactions: [] });
  }, 60_000);
});

/** The source, with `before` awaited ahead of every getTransactions call (to watch or hold a worker's walk). */
function beforeGetTransactions(source: ChainSource, before: (args: Parameters<ChainSource['getTransactions']>) => Promise<void>): ChainSource {
  return new Proxy(source, {
    get(target, prop) {
      if (prop === 'getTransactions') {
        return async (...args: Parameters<ChainSource['getTransactions']>) => {
          await before(args);
          return target.getTransactions(...args);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as ChainSource;
}

describe.each(dialects)('backfill claims on %s', (dialect) => {
  it('a claim is fenced: a worker that no longer holds the entry writes nothing', async () => {
    const store = await openTestStore(dialect);
    try {
      const db = asDb(store.db);
      const carol = id('carol');
      const state = await devnet.chain.getAccountState(carol);
      await insertTracked(db, { asset: TON, owner: carol, contract: carol, walkFrom: { lt: state.lastTxLt, hash: state.lastTxHash }, now: Date.now() });
      expect((await claimWalks(db, 'A', 60_000, 5)).map((r) => r.owner)).toEqual([carol]);
      // Held by A: B gets nothing, and B's write is refused.
      expect(await claimWalks(db, 'B', 60_000, 5)).toEqual([]);
      expect(await updateWalk(db, { asset: TON, owner: carol }, { walk: null, backfillDone: true, error: null, now: Date.now(), claimedBy: 'B' })).toBe(false);
      expect(await getTracked(db, { asset: TON, owner: carol })).toMatchObject({ pending: 1n, walk_lt: state.lastTxLt, claimed_by: 'A' });
      // A's page commits and gives the claim back; B may take the entry.
      expect(await updateWalk(db, { asset: TON, owner: carol }, { walk: { lt: 1n, hash: state.lastTxHash }, error: null, now: Date.now(), claimedBy: 'A' })).toBe(true);
      expect(await getTracked(db, { asset: TON, owner: carol })).toMatchObject({ walk_lt: 1n, claimed_by: null, claim_until: null });
      expect((await claimWalks(db, 'B', 60_000, 5)).map((r) => r.claimed_by)).toEqual(['B']);
    } finally {
      await dropTestStore(store);
    }
  });

});

describe.skipIf(!dialects.includes('postgres'))('backfill jobs across workers on one PostgreSQL', () => {
  it('a worker that lost its database mid-walk: another takes the job once the claim expired and resumes from the last committed page', async () => {
    const carol = id('carol');
    const storeA = await openTestStore('postgres');
    const schema = /\(schema ([a-z0-9_]+)\)/.exec(storeA.description)![1]!;
    const storeB = await openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 4 });
    const workers: Backfill[] = [];
    let release: () => void = () => {};
    try {
      const state = await devnet.chain.getAccountState(carol);
      await insertTracked(asDb(storeA.db), { asset: TON, owner: carol, contract: carol, walkFrom: { lt: state.lastTxLt, hash: state.lastTxHash }, now: Date.now() });
      // A fetches one page, then its second request hangs; meanwhile it loses its database.
      const hanging = new Promise<void>((resolve) => (release = resolve));
      let callsA = 0;
      const sourceA = beforeGetTransactions(devnet.chain, async () => {
        if (++callsA >= 2) await hanging;
      });
      const a = new Backfill({ store: storeA, source: sourceA, logger, concurrency: 1, now: Date.now, workerId: 'A', leaseMs: 1500, pollIntervalMs: 100 });
      workers.push(a);
      a.start();
      await until('A to hang on its second page', async () => callsA >= 2);
      const committed = (await getTracked(asDb(storeB.db), { asset: TON, owner: carol }))!;
      expect(committed).toMatchObject({ claimed_by: 'A', pending: 1n });
      expect(committed.walk_lt).not.toBe(state.lastTxLt);
      await storeA.close();

      const asked: bigint[] = [];
      const sourceB = beforeGetTransactions(devnet.chain, async (args) => void asked.push(args[1]));
      const b = new Backfill({ store: storeB, source: sourceB, logger, concurrency: 1, now: Date.now, workerId: 'B', leaseMs: 1500, pollIntervalMs: 100 });
      workers.push(b);
      b.start();
      await until('B to finish the walk', async () => (await getTracked(asDb(storeB.db), { asset: TON, owner: carol }))?.backfill_done === 1n);
      // B started where A's last committed page left the walk, not from the top.
      expect(asked[0]).toBe(committed.walk_lt);
      expect(await historyOf(storeB, carol)).toEqual(await truthOf(carol));
      const audit = await new IndexerQueries(storeB, devnet.chain).audit({ asset: TON, owner: carol });
      expect(audit).toMatchObject({ difference: '0', reconciled: true, missing_transactions: [] });
      // A wakes up: its page cannot be written (its pool is gone), the finished job stays finished.
      release();
      await a.stop();
      expect(await getTracked(asDb(storeB.db), { asset: TON, owner: carol })).toMatchObject({ backfill_done: 1n, pending: 0n, walk_lt: null, claimed_by: null });
    } finally {
      release();
      for (const w of workers) await w.stop().catch(() => {});
      await dropTestStore(storeB);
    }
  }, 60_000);
});
