// Column types that differ between the dialects, for migrations (which only see the Kysely handle).
import { PostgresAdapter, type Kysely } from 'kysely';
import type { DialectName } from './db.js';

export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Binary column: `blob` in SQLite, `bytea` in PostgreSQL. */
export function blobType(db: Kysely<any>): 'blob' | 'bytea' {
  return dialectOf(db) === 'postgres' ? 'bytea' : 'blob';
}
