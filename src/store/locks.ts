// PostgreSQL advisory locks held by a session (a dedicated connection, Store.connect): they end with
// the connection, so a process killed or cut off loses them without anyone cleaning up. Locks are
// per database and tests (and operators) may share one database between schemas, so every key is
// the lock's purpose and a hash of the current schema.
import type pg from 'pg';

/** What a lock guards; the number is the key's first half. */
export const LOCKS = {
  /** Held by every process on the store: exclusively by a single process, shared by cluster members. */
  owner: 0x746f6e01,
  /** The follower role's leader. */
  leader: 0x746f6e02,
  /** Whoever runs migrations and start-up writes. */
  migrate: 0x746f6e03,
  /** One per webhook delivery worker, keyed by its name as well (memberLockKey): it is alive while held. */
  deliveryWorker: 0x746f6e04,
} as const;

export type LockName = keyof typeof LOCKS;

const SCHEMA_KEY = 'hashtext(current_schema())';

/** SQL for the second key of a member's lock: the schema and the member's name (`member`: SQL text). */
export function memberLockKey(member: string): string {
  return `hashtext(current_schema() || '/' || ${member})`;
}

/** Takes a member's lock (one per member of a group, e.g. each delivery worker) if free; true when taken. */
export async function tryMemberLock(client: pg.Client, lock: LockName, member: string): Promise<boolean> {
  const { rows } = await client.query<{ taken: boolean }>(`select pg_try_advisory_lock($1, ${memberLockKey('$2::text')}) as taken`, [LOCKS[lock], member]);
  return rows[0]!.taken === true;
}

/** Takes the lock if free (or, `shared`, if no one holds it exclusively); true when taken. */
export async function tryAdvisoryLock(client: pg.Client, lock: LockName, shared = false): Promise<boolean> {
  const fn = shared ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock';
  const { rows } = await client.query<{ taken: boolean }>(`select ${fn}($1, ${SCHEMA_KEY}) as taken`, [LOCKS[lock]]);
  return rows[0]!.taken === true;
}

/** Waits for the lock. */
export async function advisoryLock(client: pg.Client, lock: LockName): Promise<void> {
  await client.query(`select pg_advisory_lock($1, ${SCHEMA_KEY})`, [LOCKS[lock]]);
}

export async function advisoryUnlock(client: pg.Client, lock: LockName): Promise<void> {
  await client.query(`select pg_advisory_unlock($1, ${SCHEMA_KEY})`, [LOCKS[lock]]);
}

/** The application names of the other sessions holding `lock` (who they are, for error messages). */
export async function lockHolders(client: pg.Client, lock: LockName): Promise<string[]> {
  // pg_locks shows the two-key form as classid/objid (unsigned) with objsubid 2
  const { rows } = await client.query<{ name: string }>(
    `select a.application_name as name
       from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.objsubid = 2 and l.database = (select oid from pg_database where datname = current_database())
        and l.classid::int8 = $1 and l.objid::int8 = (${SCHEMA_KEY}::int8 + 4294967296) % 4294967296
        and l.pid <> pg_backend_pid()`,
    [LOCKS[lock]],
  );
  return rows.map((r) => r.name);
}

/** Runs `work` while holding `lock` on a connection of its own, waiting for it first (PostgreSQL); directly elsewhere. */
export async function withAdvisoryLock<T>(
  connect: ((applicationName: string) => Promise<pg.Client>) | undefined,
  lock: LockName,
  work: () => Promise<T>,
): Promise<T> {
  if (!connect) return work();
  const client = await connect(`tonwatch ${lock} pid=${process.pid}`);
  try {
    await advisoryLock(client, lock);
    return await work();
  } finally {
    // ending the session releases the lock
    await client.end().catch(() => {});
  }
}
