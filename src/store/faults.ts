// Which errors mean "the store cannot serve right now" (a full disk, a database that went away) rather
// than a bug: the service answers those with 503 and a retry hint, and keeps running.

const SQLITE_UNAVAILABLE = /^SQLITE_(FULL|IOERR|BUSY|LOCKED|CANTOPEN|READONLY)/;
const NODE_UNAVAILABLE = new Set(['ENOSPC', 'EDQUOT', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);
/** PostgreSQL SQLSTATE classes 08 (connection), 53 (insufficient resources), 57P (operator intervention). */
const POSTGRES_UNAVAILABLE = /^(08|53|57P)/;
const PG_CLIENT_UNAVAILABLE = /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect/i;

export function isStoreUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (SQLITE_UNAVAILABLE.test(code) || NODE_UNAVAILABLE.has(code) || POSTGRES_UNAVAILABLE.test(code)) return true;
  return typeof e.message === 'string' && PG_CLIENT_UNAVAILABLE.test(e.message);
}

/** The answer to a request the store could not serve: 503 with a retry hint (the HTTP error handler sends it). */
export const STORE_UNAVAILABLE = {
  statusCode: 503,
  body: { error: 'the store cannot take requests right now (a full disk or a lost database connection); try again shortly', error_code: 'store_unavailable' },
  headers: { 'retry-after': '5' },
} as const;
