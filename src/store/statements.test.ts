// The prepared-statement cache in front of Kysely's SQLite driver, on a real SQLite database.
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { withStatementCache } from './statements.js';

describe('SQLite statement cache', () => {
  let raw: Database.Database;
  let db: Kysely<any>;
  afterEach(async () => db.destroy());

  function open(limit?: number) {
    raw = new Database(':memory:');
    db = new Kysely<any>({ dialect: new SqliteDialect({ database: withStatementCache(raw, limit) }) });
  }

  it('prepares each SQL text once, however often it runs', async () => {
    open();
    let prepares = 0;
    const prepare = raw.prepare.bind(raw);
    raw.prepare = ((source: string) => (prepares++, prepare(source))) as typeof raw.prepare;
    await sql`create table t (id integer primary key, v text)`.execute(db);
    for (let i = 0; i < 50; i++) await db.insertInto('t').values({ id: i, v: `v${i}` }).execute();
    const rows = await db.selectFrom('t').select(['id', 'v']).where('id', '<', 3).orderBy('id').execute();
    expect(rows).toEqual([{ id: 0, v: 'v0' }, { id: 1, v: 'v1' }, { id: 2, v: 'v2' }]);
    expect(prepares).toBe(3);
  });

  it('does not hand out a statement that is still stepping through an iterate()', async () => {
    open();
    const cache = withStatementCache(raw);
    raw.exec('create table t (id integer primary key); insert into t values (1), (2)');
    const first = cache.prepare('select id from t');
    const rows = first.iterate([]);
    rows.next();
    const second = cache.prepare('select id from t');
    expect(second).not.toBe(first);
    rows.return?.();
    expect(cache.prepare('select id from t')).toBe(first);
  });

  it('keeps at most `limit` statements, dropping the least recently used', async () => {
    open(2);
    let prepares = 0;
    const prepare = raw.prepare.bind(raw);
    raw.prepare = ((source: string) => (prepares++, prepare(source))) as typeof raw.prepare;
    const q = (n: number) => sql`select ${sql.lit(n)} as n`.execute(db);
    await q(1);
    await q(2);
    await q(1); // cached; 2 is now the oldest
    await q(3); // evicts 2
    await q(1); // still cached
    await q(2); // prepared again
    expect(prepares).toBe(4);
  });
});
