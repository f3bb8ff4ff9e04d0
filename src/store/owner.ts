// Who runs on a store. SQLite serves one process: an owner row names it (pid, host, start time) and a
// second process refuses to start while that pid lives. On PostgreSQL every process holds the owner
// lock for its lifetime on a connection of its own: a single process exclusively, cluster members
// shared, so a process of the other kind cannot start beside them; the holders' session names say who
// they are. Both are released by a crash (a dead pid, a closed session) without any clean-up.
import os from 'node:os';
import { sql, type Kysely } from 'kysely';
import type pg from 'pg';
import type { Store } from './db.js';
import { toNum } from './db.js';
import { lockHolders, tryAdvisoryLock } from './locks.js';

/** Another process runs on the store; the message names it and the setting that would allow both. */
export class StoreInUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreInUseError';
  }
}

export interface StoreClaim {
  /** Gives the store back (a clean stop). */
  release(): Promise<void>;
}

export interface ClaimOptions {
  /** A member of a cluster (TONWATCH_CLUSTER): shares the store with other members. */
  cluster: boolean;
  now?: () => number;
  /** Told when the PostgreSQL owner session was lost and taken again (or could not be). */
  onWarning?: (message: string) => void;
}

/** Claims the store for this process, or throws StoreInUseError naming the process that holds it. */
export async function claimStore(store: Store, options: ClaimOptions): Promise<StoreClaim> {
  return store.connect ? claimPostgres(store.connect.bind(store), options) : claimSqlite(store.db, options.now ?? Date.now);
}

const HOST = os.hostname().slice(0, 20);

function describeSelf(cluster: boolean, startedAt: number): string {
  return `tonwatch pid=${process.pid} host=${HOST} started=${new Date(startedAt).toISOString().slice(0, 19)}Z ${cluster ? 'cluster' : 'single'}`;
}

async function claimPostgres(connect: (name: string) => Promise<pg.Client>, options: ClaimOptions): Promise<StoreClaim> {
  const name = describeSelf(options.cluster, (options.now ?? Date.now)());
  let client: pg.Client | null = null;
  let released = false;
  let retry: NodeJS.Timeout | null = null;

  const take = async (): Promise<void> => {
    const c = await connect(name);
    try {
      if (await tryAdvisoryLock(c, 'owner', options.cluster)) {
        client = c;
        // a lost session gave the lock up: take it again so a later single process still sees this one
        c.once('end', () => {
          client = null;
          if (!released) schedule();
        });
        return;
      }
      const holders = await lockHolders(c, 'owner');
      await c.end().catch(() => {});
      throw new StoreInUseError(inUseMessage(holders, options.cluster));
    } catch (err) {
      if (client !== c) await c.end().catch(() => {});
      throw err;
    }
  };
  const schedule = () => {
    retry = setTimeout(() => {
      retry = null;
      take().catch((err) => {
        options.onWarning?.(`the store's owner lock could not be taken again: ${(err as Error).message}`);
        if (!released && !(err instanceof StoreInUseError)) schedule();
      });
    }, 2000);
    retry.unref();
  };

  await take();
  return {
    async release() {
      released = true;
      if (retry) clearTimeout(retry);
      await (client as pg.Client | null)?.end().catch(() => {});
    },
  };
}

function inUseMessage(holders: string[], cluster: boolean): string {
  const who = holders.length ? holders.map((h) => `"${h}"`).join(', ') : 'another process (it left while we looked; try again)';
  const single = holders.some((h) => h.endsWith(' single'));
  const fix = cluster
    ? single
      ? 'that process runs without TONWATCH_CLUSTER and must be the only one: stop it, or restart it with TONWATCH_CLUSTER=true'
      : 'stop it, or start this one with TONWATCH_CLUSTER=true'
    : 'stop it, or run every process with TONWATCH_CLUSTER=true (docs/DEPLOYMENT.md)';
  return `DATABASE_URL: this database is in use by ${who}; ${fix}`;
}

interface OwnerTables {
  store_owner: { singleton: bigint; pid: bigint; host: string; started_at: bigint };
}

/** SQLite: a compare-and-set on one row, so two processes starting together cannot both win. */
async function claimSqlite(handle: Kysely<any>, now: () => number): Promise<StoreClaim> {
  const db = handle as Kysely<OwnerTables>;
  // Made here, not by a migration: the claim comes before migrations, which only the owner runs.
  await sql`create table if not exists store_owner (singleton integer primary key, pid bigint not null, host text not null, started_at bigint not null)`.execute(db);
  const mine = { singleton: 1n, pid: BigInt(process.pid), host: os.hostname(), started_at: BigInt(now()) };
  let claimed = false;
  for (let attempt = 0; attempt < 5 && !claimed; attempt++) {
    const row = await db.selectFrom('store_owner').selectAll().where('singleton', '=', 1n).executeTakeFirst();
    if (!row) {
      const inserted = await db.insertInto('store_owner').values(mine).onConflict((oc) => oc.column('singleton').doNothing()).executeTakeFirst();
      claimed = toNum(inserted.numInsertedOrUpdatedRows) === 1;
      continue;
    }
    if (isAlive(row)) {
      const started = new Date(toNum(row.started_at)).toISOString();
      // another host's process cannot be checked from here
      const gone = row.host === os.hostname() ? '' : ` If it no longer runs, delete its row: sqlite3 <the store file> "delete from store_owner".`;
      throw new StoreInUseError(
        `TONWATCH_DATA_DIR: the SQLite store is in use by another tonwatch process (pid ${row.pid} on ${row.host}, started ${started}); SQLite serves one process: stop that one, give this one another TONWATCH_DATA_DIR, or run a cluster on PostgreSQL (DATABASE_URL, TONWATCH_CLUSTER).${gone}`,
      );
    }
    // the owner died without a clean stop: take over its row, unless someone else just did
    const taken = await db
      .updateTable('store_owner')
      .set({ pid: mine.pid, host: mine.host, started_at: mine.started_at })
      .where('singleton', '=', 1n)
      .where('pid', '=', row.pid)
      .where('started_at', '=', row.started_at)
      .executeTakeFirst();
    claimed = toNum(taken.numUpdatedRows) === 1;
  }
  if (!claimed) throw new StoreInUseError('TONWATCH_DATA_DIR: the SQLite store changed owners while this process started; try again');
  return {
    async release() {
      await db.deleteFrom('store_owner').where('pid', '=', mine.pid).where('started_at', '=', mine.started_at).execute();
    },
  };
}

/** A recorded owner still runs: it is this host's process and that pid exists (another host's SQLite owner is trusted). */
function isAlive(row: { pid: bigint; host: string }): boolean {
  if (row.host !== os.hostname()) return true;
  if (Number(row.pid) === process.pid) return false;
  try {
    process.kill(Number(row.pid), 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
