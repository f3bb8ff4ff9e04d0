// Terms of leadership, the fence of the event log's writer. Whoever becomes the follower's leader
// takes the next term (takeTerm) before reading the cursor; every append checks, in its own
// transaction, that the term is still the newest (checkTerm). The check locks the row until the
// append commits, so a takeover waits for an append in flight and then reads a cursor that includes
// it; an append that comes after a takeover finds a newer term and rolls back.
import { sql, type Kysely } from 'kysely';
import { toNum } from '../store/db.js';

interface LeadershipTables {
  leadership: { role: string; term: bigint; holder: string; taken_at: bigint };
}

/** The writer's term is no longer the newest: another process leads now, and this one must not write. */
export class FencedError extends Error {
  constructor(
    readonly role: string,
    readonly term: number,
  ) {
    super(`${role} leadership term ${term} was taken over by another process: this process no longer writes`);
    this.name = 'FencedError';
  }
}

export interface Leader {
  term: number;
  holder: string;
  takenAt: number;
}

/** Starts the next term of `role` for `holder`; returns it. */
export async function takeTerm(db: Kysely<any>, role: string, holder: string, now: number): Promise<number> {
  const row = await (db as Kysely<LeadershipTables>)
    .insertInto('leadership')
    .values({ role, term: 1n, holder, taken_at: BigInt(now) })
    .onConflict((oc) => oc.column('role').doUpdateSet({ term: sql`leadership.term + 1`, holder, taken_at: BigInt(now) }))
    .returning('term')
    .executeTakeFirstOrThrow();
  return toNum(row.term);
}

/** Throws FencedError unless `term` is still the newest of `role`; holds the row until `trx` ends. */
export async function checkTerm(trx: Kysely<any>, role: string, term: number): Promise<void> {
  const result = await (trx as Kysely<LeadershipTables>)
    .updateTable('leadership')
    .set({ term: BigInt(term) })
    .where('role', '=', role)
    .where('term', '=', BigInt(term))
    .executeTakeFirst();
  if (toNum(result.numUpdatedRows) !== 1) throw new FencedError(role, term);
}

/** Who leads `role` (the last to take a term), or null when no one has yet. */
export async function currentLeader(db: Kysely<any>, role: string): Promise<Leader | null> {
  const row = await (db as Kysely<LeadershipTables>).selectFrom('leadership').selectAll().where('role', '=', role).executeTakeFirst();
  return row ? { term: toNum(row.term), holder: row.holder, takenAt: toNum(row.taken_at) } : null;
}
