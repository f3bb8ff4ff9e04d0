// Prepared SQLite statements reused by their SQL text. Kysely's SQLite driver prepares every query
// anew, and preparing a multi-row insert or a long `IN (…)` list costs about as much as running it.
import type Database from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Statements kept; the least recently used one goes first. */
const CACHE_LIMIT = 256;

/** `db` as Kysely's dialect sees it, with a cache of prepared statements in front of `prepare`. */
export function withStatementCache(db: Database.Database, limit = CACHE_LIMIT): SqliteDatabase {
  const cache = new Map<string, Database.Statement>();
  return {
    prepare(sql: string) {
      const cached = cache.get(sql);
      // A statement still stepping through an iterate() cannot run again until it is done.
      if (cached && !cached.busy) {
        cache.delete(sql);
        cache.set(sql, cached);
        return cached;
      }
      const stmt = db.prepare(sql);
      if (!cached) {
        cache.set(sql, stmt);
        if (cache.size > limit) cache.delete(cache.keys().next().value!);
      }
      return stmt;
    },
    close() {
      cache.clear();
      db.close();
    },
  };
}
