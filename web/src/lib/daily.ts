// Paid amounts per day for the statistics chart, from the stats API's `paid_per_day` (UTC days, each
// named by the unix seconds of its midnight): every day of the window, zero where nothing was paid.

export const DAY_SECONDS = 86_400;

export interface DayTotal {
  /** "2024-05-20" (UTC) */
  day: string;
  units: bigint;
  count: number;
}

export interface PaidDay {
  day: number;
  amount: string;
  count: number;
}

export function utcDay(unix: number): string {
  return new Date(unix * 1000).toISOString().slice(0, 10);
}

/** The `days` UTC days ending today, oldest first, summed exactly in minimal units. */
export function dailyTotals(paid: readonly PaidDay[], days: number, nowUnix: number): DayTotal[] {
  const today = Math.floor(nowUnix / DAY_SECONDS) * DAY_SECONDS;
  const out: DayTotal[] = [];
  const index = new Map<string, DayTotal>();
  for (let i = days - 1; i >= 0; i--) {
    const entry = { day: utcDay(today - i * DAY_SECONDS), units: 0n, count: 0 };
    out.push(entry);
    index.set(entry.day, entry);
  }
  for (const p of paid) {
    const entry = index.get(utcDay(p.day));
    if (!entry) continue;
    entry.units += BigInt(p.amount);
    entry.count += p.count;
  }
  return out;
}
