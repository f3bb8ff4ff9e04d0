// docs/BENCHMARKS.md: a header (date, machine, command, summary) and one section per benchmark
// between markers, so that running one benchmark replaces its own section and keeps the others
// (each section says when, how and on what it was measured).
import type { BenchRow } from '../harness.js';
import { round } from './stats.js';

export type BenchStatus = 'ok' | 'failed' | 'timed out';

export interface BenchOutcome {
  name: string;
  description: string;
  issue: number | null;
  status: BenchStatus;
  rows: BenchRow[];
  /** First lines of the error for a failed or timed-out run. */
  error?: string;
  seconds: number;
  /** One-minute load average when it started: numbers from a busy machine read differently. */
  loadAtStart?: number;
  /** With `--runs N`: every run in order (this outcome is the last of them). */
  runs?: BenchOutcome[];
}

export interface RunInfo {
  date: string;
  command: string;
  machine: string;
  quick: boolean;
  scale: number;
}

/** What the summary table needs from a section, kept in its start marker so merges need no parsing. */
interface SectionMeta {
  name: string;
  issue: number | null;
  status: BenchStatus;
  met: number;
  targets: number;
  date: string;
}

export interface Section {
  meta: SectionMeta;
  markdown: string;
}

const START = /^<!-- bench:([a-z0-9_-]+) (\{.*\}) -->$/;
const END = (name: string) => `<!-- /bench:${name} -->`;

export function formatValue(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  const v = round(value);
  const text = Math.abs(v) >= 1000 ? v.toLocaleString('en-US') : String(v);
  return unit ? `${text} ${unit}` : text;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderSection(outcome: BenchOutcome, run: RunInfo): Section {
  const withTarget = outcome.rows.filter((r) => r.met !== undefined);
  const meta: SectionMeta = {
    name: outcome.name,
    issue: outcome.issue,
    status: outcome.status,
    // with several runs, a target counts as met when every run met it
    met: withTarget.filter((r) => (outcome.runs ?? [outcome]).every((run) => rowOf(run, r.metric)?.met === true)).length,
    targets: withTarget.length,
    date: run.date,
  };
  const lines: string[] = [];
  lines.push(`<!-- bench:${outcome.name} ${JSON.stringify(meta)} -->`);
  lines.push(`## ${outcome.name}`);
  lines.push('');
  const issue = outcome.issue ? ` (issue #${outcome.issue})` : '';
  if (outcome.description || issue) lines.push(`${outcome.description}${issue}`.trim(), '');
  const quick = run.quick ? ` — **quick run (loads scaled by ${run.scale}), not representative**` : '';
  const load = outcome.loadAtStart === undefined ? '' : ` (load average ${outcome.loadAtStart.toFixed(1)} at its start)`;
  lines.push(`Measured ${run.date} with \`${run.command}\` in ${round(outcome.seconds)} s on ${run.machine}${load}${quick}.`);
  lines.push('');
  if (outcome.status !== 'ok') {
    lines.push(`**${outcome.status === 'failed' ? 'Failed' : 'Timed out'}:** ${cell(outcome.error ?? 'no detail')}`);
    lines.push('');
  }
  if (outcome.rows.length > 0) {
    lines.push('| Metric | Value | Baseline | Ratio | Target | Met |');
    lines.push('|---|---:|---|---:|---|---|');
    for (const r of outcome.rows) {
      const baseline = r.baseline ? `${cell(r.baseline.name)}: ${formatValue(r.baseline.value, r.unit)}` : '—';
      const ratio = r.ratio === undefined ? '—' : `${round(r.ratio)}×`;
      const met = r.met === undefined ? (r.target ? 'not judged' : '—') : r.met ? 'yes' : '**NO**';
      lines.push(`| ${cell(r.metric)} | ${formatValue(r.value, r.unit)} | ${baseline} | ${ratio} | ${cell(r.target ?? '—')} | ${met} |`);
    }
    lines.push('');
    const notes = outcome.rows.filter((r) => r.note);
    if (notes.length > 0) {
      lines.push('Notes:', '');
      for (const r of notes) lines.push(`- *${r.metric}*: ${r.note!.replace(/\n/g, ' ')}`);
      lines.push('');
    }
  } else if (outcome.status === 'ok') {
    lines.push('No results.', '');
  }
  const summary = runsSummary(outcome);
  if (summary.length > 0) {
    lines.push(`Every run of \`--runs ${outcome.runs!.length}\`, one after another (the table is the last):`, '');
    for (const line of summary) lines.push(`- ${line}`);
    lines.push('');
  }
  lines.push(END(outcome.name));
  return { meta, markdown: lines.join('\n') };
}

/**
 * With several runs: per judged row (a row with a target), each run's ratio (or value) and whether it met
 * the target, then in how many runs it did; runs that failed say so. Empty for a single run.
 */
export function runsSummary(outcome: BenchOutcome): string[] {
  const runs = outcome.runs ?? [];
  if (runs.length < 2) return [];
  // every run's judged rows, first seen first: a last run that failed still shows the others'
  const judged = new Map<string, BenchRow>();
  for (const run of runs) for (const r of run.rows) if (r.met !== undefined && !judged.has(r.metric)) judged.set(r.metric, r);
  const lines = [...judged.values()].map((row) => {
    let met = 0;
    const each = runs.map((run, i) => {
      const r = rowOf(run, row.metric);
      if (!r) return `run ${i + 1} ${run.status === 'ok' ? 'without this row' : run.status}`;
      if (r.met) met++;
      const shown = r.ratio === undefined ? formatValue(r.value, r.unit) : `${round(r.ratio)}×`;
      return `${shown} ${r.met === undefined ? 'not judged' : r.met ? 'yes' : '**NO**'}`;
    });
    return `*${cell(row.metric)}* (${cell(row.target ?? '')}): ${each.join(', ')} — met in ${met} of ${runs.length}`;
  });
  const failed = runs.map((run, i) => (run.status === 'ok' ? null : `run ${i + 1} ${run.status}: ${cell(run.error ?? 'no detail')}`)).filter((l): l is string => l !== null);
  return [...lines, ...failed];
}

function rowOf(outcome: BenchOutcome, metric: string): BenchRow | undefined {
  return outcome.rows.find((r) => r.metric === metric);
}

/** Sections of an existing report, by benchmark name (an unreadable file yields none). */
export function parseSections(text: string): Map<string, Section> {
  const sections = new Map<string, Section>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = START.exec(lines[i]!);
    if (!m) continue;
    const end = lines.indexOf(END(m[1]!), i);
    if (end < 0) continue;
    try {
      sections.set(m[1]!, { meta: JSON.parse(m[2]!) as SectionMeta, markdown: lines.slice(i, end + 1).join('\n') });
    } catch {
      // a hand-edited marker: the section is dropped and rewritten on the benchmark's next run
    }
    i = end;
  }
  return sections;
}

/** The whole file: header with this run's facts, the summary of every section, then the sections. */
export function renderReport(run: RunInfo, sections: Section[]): string {
  const lines = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (`bench/run.ts`); do not edit by hand. Every benchmark compares tonwatch with a',
    'baseline measured in the same run on the same machine, because ratios travel between machines better',
    'than absolute numbers. A target that is not met says **NO** in its table; it does not fail the run.',
    'Run one benchmark with `npm run bench -- <name>` (its section is replaced, the others are kept), a smoke',
    'run with `npm run bench -- --quick` (prints, writes no file unless `--out <file>`); `--runs N` runs each one',
    'N times in a row, lists every run\'s judged rows under its table and counts a target as met when every run',
    'met it. Each section gives the one-minute load average at its start: above the number of cores, other work',
    'shared the CPU and absolute numbers are low; the ratios to baselines measured alongside hold better.',
    '',
    `- Last run: ${run.date}`,
    `- Command: \`${run.command}\``,
    `- Machine: ${run.machine}`,
    '',
    '| Benchmark | Issue | Status | Targets met | Measured |',
    '|---|---|---|---|---|',
  ];
  for (const { meta } of sections) {
    const targets = meta.targets === 0 ? '—' : `${meta.met}/${meta.targets}`;
    lines.push(`| [${meta.name}](#${meta.name}) | ${meta.issue ? `#${meta.issue}` : '—'} | ${meta.status} | ${targets} | ${meta.date} |`);
  }
  lines.push('');
  for (const s of sections) lines.push(s.markdown, '');
  return lines.join('\n');
}
