// The durable outbox in the store: producers insert deliveries inside their own transaction; the
// worker reads pending rows and records outcomes in batches (one transaction per batch, grouped
// updates rather than a round trip per row).
import { CompiledQuery, sql, type Insertable, type Kysely } from 'kysely';
import { toNum } from '../store/db.js';
import { dialectOf } from '../store/types.js';
import { deriveMessageId } from './signing.js';
import { chunks, deliveryDb, deliveryFromRow, OUTBOX_COLUMNS, type DeliveryTables } from './tables.js';
import type { DeliveryIntent, DeliveryOutcome, Endpoint, PendingDelivery } from './types.js';

/** `state = 'pending'` as a literal, so SQLite can use the partial indexes over pending rows. */
export const PENDING = sql.lit('pending');

/** Rows per multi-row insert (15 parameters each, well under both dialects' limits). */
const INSERT_CHUNK = 500;
/** Ids per `IN (…)` list. */
const IN_CHUNK = 900;
/** Delivered rows per update while recording outcomes: small enough that attempts keep flowing in between. */
const COMPLETE_CHUNK = 250;

/** Lets the event loop run (responses, new attempts) between the statements of a long transaction. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export const MAX_BODY_BYTES = 1024 * 1024;

const INSERT_COLUMNS = '(endpoint_id, ordering_key, message_id, event_type, body, meta, state, attempts, next_attempt_at, created_at)';
const PARAMS_PER_ROW = 7;
const insertSql = new Map<string, string>();

/** The multi-row insert for `rows` rows, built once per size and dialect (Kysely would rebuild it every call). */
function insertStatement(dialect: 'sqlite' | 'postgres', rows: number): string {
  const key = `${dialect}:${rows}`;
  let text = insertSql.get(key);
  if (!text) {
    const tuples: string[] = [];
    for (let r = 0; r < rows; r++) {
      const p = (i: number) => (dialect === 'postgres' ? `$${r * PARAMS_PER_ROW + i + 1}` : '?');
      const now = p(6);
      tuples.push(`(${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, 'pending', 0, ${now}, ${dialect === 'postgres' ? now : '?'})`);
    }
    // SQLite (one writer) numbers a statement's rows consecutively and reports the last id;
    // PostgreSQL sessions draw ids from a shared sequence, so they come back with the rows.
    text = `insert into delivery_outbox ${INSERT_COLUMNS} values ${tuples.join(', ')}${dialect === 'postgres' ? ' returning id, message_id' : ''}`;
    insertSql.set(key, text);
  }
  return text;
}

const completeSqlByDialect = new Map<string, string>();

/**
 * Marks up to COMPLETE_CHUNK rows delivered. completed_at is when it was delivered; last_attempt_at
 * and last_error stay those of the last failed attempt, if any. Each column written grows the row,
 * and a grown row on a full page makes SQLite rebalance it: these four take half the time of all six.
 */
function completeStatement(dialect: 'sqlite' | 'postgres'): string {
  let text = completeSqlByDialect.get(dialect);
  if (!text) {
    const p = (i: number) => (dialect === 'postgres' ? `$${i + 1}` : '?');
    const ids = Array.from({ length: COMPLETE_CHUNK }, (_, i) => p(i + 3)).join(', ');
    text = `update delivery_outbox set state = 'delivered', attempts = ${p(0)}, last_status = ${p(1)}, completed_at = ${p(2)} where id in (${ids})`;
    completeSqlByDialect.set(dialect, text);
  }
  return text;
}

/**
 * Writes deliveries into the outbox within `db` (the producer's transaction) and returns them as
 * the worker holds them, ids included, or null when the ids could not be matched to the rows.
 */
export async function enqueueDeliveries(db: Kysely<any>, intents: readonly DeliveryIntent[], now: number): Promise<PendingDelivery[] | null> {
  if (intents.length === 0) return [];
  const dialect = dialectOf(db);
  const at = BigInt(now);
  let written: PendingDelivery[] | null = [];
  for (const part of chunks(intents, INSERT_CHUNK)) {
    const params: unknown[] = [];
    const rows: PendingDelivery[] = [];
    for (const intent of part) {
      const body = typeof intent.body === 'string' ? intent.body : JSON.stringify(intent.body);
      if (Buffer.byteLength(body) > MAX_BODY_BYTES) throw new Error(`delivery body is larger than ${MAX_BODY_BYTES} bytes`);
      if (!Number.isSafeInteger(intent.endpointId) || intent.endpointId <= 0) throw new Error(`invalid endpoint id ${intent.endpointId}`);
      const messageId = intent.messageId ?? deriveMessageId(intent.endpointId, intent.eventType, body, intent.eventTimeMs ?? now);
      const meta = intent.meta === undefined ? null : JSON.stringify(intent.meta);
      params.push(BigInt(intent.endpointId), intent.orderingKey ?? null, messageId, intent.eventType, body, meta, at);
      if (dialect === 'sqlite') params.push(at);
      rows.push({ id: 0, endpointId: intent.endpointId, orderingKey: intent.orderingKey ?? null, messageId, eventType: intent.eventType, body, meta, attempts: 0, nextAttemptAt: now, firstFailedAt: null, createdAt: now });
    }
    const result = await db.executeQuery<{ id: bigint | number; message_id: string }>(CompiledQuery.raw(insertStatement(dialect, part.length), params));
    if (!written) continue;
    if (dialect === 'sqlite') {
      const last = result.insertId === undefined ? NaN : toNum(result.insertId);
      if (Number(result.numAffectedRows) === rows.length && Number.isSafeInteger(last)) {
        rows.forEach((row, i) => (row.id = last - rows.length + 1 + i));
        written.push(...rows);
      } else written = null;
      continue;
    }
    // PostgreSQL numbers a statement's rows in VALUES order, but RETURNING's order is not
    // promised: rows are matched by ascending id and checked by webhook-id.
    const returned = result.rows.map((r) => ({ id: toNum(r.id), messageId: r.message_id })).sort((a, b) => a.id - b.id);
    if (returned.length === rows.length && rows.every((row, i) => row.messageId === returned[i]!.messageId)) {
      rows.forEach((row, i) => (row.id = returned[i]!.id));
      written.push(...rows);
    } else written = null;
  }
  return written;
}

/** PostgreSQL: the channel of new deliveries, one per schema (SQL text). */
export const OUTBOX_CHANNEL = "'tonwatch_outbox_' || current_schema()";
/** Payload on OUTBOX_CHANNEL when a worker gave leases away (leases.ts): take them over now. */
export const KEYS_GIVEN_AWAY = 'keys';

/**
 * Tells every worker's liveness session (liveness.ts) that deliveries were committed, so rows of keys
 * held in other processes are read at once; `from` names the sender, whose own worker already knows.
 */
export async function announceCommitted(db: Kysely<any>, from: string): Promise<void> {
  await sql`select pg_notify(${sql.raw(OUTBOX_CHANNEL)}, ${from})`.execute(db);
}

/** A delivery's ordering key as leases name it (null: the endpoint's unordered deliveries). */
export interface OutboxKey {
  endpointId: number;
  orderingKey: string | null;
}

/**
 * Pending rows after `afterId`, oldest first; with `keys`, only those of these ordering keys
 * (PostgreSQL: the keys a worker just took over, read in one statement).
 */
export async function pendingAfter(db: Kysely<any>, afterId: number, limit: number, keys?: readonly OutboxKey[]): Promise<PendingDelivery[]> {
  const ordered = keys?.filter((k) => k.orderingKey !== null) ?? [];
  const unordered = keys?.filter((k) => k.orderingKey === null).map((k) => BigInt(k.endpointId)) ?? [];
  const rows = await deliveryDb(db)
    .selectFrom('delivery_outbox')
    .select(OUTBOX_COLUMNS)
    .$if(keys !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          ...(ordered.length > 0
            ? [sql<boolean>`(endpoint_id, ordering_key) in (select * from unnest(${ordered.map((k) => BigInt(k.endpointId))}::bigint[], ${ordered.map((k) => k.orderingKey)}::text[]))`]
            : []),
          ...(unordered.length > 0 ? [eb.and([eb('ordering_key', 'is', null), eb('endpoint_id', 'in', unordered)])] : []),
        ]),
      ),
    )
    .where('state', '=', PENDING)
    .where('id', '>', BigInt(afterId))
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(deliveryFromRow);
}

/** Ids of the pending rows in (afterId, upTo], oldest first: a cheap first look that reads no bodies. */
export async function pendingIdsBetween(db: Kysely<any>, afterId: number, upTo: number, limit: number): Promise<number[]> {
  const rows = await deliveryDb(db)
    .selectFrom('delivery_outbox')
    .select('id')
    .where('state', '=', PENDING)
    .where('id', '>', BigInt(afterId))
    .where('id', '<=', BigInt(upTo))
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => toNum(r.id));
}

/** The pending rows among `ids`, oldest first. */
export async function pendingByIds(db: Kysely<any>, ids: readonly number[]): Promise<PendingDelivery[]> {
  const out: PendingDelivery[] = [];
  for (const part of chunks(ids, IN_CHUNK)) {
    const rows = await deliveryDb(db).selectFrom('delivery_outbox').select(OUTBOX_COLUMNS).where('state', '=', PENDING).where('id', 'in', part.map(BigInt)).orderBy('id').execute();
    out.push(...rows.map(deliveryFromRow));
  }
  return out;
}

/** Flags pending rows the worker left in the store (their key is over its per-key memory cap). */
export async function markParked(db: Kysely<any>, ids: readonly number[]): Promise<void> {
  for (const part of chunks(ids, IN_CHUNK)) {
    await deliveryDb(db).updateTable('delivery_outbox').set({ parked: 1 }).where('id', 'in', part.map(BigInt)).where('state', '=', PENDING).execute();
  }
}

/** Parked pending rows of one ordering key after `afterId`, oldest first. */
export async function parkedOfKey(db: Kysely<any>, endpointId: number, orderingKey: string, afterId: number, limit: number): Promise<PendingDelivery[]> {
  const rows = await deliveryDb(db)
    .selectFrom('delivery_outbox')
    .select(OUTBOX_COLUMNS)
    .where('endpoint_id', '=', BigInt(endpointId))
    .where('ordering_key', '=', orderingKey)
    .where('state', '=', PENDING)
    // A literal, so SQLite matches the partial index over parked rows.
    .where('parked', '=', sql.lit(1))
    .where('id', '>', BigInt(afterId))
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(deliveryFromRow);
}

export async function deleteDeliveries(db: Kysely<any>, ids: readonly number[]): Promise<void> {
  for (const part of chunks(ids, IN_CHUNK)) {
    await deliveryDb(db).deleteFrom('delivery_outbox').where('id', 'in', part.map(BigInt)).execute();
  }
}

/** Start of the UTC calendar month holding `ms`: the usage period. */
export function periodStart(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** The line the logs API shows for a failed attempt. */
export function logMessage(o: DeliveryOutcome, nextInMs: number | null): string {
  const what = o.statusCode !== null ? `HTTP ${o.statusCode}` : (o.error ?? 'error');
  const head = `attempt ${o.attempts} failed: ${what} after ${o.latencyMs} ms`;
  if (o.result === 'held') return `${head}; the receiver answered 410 Gone, the webhook is suspended until back-online`;
  if (o.result === 'failed') {
    return o.statusCode !== null && o.statusCode < 500 && o.statusCode !== 408 && o.statusCode !== 429
      ? `${head}; not retried (only 408, 429, 5xx, timeouts and connection errors are)`
      : `${head}; gave up: still failing after 3 days`;
  }
  return nextInMs === null ? head : `${head}; next attempt in ${Math.round(nextInMs / 1000)} s`;
}

/**
 * Records a batch of outcomes and the endpoints whose status changed, in one transaction: the
 * outbox rows, the failure log, usage counters. Producer hooks run in the same transaction.
 */
export async function recordOutcomes(trx: Kysely<any>, outcomes: readonly DeliveryOutcome[], now: number): Promise<void> {
  const d = deliveryDb(trx);
  // Delivered rows, grouped by (attempts, status) so thousands of rows take a handful of statements.
  const groups = new Map<string, number[]>();
  for (const o of outcomes) {
    if (o.result !== 'delivered') continue;
    const k = `${o.attempts}:${o.statusCode}`;
    let ids = groups.get(k);
    if (!ids) groups.set(k, (ids = []));
    ids.push(o.delivery.id);
  }
  let statements = 0;
  const completeSql = completeStatement(dialectOf(trx));
  for (const [k, ids] of groups) {
    const [attempts, status] = k.split(':').map(Number) as [number, number];
    // In id order each statement rewrites a run of neighbouring pages once, rather than the same
    // pages in every statement as completion order would (a third less SQLite time per row).
    ids.sort((a, b) => a - b);
    for (const part of chunks(ids, COMPLETE_CHUNK)) {
      if (statements++ > 0) await yieldToEventLoop();
      const params: unknown[] = [BigInt(attempts), BigInt(status), BigInt(now)];
      // A short last chunk repeats its last id: one statement text, prepared once.
      for (let i = 0; i < COMPLETE_CHUNK; i++) params.push(BigInt(part[Math.min(i, part.length - 1)]!));
      await trx.executeQuery(CompiledQuery.raw(completeSql, params));
    }
  }
  const logs: Array<DeliveryTablesLogInsert> = [];
  for (const o of outcomes) {
    if (o.result === 'delivered') continue;
    const row = o.delivery;
    await d
      .updateTable('delivery_outbox')
      .set({
        state: o.result === 'failed' ? 'failed' : 'pending',
        attempts: BigInt(o.attempts),
        next_attempt_at: BigInt(row.nextAttemptAt),
        first_failed_at: row.firstFailedAt === null ? null : BigInt(row.firstFailedAt),
        last_attempt_at: BigInt(o.at),
        last_status: o.statusCode === null ? null : BigInt(o.statusCode),
        last_error: o.error,
        completed_at: o.result === 'failed' ? BigInt(o.at) : null,
      })
      .where('id', '=', BigInt(row.id))
      // A worker that lost the key's lease reports late: never turn a delivered row back to pending.
      .where('state', '=', PENDING)
      .execute();
    logs.push({
      endpoint_id: BigInt(o.endpoint.id),
      delivery_id: BigInt(row.id),
      message_id: row.messageId,
      event_type: row.eventType,
      at: BigInt(o.at),
      attempt: BigInt(o.attempts),
      status_code: o.statusCode === null ? null : BigInt(o.statusCode),
      error: o.error,
      latency_ms: BigInt(o.latencyMs),
      message: logMessage(o, o.result === 'retrying' ? row.nextAttemptAt - o.at : null),
    });
  }
  for (const part of chunks(logs, INSERT_CHUNK)) await d.insertInto('delivery_attempt_log').values(part).execute();
  await addUsage(trx, outcomes);
}

type DeliveryTablesLogInsert = Insertable<DeliveryTables['delivery_attempt_log']>;

async function addUsage(trx: Kysely<any>, outcomes: readonly DeliveryOutcome[]): Promise<void> {
  // Counted per endpoint and month first (no key built per outcome), then summed per owner.
  const perEndpoint = new Map<Endpoint, Map<number, { delivered: number; failed: number }>>();
  let month = { from: 0, to: -1 };
  for (const o of outcomes) {
    if (o.at < month.from || o.at >= month.to) {
      const from = periodStart(o.at);
      const d = new Date(from);
      month = { from, to: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
    }
    let periods = perEndpoint.get(o.endpoint);
    if (!periods) perEndpoint.set(o.endpoint, (periods = new Map()));
    let c = periods.get(month.from);
    if (!c) periods.set(month.from, (c = { delivered: 0, failed: 0 }));
    if (o.result === 'delivered') c.delivered++;
    else c.failed++;
  }
  const usage = new Map<string, { producer: string; owner: string; period: number; delivered: number; failed: number }>();
  for (const [endpoint, periods] of perEndpoint) {
    for (const [period, c] of periods) {
      const k = `${endpoint.producer}\n${endpoint.owner}\n${period}`;
      let u = usage.get(k);
      if (!u) usage.set(k, (u = { producer: endpoint.producer, owner: endpoint.owner, period, delivered: 0, failed: 0 }));
      u.delivered += c.delivered;
      u.failed += c.failed;
    }
  }
  for (const u of usage.values()) {
    await deliveryDb(trx)
      .insertInto('delivery_usage')
      .values({ producer: u.producer, owner: u.owner, period_start: BigInt(u.period), delivered: BigInt(u.delivered), failed: BigInt(u.failed) })
      .onConflict((oc) =>
        oc.columns(['producer', 'owner', 'period_start']).doUpdateSet({
          delivered: sql`delivery_usage.delivered + ${BigInt(u.delivered)}`,
          failed: sql`delivery_usage.failed + ${BigInt(u.failed)}`,
        }),
      )
      .execute();
  }
}

/** Makes every pending delivery of an endpoint due at `now` (back-online). */
export async function makeDueNow(db: Kysely<any>, endpointId: number, now: number): Promise<void> {
  await deliveryDb(db)
    .updateTable('delivery_outbox')
    .set({ next_attempt_at: BigInt(now) })
    .where('endpoint_id', '=', BigInt(endpointId))
    .where('state', '=', PENDING)
    .execute();
}

/** Copies a past delivery into a new, unordered one with the same webhook-id and body (manual redelivery). */
export async function copyForRedelivery(db: Kysely<any>, endpoint: Endpoint, messageId: string, now: number): Promise<boolean> {
  const row = await deliveryDb(db)
    .selectFrom('delivery_outbox')
    .select(['event_type', 'body', 'meta'])
    .where('endpoint_id', '=', BigInt(endpoint.id))
    .where('message_id', '=', messageId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row) return false;
  await enqueueDeliveries(db, [{ endpointId: endpoint.id, orderingKey: null, eventType: row.event_type, body: row.body, messageId, meta: row.meta === null ? undefined : JSON.parse(row.meta) }], now);
  return true;
}

/** Deletes completed deliveries and log entries older than `before`. */
export async function pruneHistory(db: Kysely<any>, before: number): Promise<number> {
  const d = deliveryDb(db);
  const a = await d.deleteFrom('delivery_outbox').where('state', '<>', 'pending').where('completed_at', '<', BigInt(before)).executeTakeFirst();
  const b = await d.deleteFrom('delivery_attempt_log').where('at', '<', BigInt(before)).executeTakeFirst();
  return Number(a.numDeletedRows + b.numDeletedRows);
}
