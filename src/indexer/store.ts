// The indexer's queries, the same on SQLite and PostgreSQL. Writes are idempotent (a transaction
// processed twice — by the backfill walk and by live tracking — leaves the same rows).
import { sql, type Kysely } from 'kysely';
import type { AccountId, HashHex } from '../chain/model.js';
import { toNum } from '../store/db.js';
import { CLAIMS, TON, type Asset, type Extraction, type TransferRecord } from './extract.js';
import type { IndexerTables, TrackedRow, TransactionRow, TransferRow } from './tables.js';

type Db = Kysely<IndexerTables>;
export const asDb = (db: Kysely<any>): Db => db as Db;

/** Rows per multi-row insert (19 parameters a transfer: far below both dialects' limits). */
const CHUNK = 400;

export interface EntryKey {
  asset: Asset;
  owner: AccountId;
}

// ---- writing processed transactions -------------------------------------------------------

export async function writeExtractions(db: Db, items: Extraction[]): Promise<void> {
  if (items.length === 0) return;
  const ledger = items.map((e) => ledgerRow(e));
  for (let i = 0; i < ledger.length; i += CHUNK) {
    await db
      .insertInto('indexer_transactions')
      .values(ledger.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(['asset', 'owner', 'lt']).doNothing())
      .execute();
  }
  const transfers = items.flatMap((e) => e.transfers.map(transferRow));
  for (let i = 0; i < transfers.length; i += CHUNK) {
    await db
      .insertInto('indexer_transfers')
      .values(transfers.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(['asset', 'owner', 'lt', 'hash', 'idx']).doNothing())
      .execute();
  }
}

function ledgerRow({ ledger: l }: Extraction): TransactionRow {
  return {
    asset: l.asset,
    owner: l.owner,
    lt: l.lt,
    hash: l.hash,
    prev_lt: l.prevLt,
    prev_hash: l.prevHash,
    utime: BigInt(l.utime),
    mc_seqno: BigInt(l.mcSeqno),
    fee: l.fee.toString(),
  };
}

function transferRow(t: TransferRecord): TransferRow {
  return {
    asset: t.asset,
    owner: t.owner,
    lt: t.lt,
    hash: t.hash,
    idx: BigInt(t.idx),
    contract: t.contract,
    direction: t.direction,
    kind: t.kind,
    status: t.status,
    sender: t.sender,
    recipients: JSON.stringify(t.recipients),
    jetton: t.jetton,
    amount: t.amount.toString(),
    comment: t.comment,
    fee: t.fee.toString(),
    utime: BigInt(t.utime),
    mc_seqno: BigInt(t.mcSeqno),
    reason: t.reason,
    source: t.source,
  };
}

/** Which of these lts of the entry are already processed. */
export async function processedLts(db: Db, key: EntryKey, lts: bigint[]): Promise<Set<bigint>> {
  if (lts.length === 0) return new Set();
  const rows = await db
    .selectFrom('indexer_transactions')
    .select('lt')
    .where('asset', '=', key.asset)
    .where('owner', '=', key.owner)
    .where('lt', 'in', lts)
    .execute();
  return new Set(rows.map((r) => BigInt(r.lt)));
}

/**
 * Follows the processed transactions of an entry down the prev links from the one at `lt`, and
 * returns where the chain first breaks: the (lt, hash) of the missing transaction, or null when it
 * reaches the contract's first transaction.
 */
export async function firstMissingBelow(db: Db, key: EntryKey, lt: bigint, hash: HashHex): Promise<{ lt: bigint; hash: HashHex } | null> {
  let expectLt = lt;
  let expectHash = hash;
  for (;;) {
    const rows = await db
      .selectFrom('indexer_transactions')
      .select(['lt', 'hash', 'prev_lt', 'prev_hash'])
      .where('asset', '=', key.asset)
      .where('owner', '=', key.owner)
      .where('lt', '<=', expectLt)
      .orderBy('lt', 'desc')
      .limit(500)
      .execute();
    for (const r of rows) {
      if (BigInt(r.lt) !== expectLt || r.hash !== expectHash) return { lt: expectLt, hash: expectHash };
      if (BigInt(r.prev_lt) === 0n) return null;
      expectLt = BigInt(r.prev_lt);
      expectHash = r.prev_hash;
    }
    if (rows.length < 500) return { lt: expectLt, hash: expectHash };
  }
}

// ---- tracked entries ----------------------------------------------------------------------

export interface NewTracked extends EntryKey {
  contract: AccountId;
  /** Newest transaction at tracking time, where the backfill walk starts; null for no history. */
  walkFrom: { lt: bigint; hash: HashHex } | null;
  now: number;
}

/** Inserts a tracked entry; false when it already exists. */
export async function insertTracked(db: Db, t: NewTracked): Promise<boolean> {
  const result = await db
    .insertInto('indexer_tracked')
    .values({
      asset: t.asset,
      owner: t.owner,
      contract: t.contract,
      walk_lt: t.walkFrom?.lt ?? null,
      walk_hash: t.walkFrom?.hash ?? null,
      backfill_done: t.walkFrom ? 0n : 1n,
      resync: 0n,
      pending: t.walkFrom ? 1n : 0n,
      error: null,
      created_at: BigInt(t.now),
      updated_at: BigInt(t.now),
    })
    .onConflict((oc) => oc.columns(['asset', 'owner']).doNothing())
    .executeTakeFirst();
  return toNum(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function getTracked(db: Db, key: EntryKey): Promise<TrackedRow | undefined> {
  return db.selectFrom('indexer_tracked').selectAll().where('asset', '=', key.asset).where('owner', '=', key.owner).executeTakeFirst();
}

/** Every tracked entry's contract and role, page by page (for loading the in-memory set). */
export async function* allTracked(db: Db, pageSize = 5000): AsyncGenerator<Pick<TrackedRow, 'asset' | 'owner' | 'contract'>[]> {
  let after: { asset: string; owner: string } | null = null;
  for (;;) {
    let q = db.selectFrom('indexer_tracked').select(['asset', 'owner', 'contract']);
    if (after) {
      const a: { asset: string; owner: string } = after;
      q = q.where((eb) => eb.or([eb('asset', '>', a.asset), eb.and([eb('asset', '=', a.asset), eb('owner', '>', a.owner)])]));
    }
    const rows = await q.orderBy('asset').orderBy('owner').limit(pageSize).execute();
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1]!;
  }
}

/** Jetton wallets of the owner's tracked jettons (their notifications are genuine, not claims). */
export async function trackedJettonWallets(db: Db, owner: AccountId): Promise<AccountId[]> {
  const rows = await db.selectFrom('indexer_tracked').select('contract').where('owner', '=', owner).where('asset', '<>', TON).execute();
  return rows.map((r) => r.contract);
}

/** Entries with backfill work (an active walk, or a resync request), least recently touched first. */
export async function pendingWalks(db: Db, limit: number): Promise<TrackedRow[]> {
  return db.selectFrom('indexer_tracked').selectAll().where('pending', '=', 1n).orderBy('updated_at').limit(limit).execute();
}

export interface WalkUpdate {
  /** Next transaction to fetch, or null when the walk is finished. */
  walk: { lt: bigint; hash: HashHex } | null;
  /** Clears (false) a served resync request; untouched when undefined, so a request made meanwhile stays. */
  resync?: false;
  /** Set once the walk reached the contract's first transaction. */
  backfillDone?: boolean;
  error: string | null;
  now: number;
  /** Only while this backfill worker holds the entry's claim, which the update gives back. */
  claimedBy?: string;
}

/** Updates an entry's walk; returns false when `claimedBy` no longer holds it (nothing written). */
export async function updateWalk(db: Db, key: EntryKey, u: WalkUpdate): Promise<boolean> {
  const r = await db
    .updateTable('indexer_tracked')
    .set((eb) => ({
      walk_lt: u.walk?.lt ?? null,
      walk_hash: u.walk?.hash ?? null,
      ...(u.resync === false ? { resync: 0n } : {}),
      // still pending while walking, or while a resync request waits
      pending: u.walk !== null ? 1n : u.resync === false ? 0n : eb.ref('resync'),
      ...(u.backfillDone ? { backfill_done: 1n } : {}),
      error: u.error,
      updated_at: BigInt(u.now),
      ...(u.claimedBy !== undefined ? { claimed_by: null, claim_until: null } : {}),
    }))
    .where('asset', '=', key.asset)
    .where('owner', '=', key.owner)
    .$if(u.claimedBy !== undefined, (q) => q.where('claimed_by', '=', u.claimedBy!))
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

export async function recordWalkError(db: Db, key: EntryKey, error: string, now: number): Promise<void> {
  await db
    .updateTable('indexer_tracked')
    .set({ error: error.slice(0, 500), updated_at: BigInt(now) })
    .where('asset', '=', key.asset)
    .where('owner', '=', key.owner)
    .execute();
}

/** Asks one entry to re-walk from its current chain state down to its processed history. */
export async function requestResync(db: Db, key: EntryKey, now: number): Promise<void> {
  await db.updateTable('indexer_tracked').set({ resync: 1n, pending: 1n, updated_at: BigInt(now) }).where('asset', '=', key.asset).where('owner', '=', key.owner).execute();
}

/** Asks every entry to re-walk from its current chain state (after live tracking missed events). */
export async function requestResyncAll(db: Db, now: number): Promise<number> {
  const r = await db.updateTable('indexer_tracked').set({ resync: 1n, pending: 1n, updated_at: BigInt(now) }).executeTakeFirst();
  return toNum(r.numUpdatedRows);
}

export interface BackfillCounts {
  entries: number;
  done: number;
  walking: number;
  failing: number;
}

export async function backfillCounts(db: Db): Promise<BackfillCounts> {
  const row = await db
    .selectFrom('indexer_tracked')
    .select((eb) => [
      eb.fn.countAll().as('entries'),
      eb.fn.sum('backfill_done').as('done'),
      eb.fn.sum('pending').as('walking'),
      sql<number>`sum(case when error is null then 0 else 1 end)`.as('failing'),
    ])
    .executeTakeFirstOrThrow();
  return { entries: toNum(row.entries), done: toNum(row.done), walking: toNum(row.walking), failing: toNum(row.failing) };
}

// ---- reading ------------------------------------------------------------------------------

export interface LedgerBounds {
  oldestLt: bigint | null;
  newestLt: bigint | null;
  count: number;
}

export async function ledgerBounds(db: Db, key: EntryKey): Promise<LedgerBounds> {
  const row = await db
    .selectFrom('indexer_transactions')
    .select((eb) => [eb.fn.min('lt').as('oldest'), eb.fn.max('lt').as('newest'), eb.fn.countAll().as('count')])
    .where('asset', '=', key.asset)
    .where('owner', '=', key.owner)
    .executeTakeFirstOrThrow();
  return {
    oldestLt: row.oldest == null ? null : BigInt(row.oldest as bigint),
    newestLt: row.newest == null ? null : BigInt(row.newest as bigint),
    count: toNum(row.count),
  };
}

/** Position in a history, newest first: items strictly after it come next. */
export type HistoryCursor = { lt: bigint } | { lt: bigint; hash: HashHex; idx: number };

export interface HistoryQuery extends EntryKey {
  /** For a jetton history: the owner's claims not sent by these wallets join as rejected records. */
  claimsExcept?: AccountId[];
  before?: HistoryCursor;
  limit: number;
}

/** One page, newest first: (lt desc, hash desc, idx asc). Returns up to limit + 1 rows (the extra says "more"). */
export async function historyRows(db: Db, q: HistoryQuery): Promise<TransferRow[]> {
  let query = db
    .selectFrom('indexer_transfers')
    .selectAll()
    .where((eb) => {
      const own = eb.and([eb('asset', '=', q.asset), eb('owner', '=', q.owner)]);
      if (!q.claimsExcept) return own;
      const claims = [eb('asset', '=', CLAIMS), eb('owner', '=', q.owner)];
      if (q.claimsExcept.length > 0) claims.push(eb('source', 'not in', q.claimsExcept));
      return eb.or([own, eb.and(claims)]);
    });
  const before = q.before;
  if (before) {
    query = query.where((eb) => {
      if (!('hash' in before)) return eb('lt', '<', before.lt);
      return eb.or([
        eb('lt', '<', before.lt),
        eb.and([eb('lt', '=', before.lt), eb.or([eb('hash', '<', before.hash), eb.and([eb('hash', '=', before.hash), eb('idx', '>', BigInt(before.idx))])])]),
      ]);
    });
  }
  return query.orderBy('lt', 'desc').orderBy('hash', 'desc').orderBy('idx', 'asc').limit(q.limit + 1).execute();
}

/** The records of one transaction in a history (claims joined as for `historyRows`). */
export async function rowsByHash(db: Db, q: EntryKey & { hash: HashHex; claimsExcept?: AccountId[] }): Promise<TransferRow[]> {
  const own = await db.selectFrom('indexer_transfers').selectAll().where('asset', '=', q.asset).where('owner', '=', q.owner).where('hash', '=', q.hash).orderBy('idx').execute();
  if (own.length > 0 || !q.claimsExcept) return own;
  let claims = db.selectFrom('indexer_transfers').selectAll().where('asset', '=', CLAIMS).where('owner', '=', q.owner).where('hash', '=', q.hash);
  if (q.claimsExcept.length > 0) claims = claims.where('source', 'not in', q.claimsExcept);
  return claims.orderBy('idx').execute();
}
