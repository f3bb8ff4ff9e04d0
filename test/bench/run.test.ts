// The benchmark runner as users run it: `npm run bench -- --quick follower` end to end (bounded,
// not timed), and the runner's own duties on throwaway benchmarks: a crash or an overrun is
// reported in the file while the run exits 0, and running one benchmark keeps the other sections.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tonwatch-bench-test-'));
  dirs.push(dir);
  return dir;
}

function run(command: string, args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Writes a benchmark `name` whose run() numbers its runs (n = 1, 2, … through a counter file beside it)
 * and then runs `body`, which returns its rows.
 */
function countingBench(dir: string, name: string, description: string, body: string): void {
  const counter = join(dir, `${name}.count`);
  writeFileSync(counter, '0');
  writeFileSync(
    join(dir, `${name}.ts`),
    `import { readFileSync, writeFileSync } from 'node:fs';
    export default { name: ${JSON.stringify(name)}, description: ${JSON.stringify(description)}, issue: 24, budgetSeconds: 30,
      async run() {
        const n = Number(readFileSync(${JSON.stringify(counter)}, 'utf8')) + 1;
        writeFileSync(${JSON.stringify(counter)}, String(n));${body}
      } };`,
  );
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('npm run bench', () => {
  it('runs the follower benchmark end to end in a quick run and writes its section', async () => {
    const out = join(tempDir(), 'BENCHMARKS.md');
    const result = await run('npm', ['run', 'bench', '--', '--quick', '--out', out, 'follower'], 150_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/\[follower\] replay source alone/);
    expect(result.stderr).toMatch(/\[follower\] ok in \d+ s/);
    const report = readFileSync(out, 'utf8');
    expect(report).toContain('- Command: `npm run bench -- --quick --out');
    expect(report).toMatch(/- Machine: \d+ cores \(.+\), [\d.]+ GiB memory, Node v\d+/);
    expect(report).toContain('quick run (loads scaled by 0.1), not representative');
    const row = (metric: string) => report.split('\n').find((l) => l.startsWith(`| ${metric}`));
    const source = row('replay source: transactions generated/s');
    const follower = row('follower → event log on SQLite: transactions appended/s');
    expect(source).toMatch(/^\| replay source: transactions generated\/s \| [\d,]+ tx\/s \| — \| — \| ≥ 100,000 tx\/s \| (yes|\*\*NO\*\*) \|$/);
    expect(follower).toMatch(/\| [\d,]+ tx\/s \| replay source alone: [\d,]+ tx\/s \| [\d.]+× \|/);
    expect(report).toMatch(/\| \[follower\]\(#follower\) \| #9 \| ok \| \d\/\d \|/);
  }, 180_000);

  it('reports a crashed and an overrunning benchmark in the file, keeps other sections, and exits 0', async () => {
    const dir = tempDir();
    // a package.json so the throwaway benchmarks load as ES modules like the project's
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(
      join(dir, 'steady.ts'),
      `export default { name: 'steady', description: 'returns one row', issue: 1, budgetSeconds: 30,
        async run(ctx) { ctx.progress('working'); return [{ metric: 'things/s', value: 1234.5 * ctx.scale * 10, unit: 'things/s', baseline: { name: 'other', value: 617.25 }, ratio: 2, target: '≥ 1,000 things/s', met: true }]; } };`,
    );
    writeFileSync(
      join(dir, 'crash.ts'),
      `export default { name: 'crash', description: 'throws', issue: 2, budgetSeconds: 30, async run() { throw new Error('receiver exploded'); } };`,
    );
    writeFileSync(
      join(dir, 'hang.ts'),
      `export default { name: 'hang', description: 'never ends', issue: 3, budgetSeconds: 1, run: () => new Promise(() => setInterval(() => {}, 1000)) };`,
    );
    writeFileSync(join(dir, 'helper.ts'), `export const notABenchmark = 1;`);
    writeFileSync(join(dir, 'malformed.ts'), `export default { name: 'Bad Name', run: 1 };`);
    const out = join(dir, 'BENCHMARKS.md');
    const runner = ['tsx', 'bench/run.ts', '--dir', dir, '--out', out, '--grace', '2'];

    const first = await run('npx', [...runner, '--quick'], 120_000);
    expect(first.code, first.stderr).toBe(0);
    let report = readFileSync(out, 'utf8');
    expect(report).toMatch(/\| \[steady\]\(#steady\) \| #1 \| ok \| 1\/1 \|/);
    expect(report).toContain('| things/s | 1,235 things/s | other: 617 things/s | 2× | ≥ 1,000 things/s | yes |');
    expect(report).toMatch(/\| \[crash\]\(#crash\) \| #2 \| failed \| — \|/);
    expect(report).toMatch(/\*\*Failed:\*\* Error: receiver exploded/);
    expect(report).toMatch(/\| \[hang\]\(#hang\) \| #3 \| timed out \| — \|/);
    expect(report).toMatch(/\*\*Timed out:\*\* stopped after its budget of 1 s \(\+2 s grace\)/);
    expect(report).toMatch(/\| \[malformed\]\(#malformed\) \| — \| failed \|/);
    expect(report).toContain('**Failed:** default export: name must be lowercase letters, digits, - or _');
    expect(report).not.toContain('helper'); // a module without a default export is not a benchmark

    // one benchmark again: its section is replaced, the others stay as they were
    const crashSection = report.slice(report.indexOf('<!-- bench:crash'), report.indexOf('<!-- /bench:crash -->'));
    const second = await run('npx', [...runner, 'steady'], 60_000);
    expect(second.code, second.stderr).toBe(0);
    report = readFileSync(out, 'utf8');
    expect(report).toContain(crashSection);
    expect(report).toContain('| things/s | 12,345 things/s |');
    expect(report).toContain(`- Command: \`npm run bench -- --dir ${dir} --out ${out} --grace 2 steady\``);

    const unknown = await run('npx', [...runner, 'nosuch'], 60_000);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no benchmark named nosuch; available: crash, hang, malformed, steady/);
  }, 240_000);

  it('with --runs 3 runs a benchmark three times and says in how many runs each target was met', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    // each run reads and bumps the counter: ratios 1.1, 1.3, 1.2 against a target of ≤ 1.25
    countingBench(dir, 'wobbly', 'a noisy ratio', `
      const ratio = [1.1, 1.3, 1.2][n - 1];
      return [
        { metric: 'p99', value: 10 * ratio, unit: 'ms', baseline: { name: 'floor', value: 10 }, ratio, target: '≤ 1.25× the floor', met: ratio <= 1.25 },
        { metric: 'floor p99', value: 10, unit: 'ms' },
      ];`);
    const out = join(dir, 'BENCHMARKS.md');
    const result = await run('npx', ['tsx', 'bench/run.ts', '--dir', dir, '--out', out, '--runs', '3', 'wobbly'], 120_000);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/\[wobbly\] run 3 of 3 ok in \d+ s/);
    const report = readFileSync(out, 'utf8');
    // the table is the last run's
    expect(report).toContain('| p99 | 12 ms | floor: 10 ms | 1.2× | ≤ 1.25× the floor | yes |');
    expect(report).toContain('Every run of `--runs 3`, one after another (the table is the last):');
    expect(report).toContain('- *p99* (≤ 1.25× the floor): 1.1× yes, 1.3× **NO**, 1.2× yes — met in 2 of 3');
    expect(report).not.toContain('*floor p99*'); // rows without a target are not judged
    expect(report).toMatch(/\| \[wobbly\]\(#wobbly\) \| #24 \| ok \| 0\/1 \|/); // met in every run, or not counted
    expect(result.stdout).toContain('*p99* (≤ 1.25× the floor): 1.1× yes, 1.3× **NO**, 1.2× yes — met in 2 of 3');

    // a last run that fails still lists the earlier runs' rows
    countingBench(dir, 'flaky', 'fails its second run', `
      if (n === 2) throw new Error('second run broke');
      return [{ metric: 'p99', value: 11, unit: 'ms', baseline: { name: 'floor', value: 10 }, ratio: 1.1, target: '≤ 1.25× the floor', met: true }];`);
    const flaky = await run('npx', ['tsx', 'bench/run.ts', '--dir', dir, '--out', out, '--runs', '2', 'flaky'], 120_000);
    expect(flaky.code, flaky.stderr).toBe(0);
    const flakyReport = readFileSync(out, 'utf8');
    expect(flakyReport).toContain('- *p99* (≤ 1.25× the floor): 1.1× yes, run 2 failed — met in 1 of 2');
    expect(flakyReport).toContain('- run 2 failed: Error: second run broke');

    const bad = await run('npx', ['tsx', 'bench/run.ts', '--dir', dir, '--runs', '0', 'wobbly'], 60_000);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--runs needs a whole number from 1 to 20');
  }, 180_000);
});
