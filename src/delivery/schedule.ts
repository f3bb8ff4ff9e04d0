// The retry schedule of the original service (compat.md §4): after a failed attempt the next one
// comes 1 min later for the first 10 attempts, every 5 min up to attempt 20, every 10 min up to 30,
// then hourly; we stop after 3 days. A receiver's Retry-After replaces the schedule's delay.
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** How long the engine keeps retrying one delivery before giving up (decision: 3 days). */
export const GIVE_UP_AFTER_MS = 3 * DAY;
/** Longest Retry-After honoured; longer ones are capped so a typo cannot park a delivery for months. */
export const MAX_RETRY_AFTER_MS = DAY;

/** Delay before the next attempt after `attempts` attempts have failed (1-based). */
export function retryDelayMs(attempts: number): number {
  if (attempts <= 10) return MINUTE;
  if (attempts <= 20) return 5 * MINUTE;
  if (attempts <= 30) return 10 * MINUTE;
  return HOUR;
}

/** Parses a Retry-After value (delay-seconds or an HTTP date) into ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  const text = raw.trim();
  if (/^\d{1,10}$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

/** When the next attempt is due after a retryable failure. */
export function nextAttemptAt(attempts: number, now: number, retryAfterMs: number | null): number {
  return now + (retryAfterMs ?? retryDelayMs(attempts));
}
