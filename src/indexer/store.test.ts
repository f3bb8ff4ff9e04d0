// The indexer's store logic on SQLite and PostgreSQL: idempotent writes of real mainnet
// transactions, stable pagination across ties, claims, prev-link holes, tracking and walk state.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeBlock } from '../chain/decode/index.js';
import type { TransactionModel } from '../chain/model.js';
import type { Store } from '../store/db.js';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import { CLAIMS, extract, TON, type Extraction, type TransferRecord } from './extract.js';
import { cursorToken, parseBeforeLt } from './json.js';
import {
  allTracked,
  asDb,
  backfillCounts,
  firstMissingBelow,
  getTracked,
  historyRows,
  insertTracked,
  ledgerBounds,
  pendingWalks,
  processedLts,
  requestResyncAll,
  updateWalk,
  writeExtractions,
  type HistoryCursor,
} from './store.js';

const blocksDir = new URL('../../test/fixtures/mainnet/blocks/', import.meta.url);
const mainnet: TransactionModel[] = ['tongo-block-6.boc', 'tongo-block-7.boc', 'block_0_8000000000000000_34703989.boc'].flatMap(
  (f) => decodeBlock(readFileSync(new URL(f, blocksDir))).transactions,
);

const h = (n: number) => n.toString(16).padStart(64, '0');
const owner = '0:' + 'aa'.repeat(32);
const master = '0:' + 'bb'.repeat(32);
const wallet = '0:' + 'cc'.repeat(32);

function record(asset: string, lt: bigint, hash: string, idx: number, extra: Partial<TransferRecord> = {}): TransferRecord {
  return {
    asset,
    owner,
    contract: asset === TON || asset === CLAIMS ? owner : wallet,
    lt,
    hash,
    idx,
    direction: 'in',
    kind: 'deposit',
    status: asset === CLAIMS ? 'rejected' : 'ok',
    sender: null,
    recipients: [owner],
    jetton: asset === TON || asset === CLAIMS ? null : asset,
    amount: 1000n + BigInt(idx),
    comment: null,
    fee: 0n,
    utime: 1_700_000_000,
    mcSeqno: 1,
    reason: null,
    source: null,
    ...extra,
  };
}

function line(asset: string, lt: bigint, hash: string, prevLt: bigint, prevHash: string, transfers: TransferRecord[] = []): Extraction {
  return { ledger: { asset, owner, lt, hash, prevLt, prevHash, utime: 1_700_000_000, mcSeqno: 1, fee: 10n }, transfers };
}

/** Every page of a history with `limit`, following next_from as a client does. */
async function allPages(store: Store, q: { asset: string; claimsExcept?: string[] }, limit: number, start?: HistoryCursor) {
  const seen: string[] = [];
  let before = start;
  for (let i = 0; i < 100; i++) {
    const rows = await historyRows(asDb(store.db), { asset: q.asset, owner, claimsExcept: q.claimsExcept, limit, before });
    const page = rows.slice(0, limit);
    seen.push(...page.map((r) => `${r.lt}:${r.hash}:${r.idx}`));
    if (rows.length <= limit) return seen;
    before = parseBeforeLt(cursorToken(page[page.length - 1]!));
  }
  throw new Error('pagination did not end');
}

describe.each(dialects)('indexer store on %s', (dialect) => {
  let store: Store;
  beforeEach(async () => {
    store = await openTestStore(dialect);
  });
  afterEach(async () => {
    await dropTestStore(store);
  });

  it('writes real mainnet transactions once, however often they are processed', async () => {
    const db = asDb(store.db);
    const items = mainnet.map((tx) => extract(tx, { asset: TON, owner: tx.account }));
    const transfers = items.reduce((n, e) => n + e.transfers.length, 0);
    expect(transfers).toBeGreaterThan(mainnet.length / 2);
    await writeExtractions(db, items);
    await writeExtractions(db, items.slice(3, 9));
    await store.db.transaction().execute((trx) => writeExtractions(asDb(trx), items));
    const count = async (table: string) => Number((await store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(await count('indexer_transactions')).toBe(mainnet.length);
    expect(await count('indexer_transfers')).toBe(transfers);
    const first = mainnet[0]!;
    const done = await processedLts(db, { asset: TON, owner: first.account }, [first.lt, first.lt + 1n]);
    expect([...done]).toEqual([first.lt]);
    // amounts and fees survive as exact decimals
    const rows = await db.selectFrom('indexer_transfers').selectAll().where('hash', '=', first.hash).orderBy('idx').execute();
    const expected = items[0]!.transfers.filter((t) => t.asset === TON);
    expect(rows.map((r) => [r.amount, r.fee, r.kind, r.direction])).toEqual(expected.map((t) => [t.amount.toString(), t.fee.toString(), t.kind, t.direction]));
  });

  it('pages newest first on (lt, hash, index): no item skipped or repeated at any page size, whatever arrives meanwhile', async () => {
    const db = asDb(store.db);
    // a jetton history with claims: records of different contracts share lt 300 and lt 200
    await writeExtractions(db, [
      line(master, 100n, h(1), 0n, h(0), [record(master, 100n, h(1), 0)]),
      line(master, 200n, h(2), 100n, h(1), [record(master, 200n, h(2), 0), record(master, 200n, h(2), 1), record(master, 200n, h(2), 2)]),
      line(master, 300n, h(4), 200n, h(2), [record(master, 300n, h(4), 0)]),
      line(TON, 200n, h(3), 0n, h(0), [record(CLAIMS, 200n, h(3), 0, { source: '0:' + 'dd'.repeat(32) })]),
      line(TON, 300n, h(9), 200n, h(3), [record(CLAIMS, 300n, h(9), 0, { source: wallet })]),
    ]);
    const q = { asset: master, claimsExcept: [wallet] };
    const full = await allPages(store, q, 1000);
    expect(full).toEqual([`300:${h(4)}:0`, `200:${h(3)}:0`, `200:${h(2)}:0`, `200:${h(2)}:1`, `200:${h(2)}:2`, `100:${h(1)}:0`]);
    for (const limit of [1, 2, 3, 4]) expect(await allPages(store, q, limit), `limit ${limit}`).toEqual(full);

    // a client in the middle of paging while new transfers arrive sees exactly the older items
    const first = await historyRows(db, { asset: master, owner, claimsExcept: [wallet], limit: 2 });
    await writeExtractions(db, [line(master, 400n, h(5), 300n, h(4), [record(master, 400n, h(5), 0)])]);
    const rest = await allPages(store, q, 2, parseBeforeLt(cursorToken(first[1]!)));
    expect([...first.slice(0, 2).map((r) => `${r.lt}:${r.hash}:${r.idx}`), ...rest]).toEqual(full);

    // a plain lt cursor means "older than this lt"
    expect(await allPages(store, q, 1000, { lt: 200n })).toEqual([`100:${h(1)}:0`]);
    // without exclusions every claim joins; the TON history has none of them
    expect(await allPages(store, { asset: master, claimsExcept: [] }, 1000)).toContain(`300:${h(9)}:0`);
    expect(await allPages(store, { asset: TON }, 1000)).toEqual([]);
  });

  it('finds where the processed prev-link chain breaks', async () => {
    const db = asDb(store.db);
    const key = { asset: TON, owner };
    // 10 ← 20 ← (30 missing) ← 40 ← 50
    await writeExtractions(db, [line(TON, 10n, h(10), 0n, h(0)), line(TON, 20n, h(20), 10n, h(10)), line(TON, 40n, h(40), 30n, h(30)), line(TON, 50n, h(50), 40n, h(40))]);
    expect(await firstMissingBelow(db, key, 50n, h(50))).toEqual({ lt: 30n, hash: h(30) });
    expect(await firstMissingBelow(db, key, 20n, h(20))).toBeNull();
    await writeExtractions(db, [line(TON, 30n, h(30), 20n, h(20))]);
    expect(await firstMissingBelow(db, key, 50n, h(50))).toBeNull();
    // a stored transaction with another hash than the link expects is a break too
    await writeExtractions(db, [line(TON, 60n, h(60), 50n, h(51))]);
    expect(await firstMissingBelow(db, key, 60n, h(60))).toEqual({ lt: 50n, hash: h(51) });
    expect(await ledgerBounds(db, key)).toEqual({ oldestLt: 10n, newestLt: 60n, count: 6 });
  });

  it('tracks an entry once and keeps its walk state: pending, resync requests, progress counts', async () => {
    const db = asDb(store.db);
    const key = { asset: master, owner };
    expect(await insertTracked(db, { ...key, contract: wallet, walkFrom: { lt: 500n, hash: h(5) }, now: 1 })).toBe(true);
    expect(await insertTracked(db, { ...key, contract: wallet, walkFrom: null, now: 2 })).toBe(false);
    expect(await insertTracked(db, { asset: TON, owner, contract: owner, walkFrom: null, now: 3 })).toBe(true);
    expect((await getTracked(db, key))).toMatchObject({ contract: wallet, walk_lt: 500n, walk_hash: h(5), backfill_done: 0n, pending: 1n });
    expect((await getTracked(db, { asset: TON, owner }))).toMatchObject({ backfill_done: 1n, pending: 0n });
    expect((await pendingWalks(db, 10)).map((r) => r.asset)).toEqual([master]);
    expect(await backfillCounts(db)).toEqual({ entries: 2, done: 1, walking: 1, failing: 0 });

    // a resync requested during a walk survives the walk's own updates
    expect(await requestResyncAll(db, 5)).toBe(2);
    await updateWalk(db, key, { walk: null, backfillDone: true, error: null, now: 6 });
    expect(await getTracked(db, key)).toMatchObject({ walk_lt: null, resync: 1n, pending: 1n, backfill_done: 1n });
    await updateWalk(db, key, { walk: null, resync: false, error: null, now: 7 });
    expect(await getTracked(db, key)).toMatchObject({ resync: 0n, pending: 0n, backfill_done: 1n });
    expect((await pendingWalks(db, 10)).map((r) => r.asset)).toEqual([TON]);

    const loaded: string[] = [];
    for await (const page of allTracked(db, 1)) loaded.push(...page.map((r) => `${r.asset}|${r.contract}`));
    expect(loaded.sort()).toEqual([`${master}|${wallet}`, `${TON}|${owner}`].sort());
  });
});
