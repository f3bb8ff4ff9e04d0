// The contract every benchmark implements. `npm run bench` (bench/run.ts) runs them, prints
// progress, and rewrites docs/BENCHMARKS.md. Results are ratios against a baseline measured in
// the same run on the same machine, because absolute numbers drift on shared machines.

export interface BenchRow {
  /** What was measured, e.g. "deliveries/s" or "p99 block→first attempt". */
  metric: string;
  value: number;
  unit: string;
  /** The baseline's value for the same metric in the same run, when there is one. */
  baseline?: { name: string; value: number };
  /** value / baseline (or the inverse for lower-is-better metrics: say which in `target`). */
  ratio?: number;
  /** The target in words, e.g. "≥ 0.5 of baseline" or "< 50 ms". */
  target?: string;
  /** Whether the target was met; undefined when there is no target. */
  met?: boolean;
  note?: string;
}

export interface BenchContext {
  /** Progress line on stderr (the runner prefixes the benchmark name). */
  progress(message: string): void;
  /** Scale factor for a quick run (`--quick`): benchmarks shrink their load by it. */
  scale: number;
  /** Temporary directory for this benchmark, removed afterwards. */
  tmpDir: string;
  /**
   * When the runner stops waiting (ms since the epoch: start + budgetSeconds). Benchmarks whose
   * load is open-ended (e.g. "as many transactions as fit") stop before it and report what they did.
   */
  deadline?: number;
}

export interface Benchmark {
  /** Short name used on the command line: `npm run bench -- <name>`. */
  name: string;
  /** One line: what it measures and against which baseline. */
  description: string;
  /** Issue number whose acceptance it checks. */
  issue: number;
  /** Upper bound in seconds for the run (the whole suite must fit in 10 minutes on 2 cores). */
  budgetSeconds: number;
  /** Node.js flags its process starts with, when it runs the server in process (the server's own flags). */
  nodeFlags?: string[];
  run(ctx: BenchContext): Promise<BenchRow[]>;
}
