// Turns what the receiver said into the delivery's fate and the endpoint's status (compat.md §4):
// 2xx delivered; 410 suspends the endpoint and holds the delivery; 408, 429, 5xx, timeouts and
// connection errors retry on the schedule (or after Retry-After) for up to 3 days; any other 3xx/4xx
// fails the delivery without retry. Pure: mutates only the objects it is given.
import { GIVE_UP_AFTER_MS, retryDelayMs } from './schedule.js';
import type { AttemptReport } from './sender.js';
import type { AttemptResult, Endpoint, PendingDelivery } from './types.js';

/** Shortest wait before a retry, whatever Retry-After says, so a receiver cannot make us spin. */
export const MIN_RETRY_DELAY_MS = 1000;

export function isRetryable(report: Pick<AttemptReport, 'statusCode'>): boolean {
  const s = report.statusCode;
  return s === null || s === 408 || s === 429 || s >= 500;
}

/** Decides the result of one attempt; updates `row` (attempts, next attempt) and `endpoint` status. */
export function judgeAttempt(endpoint: Endpoint, row: PendingDelivery, report: AttemptReport, now: number): AttemptResult {
  row.attempts++;
  const s = report.statusCode;
  if (s !== null && s >= 200 && s < 300) {
    if (endpoint.status === 'offline') setStatus(endpoint, 'online', null, now);
    endpoint.lastOnlineAt = now;
    endpoint.failedAttempts = 0;
    return 'delivered';
  }
  endpoint.failedAttempts++;
  row.firstFailedAt ??= now;
  if (s === 410) {
    setStatus(endpoint, 'suspended', 'the receiver answered 410 Gone', now);
    return 'held';
  }
  if (endpoint.status === 'online') setStatus(endpoint, 'offline', null, now);
  if (!isRetryable(report)) return 'failed';
  if (now - row.firstFailedAt >= GIVE_UP_AFTER_MS) {
    // Nothing got through for the whole period: stop trying the endpoint until back-online.
    if (now - endpoint.lastOnlineAt >= GIVE_UP_AFTER_MS && endpoint.status !== 'suspended') {
      setStatus(endpoint, 'suspended', 'no successful delivery for 3 days', now);
    }
    return 'failed';
  }
  row.nextAttemptAt = now + Math.max(MIN_RETRY_DELAY_MS, report.retryAfterMs ?? retryDelayMs(row.attempts));
  return 'retrying';
}

function setStatus(endpoint: Endpoint, status: Endpoint['status'], reason: string | null, now: number): void {
  endpoint.status = status;
  endpoint.statusReason = reason;
  endpoint.statusUpdatedAt = now;
}
