// Read-only views of the delivery tables: failure logs, usage per month, outbox depth.
import type { Kysely } from 'kysely';
import { toNum } from '../store/db.js';
import { PENDING, periodStart } from './outbox.js';
import { deliveryDb } from './tables.js';

export interface FailureLogEntry {
  at: number;
  messageId: string;
  eventType: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  message: string;
}

/** Failed attempts of an endpoint, newest first; `more` when another page follows. */
export async function failureLog(db: Kysely<any>, endpointId: number, offset: number, limit: number): Promise<{ more: boolean; entries: FailureLogEntry[] }> {
  const rows = await deliveryDb(db)
    .selectFrom('delivery_attempt_log')
    .selectAll()
    .where('endpoint_id', '=', BigInt(endpointId))
    .orderBy('id', 'desc')
    .offset(offset)
    .limit(limit + 1)
    .execute();
  return {
    more: rows.length > limit,
    entries: rows.slice(0, limit).map((r) => ({
      at: toNum(r.at),
      messageId: r.message_id,
      eventType: r.event_type,
      attempt: toNum(r.attempt),
      statusCode: r.status_code === null ? null : toNum(r.status_code),
      error: r.error,
      latencyMs: toNum(r.latency_ms),
      message: r.message,
    })),
  };
}

/** Deliveries and failed attempts of an owner in the calendar month (UTC) holding `at`. */
export async function usage(db: Kysely<any>, producer: string, owner: string, at: number) {
  const start = periodStart(at);
  const row = await deliveryDb(db)
    .selectFrom('delivery_usage')
    .select(['delivered', 'failed'])
    .where('producer', '=', producer)
    .where('owner', '=', owner)
    .where('period_start', '=', BigInt(start))
    .executeTakeFirst();
  return { periodStart: start, delivered: toNum(row?.delivered), failed: toNum(row?.failed) };
}

/** Pending deliveries (all, or of one endpoint). */
export async function pendingCount(db: Kysely<any>, endpointId?: number): Promise<number> {
  let q = deliveryDb(db)
    .selectFrom('delivery_outbox')
    .select((e) => e.fn.countAll<bigint>().as('n'))
    .where('state', '=', PENDING);
  if (endpointId !== undefined) q = q.where('endpoint_id', '=', BigInt(endpointId));
  return toNum((await q.executeTakeFirst())?.n);
}

/** Stored status of every endpoint, by id. */
export async function endpointStatuses(db: Kysely<any>): Promise<Array<{ id: number; status: string }>> {
  const rows = await deliveryDb(db).selectFrom('delivery_endpoints').select(['id', 'status']).execute();
  return rows.map((r) => ({ id: toNum(r.id), status: r.status }));
}
