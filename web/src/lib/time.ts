// Times to and from what people read and type: one format everywhere, in the browser's zone with its name.

export const nowSeconds = () => Math.floor(Date.now() / 1000);

const ZONE = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' });

/** The short name of the browser's time zone at that moment ("UTC", "CET", "GMT+9"). */
function zoneName(d: Date): string {
  return ZONE.formatToParts(d).find((p) => p.type === 'timeZoneName')?.value ?? 'local time';
}

/** A moment in the one format the console shows: "2024-05-20 10:13:20 UTC", in the browser's zone, named. */
export function formatDate(d: Date): string {
  if (Number.isNaN(d.getTime())) return '—';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${zoneName(d)}`;
}

/** Unix seconds (the invoicing API's unit) → "2024-05-20 10:13:20 UTC". */
export function formatTime(unix: number | undefined | null): string {
  return unix == null ? '—' : formatDate(new Date(unix * 1000));
}

/** An ISO 8601 text or milliseconds (the webhooks API's timestamps) → the same format. */
export function formatInstant(value: string | number | undefined | null): string {
  return value == null || value === '' ? '—' : formatDate(new Date(value));
}

/** The value of an <input type="date"> ("2024-05-20") → unix seconds at the start (or end) of that local day. */
export function dateInputToUnix(value: string, endOfDay = false): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const d = endOfDay ? new Date(+m[1]!, +m[2]! - 1, +m[3]!, 23, 59, 59) : new Date(+m[1]!, +m[2]! - 1, +m[3]!);
  return Math.floor(d.getTime() / 1000);
}

