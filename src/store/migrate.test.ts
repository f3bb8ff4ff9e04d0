import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { allMigrations } from '../components.js';
import { PG_URL, dialects, dropTestStore, openTestStore, uniqueSchema } from '../../test/support/stores.js';
import { migrate } from './migrate.js';

describe.runIf(dialects.includes('postgres'))('migrations on postgres', () => {
  it('migrates stores while other schemas are created and dropped around them (Kysely read every schema and failed on them)', async () => {
    const churners = await Promise.all([1, 2, 3].map(async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      return client;
    }));
    let churning = true;
    let dropped = 0;
    const columns = Array.from({ length: 8 }, (_, i) => `c${i} bigserial`).join(', ');
    // Other stores' lives and deaths in tight loops: tables with serial columns, as a migrated store has.
    const loop = Promise.all(churners.map(async (churn) => {
      while (churning) {
        const schema = uniqueSchema('churn');
        await churn.query(`create schema ${schema}`);
        await churn.query(`create table ${schema}.kysely_migration_lock (id varchar(255) primary key, is_locked integer)`);
        await churn.query(`create table ${schema}.items (id bigserial primary key, ${columns})`);
        await churn.query(`drop schema ${schema} cascade`);
        dropped++;
      }
    }));
    try {
      for (let i = 0; i < 12; i++) {
        const store = await openTestStore('postgres');
        // its own tables are found again: nothing is applied twice
        expect(await migrate(store, allMigrations)).toEqual([]);
        await dropTestStore(store);
      }
    } finally {
      churning = false;
      await loop;
      await Promise.all(churners.map((c) => c.end()));
    }
    expect(dropped).toBeGreaterThan(0);
  }, 60_000);
});
