// Delivery lag: how long the oldest due delivery has waited for its attempt to start, per endpoint
// state, so that a stall of the worker is visible (/readyz, /metrics) while one receiver that is
// down or slow shows only in its own state. Only queue heads count: rows behind a head wait for
// their key's order, and a head waiting for its retry time is not due.
import type { Queue } from './queues.js';
import type { Endpoint } from './types.js';

/**
 * `online`: the endpoint answers and has room for more attempts — lag here is the worker's own
 * (a stall, a full global concurrency); `slow`: online, but its window of attempts in flight is
 * full, so the receiver sets the pace; `offline`: its last attempt failed; `suspended`: parked
 * until back-online (410, or three days of failures), nothing is sent.
 */
export const LAG_STATES = ['online', 'slow', 'offline', 'suspended'] as const;
export type LagState = (typeof LAG_STATES)[number];

export interface DeliveryLag {
  /** Age in ms of the oldest due delivery not yet started, per state (0: none waiting). */
  ageMs: Record<LagState, number>;
  /** Due deliveries not yet started, per state. */
  waiting: Record<LagState, number>;
}

export function emptyLag(): DeliveryLag {
  return { ageMs: { online: 0, slow: 0, offline: 0, suspended: 0 }, waiting: { online: 0, slow: 0, offline: 0, suspended: 0 } };
}

/** The lag of the queues a worker holds; `full(endpointId)`: its window of attempts in flight is taken. */
export function measureLag(queues: Iterable<Queue>, endpoints: ReadonlyMap<number, Endpoint>, full: (endpointId: number) => boolean, now: number): DeliveryLag {
  const lag = emptyLag();
  for (const q of queues) {
    if (q.inFlight) continue;
    const head = q.rows[q.head];
    if (!head || head.nextAttemptAt > now) continue;
    const status = endpoints.get(q.endpointId)?.status;
    if (!status) continue;
    const state: LagState = status === 'online' && full(q.endpointId) ? 'slow' : status;
    lag.waiting[state]++;
    lag.ageMs[state] = Math.max(lag.ageMs[state], now - head.nextAttemptAt);
  }
  return lag;
}

/** Lag facts for /readyz: seconds per state, and whether online lag stays within `maxMs` (0: never fails). */
export function lagReport(lag: DeliveryLag, maxMs: number): { ok: boolean; lag_seconds: Record<LagState, number>; waiting: Record<LagState, number>; max_lag_seconds: number | null } {
  const seconds = Object.fromEntries(LAG_STATES.map((s) => [s, Math.round(lag.ageMs[s] / 100) / 10])) as Record<LagState, number>;
  return { ok: maxMs === 0 || lag.ageMs.online <= maxMs, lag_seconds: seconds, waiting: lag.waiting, max_lag_seconds: maxMs === 0 ? null : maxMs / 1000 };
}
