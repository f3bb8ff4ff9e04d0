// `npm run bench [-- [--quick] [--out FILE] [--budget-scale N] [--runs N] [--list] [name…]]`
// Runs every benchmark (bench/*.ts default-exporting a Benchmark), or the ones named, each in its
// own process bounded by its budget, prints progress on stderr, and rewrites docs/BENCHMARKS.md.
// A benchmark that crashes or overruns is reported in the file; the run still exits 0.
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow } from './harness.js';
import type { ChildMessage } from './lib/child.js';
import { discover, type Discovered } from './lib/discover.js';
import { describeMachine, machineInfo } from './lib/machine.js';
import { parseSections, renderReport, renderSection, formatValue, runsSummary, type BenchOutcome, type RunInfo, type Section } from './lib/report.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const DEFAULT_OUT = resolve(BENCH_DIR, '../docs/BENCHMARKS.md');
const QUICK_SCALE = 0.1;
/** The whole suite must fit in this on the reference 2-core machine. */
const SUITE_BUDGET_SECONDS = 600;
/** Time for a child to start (tsx compiles on the fly) and to shut down, on top of its budget. */
const DEFAULT_GRACE_SECONDS = 20;
const MAX_RUNS = 20;

interface Args {
  names: string[];
  quick: boolean;
  out: string | null;
  list: boolean;
  budgetScale: number;
  /** Where benchmarks are discovered (tests point it at a directory of their own). */
  dir: string;
  graceSeconds: number;
  /** Times each benchmark runs, one after another (targets judged over several runs). */
  runs: number;
}

const USAGE = `usage: npm run bench -- [--quick] [--out FILE] [--budget-scale N] [--runs N] [--list] [name …]
  name             run only these benchmarks (default: all)
  --quick          scale loads down (×${QUICK_SCALE}) for a smoke run; writes no file unless --out is given
  --out FILE       where to write the report (default docs/BENCHMARKS.md)
  --budget-scale N multiply every time budget by N (e.g. a long devnet run alone)
  --runs N         run each benchmark N times in a row (1–${MAX_RUNS}); its section shows the last run's
                   table and every run's judged rows, with how many runs met each target
  --list           list the benchmarks and exit
  --dir DIR        discover benchmarks in DIR instead of bench/ (tests)
  --grace S        seconds a benchmark may overrun its budget before it is killed (default ${DEFAULT_GRACE_SECONDS})`;

function parseArgs(argv: string[]): Args | string {
  const args: Args = { names: [], quick: false, out: null, list: false, budgetScale: 1, dir: BENCH_DIR, graceSeconds: DEFAULT_GRACE_SECONDS, runs: 1 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--quick') args.quick = true;
    else if (a === '--list') args.list = true;
    else if (a === '--out') {
      const v = argv[++i];
      if (!v) return '--out needs a file name';
      args.out = resolve(v);
    } else if (a === '--budget-scale') {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0 || v > 100) return '--budget-scale needs a number from 0 (exclusive) to 100';
      args.budgetScale = v;
    } else if (a === '--dir') {
      const v = argv[++i];
      if (!v) return '--dir needs a directory';
      args.dir = resolve(v);
    } else if (a === '--grace') {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v < 0) return '--grace needs a number of seconds ≥ 0';
      args.graceSeconds = v;
    } else if (a === '--runs') {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1 || v > MAX_RUNS) return `--runs needs a whole number from 1 to ${MAX_RUNS}`;
      args.runs = v;
    } else if (a === '--help' || a === '-h') return '';
    else if (a.startsWith('-')) return `unknown option ${a}`;
    else args.names.push(a);
  }
  return args;
}

function runInChild(d: Discovered, args: Args, scale: number): Promise<BenchOutcome> {
  const bench = d.bench!;
  const started = Date.now();
  const budgetMs = bench.budgetSeconds * args.budgetScale * 1000;
  const deadline = started + budgetMs;
  const tmpDir = mkdtempSync(join(tmpdir(), `tonwatch-bench-${bench.name}-`));
  const base = { name: bench.name, description: bench.description, issue: bench.issue ?? null, loadAtStart: loadavg()[0] };
  return new Promise<BenchOutcome>((done) => {
    const child = fork(join(BENCH_DIR, 'lib/child.ts'), [d.file, String(scale), tmpDir, String(deadline), bench.name], {
      // the parent runs under tsx: its loader flags come along; --expose-gc makes memory samples clean
      execArgv: [...process.execArgv, '--expose-gc', ...(bench.nodeFlags ?? [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    let message: ChildMessage | null = null;
    let timedOut = false;
    const killer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, budgetMs + args.graceSeconds * 1000);
    child.on('message', (m: ChildMessage) => (message = m));
    child.on('exit', (code, signal) => {
      clearTimeout(killer);
      rmSync(tmpDir, { recursive: true, force: true });
      const seconds = (Date.now() - started) / 1000;
      const m = message as ChildMessage | null;
      if (m?.type === 'result') return done({ ...base, status: 'ok', rows: m.rows, seconds });
      if (timedOut) {
        return done({ ...base, status: 'timed out', rows: [], seconds, error: `stopped after its budget of ${Math.round(budgetMs / 1000)} s (+${args.graceSeconds} s grace)` });
      }
      const error = m?.type === 'error' ? m.error : `the benchmark process exited with ${signal ?? `code ${code}`} and no result`;
      done({ ...base, status: 'failed', rows: [], seconds, error });
    });
  });
}

/** Only the first lines of a stack go into the report; the whole error went to stderr. */
function shortError(error: string): string {
  return error.split('\n').slice(0, 3).map((l) => l.trim()).join(' ');
}

function printOutcome(o: BenchOutcome): void {
  const rows = o.rows.map((r: BenchRow) => {
    const base = r.baseline ? ` (baseline ${r.baseline.name}: ${formatValue(r.baseline.value, r.unit)})` : '';
    const target = r.target ? ` target ${r.target}: ${r.met === undefined ? 'not judged' : r.met ? 'met' : 'NOT MET'}` : '';
    return `  ${r.metric}: ${formatValue(r.value, r.unit)}${base}${target}`;
  });
  console.log(`${o.name}: ${o.status} in ${Math.round(o.seconds)} s${o.error ? ` — ${shortError(o.error)}` : ''}`);
  for (const line of rows) console.log(line);
  for (const line of runsSummary(o)) console.log(`  ${line}`);
}

async function main(): Promise<number> {
  const parsed = parseArgs(process.argv.slice(2));
  if (typeof parsed === 'string') {
    if (parsed) console.error(parsed);
    console.error(USAGE);
    return parsed ? 2 : 0;
  }
  const args = parsed;
  const discovered = await discover(args.dir);
  const found = discovered.filter((d) => !d.helper);
  if (args.list) {
    for (const d of discovered) console.log(`${d.name.padEnd(12)} ${d.bench ? `${d.bench.budgetSeconds} s  ${d.bench.description}` : `(${d.helper ? 'not a benchmark' : 'unusable'}: ${d.error})`}`);
    return 0;
  }
  const unknown = args.names.filter((n) => !found.some((d) => d.name === n));
  if (unknown.length > 0) {
    console.error(`no benchmark named ${unknown.join(', ')}; available: ${found.map((d) => d.name).join(', ') || 'none'}`);
    return 2;
  }
  const selected = args.names.length > 0 ? found.filter((d) => args.names.includes(d.name)) : found;
  const scale = args.quick ? QUICK_SCALE : 1;
  const totalBudget = selected.reduce((s, d) => s + (d.bench?.budgetSeconds ?? 0), 0) * args.budgetScale;
  if (args.names.length === 0 && totalBudget > SUITE_BUDGET_SECONDS) {
    console.error(`warning: the budgets add up to ${totalBudget} s, over the suite's ${SUITE_BUDGET_SECONDS} s`);
  }
  const machine = describeMachine(machineInfo());
  const npmArgs = process.argv.slice(2).join(' ');
  const run: RunInfo = {
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
    command: `npm run bench${npmArgs ? ` -- ${npmArgs}` : ''}`,
    machine,
    quick: args.quick,
    scale,
  };
  console.error(`running ${selected.length} benchmark(s) on ${machine}`);

  const outcomes: BenchOutcome[] = [];
  for (const d of selected) {
    if (!d.bench) {
      outcomes.push({ name: d.name, description: '', issue: null, status: 'failed', rows: [], seconds: 0, error: d.error });
      console.error(`[${d.name}] skipped: ${d.error}`);
      continue;
    }
    const runs: BenchOutcome[] = [];
    for (let r = 1; r <= args.runs; r++) {
      const which = args.runs > 1 ? ` run ${r} of ${args.runs}` : '';
      console.error(`[${d.name}]${which} start (budget ${Math.round(d.bench.budgetSeconds * args.budgetScale)} s): ${d.bench.description}`);
      const outcome = await runInChild(d, args, scale);
      if (outcome.error) console.error(`[${d.name}] ${outcome.status}: ${outcome.error}`);
      console.error(`[${d.name}]${which} ${outcome.status} in ${Math.round(outcome.seconds)} s`);
      runs.push({ ...outcome, error: outcome.error && shortError(outcome.error) });
    }
    // the last run's table, and every run's judged rows beside it
    outcomes.push(runs.length > 1 ? { ...runs[runs.length - 1]!, runs } : runs[0]!);
  }

  console.log('');
  for (const o of outcomes) printOutcome(o);
  const out = args.out ?? (args.quick ? null : DEFAULT_OUT);
  if (out) {
    const previous = existsSync(out) ? parseSections(readFileSync(out, 'utf8')) : new Map<string, Section>();
    const fresh = new Map(outcomes.map((o) => [o.name, renderSection(o, run)]));
    // keep the sections of benchmarks that still exist and did not run now
    const order = found.filter((d) => fresh.has(d.name) || previous.has(d.name));
    order.sort((a, b) => (a.bench?.issue ?? 999) - (b.bench?.issue ?? 999) || a.name.localeCompare(b.name));
    const sections = order.map((d) => fresh.get(d.name) ?? previous.get(d.name)!);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, renderReport(run, sections));
    console.error(`wrote ${out}`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
