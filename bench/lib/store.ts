// Stores for benchmarks: SQLite in the benchmark's temp dir (the embedded default), or PostgreSQL
// in a fresh schema that is dropped afterwards, when a server is reachable.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { openStore, type DialectName, type Store } from '../../src/store/db.js';
import { allMigrations } from '../../src/components.js';
import { migrate } from '../../src/store/migrate.js';

export const BENCH_PG_URL = process.env.TONWATCH_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchStore {
  store: Store;
  /** The PostgreSQL schema (other processes open it too); undefined on SQLite. */
  schema?: string;
  /** Closes the store and drops its PostgreSQL schema. */
  close(): Promise<void>;
}

/** Whether PostgreSQL answers at BENCH_PG_URL (benchmarks skip their PostgreSQL rows otherwise). */
export async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: BENCH_PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function openBenchStore(dialect: DialectName, tmpDir: string, name = 'bench'): Promise<BenchStore> {
  if (dialect === 'sqlite') {
    const store = await openStore({ sqlitePath: join(tmpDir, `${name}.sqlite`) });
    await migrate(store, allMigrations);
    return { store, close: () => store.close() };
  }
  const schema = `bench_${name.replace(/[^a-z0-9_]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const store = await openStore({ databaseUrl: BENCH_PG_URL, pgSchema: schema, pgPoolSize: 4 });
  await migrate(store, allMigrations);
  return {
    store,
    schema,
    close: async () => {
      await store.close();
      const client = new pg.Client({ connectionString: BENCH_PG_URL });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

