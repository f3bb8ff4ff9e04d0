// Runs store tests against both dialects: SQLite in memory, and PostgreSQL (127.0.0.1:5432,
// database `test`) in a fresh schema per store so parallel test files never meet.
// Where PostgreSQL is absent the PostgreSQL cases skip with a message; with `CI` set they fail
// instead, so a CI machine without PostgreSQL cannot pass with half the store tests unrun.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore, type DialectName, type Store } from '../../src/store/db.js';
import { allMigrations } from '../../src/components.js';
import { migrate } from '../../src/store/migrate.js';

export const PG_URL = process.env.TONWATCH_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let pgAvailable: Promise<boolean> | undefined;

/** CI must run both dialects: any non-empty `CI` other than `false`/`0` makes PostgreSQL required. */
export function requirePostgres(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return !!ci && ci !== 'false' && ci !== '0';
}

export function postgresAvailable(): Promise<boolean> {
  pgAvailable ??= (async () => {
    const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('select 1');
      return true;
    } catch (err) {
      const why = `cannot reach ${PG_URL} (${(err as Error).message})`;
      if (requirePostgres()) throw new Error(`PostgreSQL is required when CI is set: ${why}`);
      console.warn(`PostgreSQL tests skipped: ${why}`);
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return pgAvailable;
}

/** Dialects to run store tests on; PostgreSQL only when reachable (checked once, at collection time). */
export const dialects: DialectName[] = ['sqlite', ...((await postgresAvailable()) ? (['postgres'] as const) : [])];

export function uniqueSchema(prefix = 't'): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/** Opens a fresh, migrated store of the given dialect. Close it with `dropTestStore`. */
export async function openTestStore(dialect: DialectName, sqlitePath = ':memory:'): Promise<Store> {
  const store =
    dialect === 'postgres'
      ? await openStore({ databaseUrl: PG_URL, pgSchema: uniqueSchema(), pgPoolSize: 4 })
      : await openStore({ sqlitePath });
  await migrate(store, allMigrations);
  return store;
}

/** Closes the store and drops its PostgreSQL schema. */
export async function dropTestStore(store: Store): Promise<void> {
  const schema = /\(schema ([a-z0-9_]+)\)/.exec(store.description)?.[1];
  await store.close();
  if (store.dialect === 'postgres' && schema) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    } finally {
      await client.end();
    }
  }
}
