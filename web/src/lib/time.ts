// Unix seconds (the API's unit everywhere) to and from what people read and type.

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** 1716200000 → "2024-05-20 10:13:20" in the browser's time zone. */
export function formatTime(unix: number | undefined | null): string {
  if (unix == null) return '—';
  const d = new Date(unix * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** The value of an <input type="date"> ("2024-05-20") → unix seconds at the start (or end) of that local day. */
export function dateInputToUnix(value: string, endOfDay = false): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const d = endOfDay ? new Date(+m[1]!, +m[2]! - 1, +m[3]!, 23, 59, 59) : new Date(+m[1]!, +m[2]! - 1, +m[3]!);
  return Math.floor(d.getTime() / 1000);
}

