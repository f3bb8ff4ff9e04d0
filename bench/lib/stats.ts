// Small measuring helpers shared by benchmarks: rates, percentiles, memory samples and the slope
// of a series (for "memory stays flat" checks).

/** Items per second. */
export function perSecond(count: number, ms: number): number {
  return ms > 0 ? (count * 1000) / ms : 0;
}

/** The p-th percentile (0..100) of `values`, nearest-rank; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Least-squares slope and intercept of y over x; slope 0 with fewer than two points. */
export function linearFit(xs: readonly number[], ys: readonly number[]): { slope: number; intercept: number } {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return { slope: 0, intercept: ys[0] ?? 0 };
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    sx += xs[i]!;
    sy += ys[i]!;
  }
  const mx = sx / n;
  const my = sy / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  const slope = den === 0 ? 0 : num / den;
  return { slope, intercept: my - slope * mx };
}

export interface MemorySample {
  rssMB: number;
  heapMB: number;
}

/** RSS and heap in MB; collects garbage first when the process runs with --expose-gc (the runner's children do). */
export function sampleMemory(collect = true): MemorySample {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (collect && gc) gc();
  const m = process.memoryUsage();
  return { rssMB: m.rss / 1024 / 1024, heapMB: m.heapUsed / 1024 / 1024 };
}

/** Rounds for a report: 3 significant digits, but never rounds an integer part away. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value);
  if (abs >= 10) return Math.round(value * 10) / 10;
  if (abs >= 1) return Math.round(value * 100) / 100;
  return Number(value.toPrecision(3));
}

/** Resolves after `ms`, letting timers and I/O run. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
