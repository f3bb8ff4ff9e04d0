// Finds the benchmarks: every bench/*.ts that default-exports a Benchmark (harness and runner aside).
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Benchmark } from '../harness.js';

const NOT_BENCHMARKS = new Set(['harness.ts', 'run.ts']);

export interface Discovered {
  file: string;
  /** The benchmark's name, or the file's base name when it could not be loaded. */
  name: string;
  bench: Benchmark | null;
  /** Why the module could not be used as a benchmark. */
  error?: string;
  /** A helper module without a default export: not a benchmark, not a failure. */
  helper?: boolean;
}

export function benchmarkFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.d.ts') && !NOT_BENCHMARKS.has(f))
    .sort()
    .map((f) => join(dir, f));
}

export function checkBenchmark(value: unknown): string | null {
  const b = value as Partial<Benchmark> | undefined;
  if (!b || typeof b !== 'object') return 'the module has no default export';
  if (typeof b.name !== 'string' || !/^[a-z0-9_-]+$/.test(b.name)) return 'default export: name must be lowercase letters, digits, - or _';
  if (typeof b.run !== 'function') return 'default export: run(ctx) is missing';
  if (typeof b.budgetSeconds !== 'number' || !(b.budgetSeconds > 0)) return 'default export: budgetSeconds must be a positive number';
  return null;
}

export async function discover(dir: string): Promise<Discovered[]> {
  const found: Discovered[] = [];
  for (const file of benchmarkFiles(dir)) {
    const fallback = basename(file, '.ts');
    try {
      const mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
      if (mod.default === undefined) {
        found.push({ file, name: fallback, bench: null, helper: true, error: 'no default export (a helper module)' });
        continue;
      }
      const problem = checkBenchmark(mod.default);
      found.push(problem ? { file, name: fallback, bench: null, error: problem } : { file, name: (mod.default as Benchmark).name, bench: mod.default as Benchmark });
    } catch (err) {
      found.push({ file, name: fallback, bench: null, error: `cannot load ${basename(file)}: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  return found;
}
