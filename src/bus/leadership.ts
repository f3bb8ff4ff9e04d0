// Terms of leadership, the fence of the event log's writer. Whoever becomes the follower's leader
// takes the next term (takeTerm) before reading the cursor; every append, and every step of the
// singletons the leader runs, checks in its own transaction that the term is still the newest
// (checkTerm). The check locks the row (shared) until that transaction commits, so a takeover waits
// for the writes in flight and then reads cursors that include them; a write that comes after a
// takeover finds a newer term and rolls back.
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import { toNum } from '../store/db.js';
import { dialectOf } from '../store/types.js';

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

/**
 * How a singleton's step says it failed: an error, except the fence's refusal (another process leads),
 * which comes back on every retry until the process is stopped or leads again and is said once.
 */
export class StepFailures {
  private refused = false;

  constructor(
    private readonly logger: Logger | undefined,
    /** The step, as the refusal names it ("consumer step"). */
    private readonly step: string,
  ) {}

  failed(err: unknown, fields: object, message: string): void {
    if (!(err instanceof FencedError)) {
      this.refused = false;
      this.logger?.error({ ...fields, err }, message);
      return;
    }
    if (!this.refused) this.logger?.warn({ ...fields, err }, `${this.step} refused: another process leads now; retrying until this one is stopped or leads again`);
    this.refused = true;
  }

  /** A step committed: a later refusal is news again. */
  succeeded(): void {
    this.refused = false;
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

/**
 * Throws FencedError unless `term` is still the newest of `role`; holds a shared lock on the row until
 * `trx` ends, so the writes of one term (the follower's appends, the singletons' steps) never wait for
 * each other while a takeover, which updates the row, waits for all of them.
 */
export async function checkTerm(trx: Kysely<any>, role: string, term: number): Promise<void> {
  const query = (trx as Kysely<LeadershipTables>).selectFrom('leadership').select('term').where('role', '=', role).where('term', '=', BigInt(term));
  // SQLite has no row locks (nor clusters): its one writer at a time is the lock
  const row = await (dialectOf(trx) === 'postgres' ? query.forShare() : query).executeTakeFirst();
  if (!row) throw new FencedError(role, term);
}

/** Who leads `role` (the last to take a term), or null when no one has yet. */
export async function currentLeader(db: Kysely<any>, role: string): Promise<Leader | null> {
  const row = await (db as Kysely<LeadershipTables>).selectFrom('leadership').selectAll().where('role', '=', role).executeTakeFirst();
  return row ? { term: toNum(row.term), holder: row.holder, takenAt: toNum(row.taken_at) } : null;
}
