// Invoice lifetimes: the console's presets (TON Console's: hour, 6 h, day, week, month) or a custom
// number of minutes/hours/days, at most 90 days (the API's bound, compat.md §5).

export const HOUR = 3600;
export const DAY = 24 * HOUR;
export const MAX_LIFETIME_SECONDS = 90 * DAY;

export const LIFETIME_PRESETS = [
  { id: 'hour', label: '1 hour', seconds: HOUR },
  { id: '6h', label: '6 hours', seconds: 6 * HOUR },
  { id: 'day', label: '1 day', seconds: DAY },
  { id: 'week', label: '1 week', seconds: 7 * DAY },
  { id: 'month', label: '1 month (30 days)', seconds: 30 * DAY },
] as const;

export type CustomUnit = 'minutes' | 'hours' | 'days';
const UNIT_SECONDS: Record<CustomUnit, number> = { minutes: 60, hours: HOUR, days: DAY };

export type ParsedLifetime = { ok: true; seconds: number } | { ok: false; error: string };

/** A custom lifetime: a whole positive number of minutes, hours or days, up to 90 days. */
export function parseCustomLifetime(text: string, unit: CustomUnit): ParsedLifetime {
  const s = text.trim();
  if (!/^\d+$/.test(s)) return { ok: false, error: `enter a whole number of ${unit}` };
  const seconds = Number(s) * UNIT_SECONDS[unit];
  if (seconds <= 0) return { ok: false, error: 'the lifetime must be at least 1 minute' };
  if (seconds > MAX_LIFETIME_SECONDS) return { ok: false, error: 'the lifetime can be at most 90 days' };
  return { ok: true, seconds };
}

/** 93784 → "1 d 2 h 3 min 4 s"; what is left of an invoice's life. */
export function formatDuration(seconds: number): string {
  if (seconds <= 0) return '0 s';
  const d = Math.floor(seconds / DAY);
  const h = Math.floor((seconds % DAY) / HOUR);
  const m = Math.floor((seconds % HOUR) / 60);
  const s = Math.floor(seconds % 60);
  const parts: string[] = [];
  if (d) parts.push(`${d} d`);
  if (h) parts.push(`${h} h`);
  if (m) parts.push(`${m} min`);
  if (s && !d) parts.push(`${s} s`);
  return parts.join(' ') || '0 s';
}
