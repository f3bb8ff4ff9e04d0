// Paid amounts per calendar day, summed exactly in minimal units, for the statistics chart.
import { dayKey } from './time.js';

export interface DayTotal {
  day: string;
  units: bigint;
  count: number;
}

/** One entry per day of the `days` days ending today (local time), oldest first, zero when nothing was paid. */
export function dailyTotals(paid: ReadonlyArray<{ date_paid?: number; amount: string }>, days: number, nowUnix: number): DayTotal[] {
  const out: DayTotal[] = [];
  const index = new Map<string, DayTotal>();
  const today = new Date(nowUnix * 1000);
  for (let i = days - 1; i >= 0; i--) {
    const d = new Date(today.getFullYear(), today.getMonth(), today.getDate() - i, 12);
    const entry = { day: dayKey(Math.floor(d.getTime() / 1000)), units: 0n, count: 0 };
    out.push(entry);
    index.set(entry.day, entry);
  }
  for (const inv of paid) {
    if (inv.date_paid === undefined) continue;
    const entry = index.get(dayKey(inv.date_paid));
    if (!entry) continue;
    entry.units += BigInt(inv.amount);
    entry.count += 1;
  }
  return out;
}

/** Unix seconds of the start of the first day `dailyTotals` covers. */
export function windowStart(days: number, nowUnix: number): number {
  const today = new Date(nowUnix * 1000);
  return Math.floor(new Date(today.getFullYear(), today.getMonth(), today.getDate() - (days - 1)).getTime() / 1000);
}
