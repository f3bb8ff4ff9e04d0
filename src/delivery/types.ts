// The delivery engine's vocabulary, shared by every producer (webhook subscriptions, invoices).
// An endpoint is where deliveries go; a delivery is one JSON body for one endpoint, kept in the
// durable outbox until the receiver answers 2xx, the engine gives up, or the endpoint is deleted.
import type { Kysely } from 'kysely';

export type EndpointStatus = 'online' | 'offline' | 'suspended';

export interface Endpoint {
  id: number;
  /** Which component owns it (`webhooks`, `invoices`); picks the outcome hooks. */
  producer: string;
  /** Who owns it within the producer: an API key id, `app:<id>`. */
  owner: string;
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token: string;
  /** Standard Webhooks signing secret, `whsec_<base64>`. */
  secret: string;
  /** The secret before the last rotation, still signing until `previousSecretUntil` (ms). */
  previousSecret: string | null;
  previousSecretUntil: number | null;
  status: EndpointStatus;
  /** Why it is suspended (410 Gone, gave up), when it is. */
  statusReason: string | null;
  statusUpdatedAt: number;
  lastOnlineAt: number;
  /** Consecutive failed attempts since the last success. */
  failedAttempts: number;
  createdAt: number;
}

/** What a producer hands to `enqueue`, inside its own database transaction. */
export interface DeliveryIntent {
  endpointId: number;
  /**
   * Deliveries with the same key go out one at a time in enqueue order; a failing one holds back
   * only the later ones of its key. Null: no ordering (delivered independently).
   */
  orderingKey?: string | null;
  /** Sent as `webhook-event-type`, shown in logs. */
  eventType: string;
  /** The JSON body: a string is sent as is, anything else is JSON.stringify'd. */
  body: string | object;
  /** `webhook-id`; stable across retries. Default: derived from endpoint, type, body and `eventTimeMs`. */
  messageId?: string;
  /**
   * When the event happened (a transaction's utime, in ms). With the body it fixes the default
   * webhook-id, so a replay of the same event carries the same id. Default: the enqueue time.
   */
  eventTimeMs?: number;
  /** Opaque JSON handed back to the producer's hook with every outcome. */
  meta?: unknown;
}

/** A delivery waiting in the outbox, as the worker holds it. */
export interface PendingDelivery {
  id: number;
  endpointId: number;
  orderingKey: string | null;
  messageId: string;
  eventType: string;
  body: string;
  /** JSON text of the producer's meta, or null. */
  meta: string | null;
  attempts: number;
  nextAttemptAt: number;
  firstFailedAt: number | null;
  createdAt: number;
}

/**
 * What one attempt came to: `delivered` (2xx); `retrying` (scheduled again); `failed` (given up:
 * a 3xx/4xx answer that is not worth retrying, or 3 days of failures); `held` (410: the endpoint is
 * suspended and the delivery waits for back-online).
 */
export type AttemptResult = 'delivered' | 'retrying' | 'failed' | 'held';

export interface DeliveryOutcome {
  delivery: PendingDelivery;
  endpoint: Endpoint;
  result: AttemptResult;
  /** When the attempt ended (ms). */
  at: number;
  /** Attempts so far, this one included. */
  attempts: number;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

/** A producer's reaction to outcomes, run inside the transaction that records them. */
export interface DeliveryHooks {
  onOutcomes?(trx: Kysely<any>, outcomes: DeliveryOutcome[]): Promise<void>;
}

/** Time, injectable so tests can move it: `now` in ms and one-shot timers on the same clock. */
export interface Clock {
  now(): number;
  /** Calls `fn` once `ms` have passed on this clock; returns a cancel function. */
  setTimeout(fn: () => void, ms: number): () => void;
}
