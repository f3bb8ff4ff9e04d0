// Prepared SQLite statements reused by their SQL text. Kysely's SQLite driver prepares every query
// anew, and preparing a multi-row insert or a long `IN (…)` list costs about as much as running it.
import type Database from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';
import { LRUCache } from 'lru-cache';

/** Statements kept; the least recently used one goes first. */
const CACHE_LIMIT = 256;

/** `db` as Kysely's dialect sees it, with a cache of prepared statements in front of `prepare`. */
export function withStatementCache(db: Database.Database, limit = CACHE_LIMIT): SqliteDatabase {
  // an evicted statement needs no closing: better-sqlite3 finalizes it when it is collected
  const cache = new LRUCache<string, Database.Statement>({ max: limit });
  return {
    prepare(sql: string) {
      const cached = cache.peek(sql);
      // A statement still stepping through an iterate() cannot run again until it is done.
      if (cached && !cached.busy) {
        cache.get(sql); // used: moves to the newest end
        return cached;
      }
      const stmt = db.prepare(sql);
      if (!cached) cache.set(sql, stmt);
      return stmt;
    },
    close() {
      cache.clear();
      db.close();
    },
  };
}
