// Backfill walks as claimed jobs, so many workers on one PostgreSQL share them: a worker claims
// pending entries that nobody holds (or whose claim expired: its worker died or stalled), renews
// the claims of the entries it is walking, and each page commits only while the claim is still its
// own (updateWalk's `claimedBy`). The walk position in the row is the progress any worker resumes from.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { dialectOf } from '../store/types.js';
import type { EntryKey } from './store.js';
import type { IndexerTables, TrackedRow } from './tables.js';

type Db = Kysely<IndexerTables>;

/** Now in ms: the database's clock on PostgreSQL (workers' clocks may differ), this process's on SQLite. */
function claimNow(db: Db): RawBuilder<number> {
  return dialectOf(db) === 'postgres' ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint` : sql<number>`${Date.now()}`;
}

/** Claims up to `limit` pending entries for `worker`, oldest update first; returns them. */
export async function claimWalks(db: Db, worker: string, leaseMs: number, limit: number): Promise<TrackedRow[]> {
  if (limit <= 0) return [];
  const now = claimNow(db);
  // PostgreSQL: entries another worker is claiming at this instant are skipped, not waited for.
  const lock = dialectOf(db) === 'postgres' ? sql`for update skip locked` : sql``;
  const { rows } = await sql<TrackedRow>`
    update indexer_tracked set claimed_by = ${worker}, claim_until = ${now} + ${leaseMs}
    where (asset, owner) in (
      select asset, owner from indexer_tracked
      where pending = 1 and (claim_until is null or claim_until < ${now})
      order by updated_at limit ${limit} ${lock})
    returning *`.execute(db);
  return rows;
}

/** Extends the claims of the entries `worker` is walking; returns those it no longer holds. */
export async function renewClaims(db: Db, worker: string, leaseMs: number, keys: readonly EntryKey[]): Promise<EntryKey[]> {
  if (keys.length === 0) return [];
  const now = claimNow(db);
  const kept = await db
    .updateTable('indexer_tracked')
    .set({ claim_until: sql<bigint>`${now} + ${leaseMs}` })
    .where('claimed_by', '=', worker)
    .where((eb) => eb.or(keys.map((k) => eb.and([eb('asset', '=', k.asset), eb('owner', '=', k.owner)]))))
    .returning(['asset', 'owner'])
    .execute();
  const held = new Set(kept.map((k) => `${k.asset}|${k.owner}`));
  return keys.filter((k) => !held.has(`${k.asset}|${k.owner}`));
}

/** Gives a claim back, claimable by anyone from `until` (ms on the claim clock; 0: at once). */
export async function releaseClaim(db: Db, worker: string, key: EntryKey, delayMs: number): Promise<void> {
  const now = claimNow(db);
  await db
    .updateTable('indexer_tracked')
    .set({ claim_until: delayMs > 0 ? sql<bigint>`${now} + ${delayMs}` : null, claimed_by: delayMs > 0 ? worker : null })
    .where('asset', '=', key.asset)
    .where('owner', '=', key.owner)
    .where('claimed_by', '=', worker)
    .execute();
}

/** Gives back every claim of `worker` (a clean stop). */
export async function releaseAllClaims(db: Db, worker: string): Promise<void> {
  await db.updateTable('indexer_tracked').set({ claimed_by: null, claim_until: null }).where('claimed_by', '=', worker).execute();
}
