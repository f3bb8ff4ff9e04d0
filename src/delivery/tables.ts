// Row types of the delivery tables and their conversion to the engine's model.
import type { Generated, Kysely, Selectable } from 'kysely';
import { toNum } from '../store/db.js';
import type { Endpoint, EndpointStatus, PendingDelivery } from './types.js';

export interface DeliveryTables {
  delivery_endpoints: {
    id: Generated<bigint>;
    producer: string;
    owner: string;
    url: string;
    token: string;
    secret: string;
    previous_secret: string | null;
    previous_secret_until: bigint | null;
    status: string;
    status_reason: string | null;
    status_updated_at: bigint;
    last_online_at: bigint;
    failed_attempts: bigint;
    created_at: bigint;
  };
  delivery_outbox: {
    id: Generated<bigint>;
    endpoint_id: bigint;
    ordering_key: string | null;
    message_id: string;
    event_type: string;
    body: string;
    meta: string | null;
    state: string;
    attempts: bigint;
    next_attempt_at: bigint;
    first_failed_at: bigint | null;
    last_attempt_at: bigint | null;
    last_status: bigint | null;
    last_error: string | null;
    created_at: bigint;
    completed_at: bigint | null;
    /** 1 once the worker left the pending row in the store (its key over the per-key memory cap). */
    parked: number | null;
  };
  delivery_attempt_log: {
    id: Generated<bigint>;
    endpoint_id: bigint;
    delivery_id: bigint;
    message_id: string;
    event_type: string;
    at: bigint;
    attempt: bigint;
    status_code: bigint | null;
    error: string | null;
    latency_ms: bigint;
    message: string;
  };
  delivery_usage: {
    producer: string;
    owner: string;
    period_start: bigint;
    delivered: bigint;
    failed: bigint;
  };
}

/** Narrows any handle (a store's or a transaction's) to the delivery tables. */
export const deliveryDb = (db: Kysely<any>) => db as Kysely<DeliveryTables>;

type EndpointRow = Selectable<DeliveryTables['delivery_endpoints']>;
type OutboxRow = Pick<
  Selectable<DeliveryTables['delivery_outbox']>,
  'id' | 'endpoint_id' | 'ordering_key' | 'message_id' | 'event_type' | 'body' | 'meta' | 'attempts' | 'next_attempt_at' | 'first_failed_at' | 'created_at'
>;

export const OUTBOX_COLUMNS = [
  'id',
  'endpoint_id',
  'ordering_key',
  'message_id',
  'event_type',
  'body',
  'meta',
  'attempts',
  'next_attempt_at',
  'first_failed_at',
  'created_at',
] as const;

export function endpointFromRow(r: EndpointRow): Endpoint {
  return {
    id: toNum(r.id),
    producer: r.producer,
    owner: r.owner,
    url: r.url,
    token: r.token,
    secret: r.secret,
    previousSecret: r.previous_secret,
    previousSecretUntil: r.previous_secret_until === null ? null : toNum(r.previous_secret_until),
    status: r.status as EndpointStatus,
    statusReason: r.status_reason,
    statusUpdatedAt: toNum(r.status_updated_at),
    lastOnlineAt: toNum(r.last_online_at),
    failedAttempts: toNum(r.failed_attempts),
    createdAt: toNum(r.created_at),
  };
}

export function deliveryFromRow(r: OutboxRow): PendingDelivery {
  return {
    id: toNum(r.id),
    endpointId: toNum(r.endpoint_id),
    orderingKey: r.ordering_key,
    messageId: r.message_id,
    eventType: r.event_type,
    body: r.body,
    meta: r.meta,
    attempts: toNum(r.attempts),
    nextAttemptAt: toNum(r.next_attempt_at),
    firstFailedAt: r.first_failed_at === null ? null : toNum(r.first_failed_at),
    createdAt: toNum(r.created_at),
  };
}

/** Splits a list for `IN (…)` and multi-row inserts under the dialects' parameter limits. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
