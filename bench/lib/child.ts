// Runs one benchmark in its own process (forked by bench/run.ts), so that a crash, a leak or a
// hang stays inside it and memory figures are its own. Results go back over the IPC channel.
import { pathToFileURL } from 'node:url';
import type { BenchContext, Benchmark, BenchRow } from '../harness.js';

export type ChildMessage = { type: 'result'; rows: BenchRow[] } | { type: 'error'; error: string };

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => process.send!(message, () => resolve()));
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

async function main(): Promise<void> {
  const [file, scale, tmpDir, deadline, name] = process.argv.slice(2);
  const fail = async (err: unknown) => {
    await send({ type: 'error', error: describe(err) });
    process.exit(1);
  };
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
  const bench = ((await import(pathToFileURL(file!).href)) as { default: Benchmark }).default;
  const ctx: BenchContext = {
    progress: (message) => process.stderr.write(`[${name}] ${message}\n`),
    scale: Number(scale),
    tmpDir: tmpDir!,
    deadline: Number(deadline),
  };
  const rows = await bench.run(ctx);
  if (!Array.isArray(rows)) throw new Error('run(ctx) must resolve to an array of rows');
  await send({ type: 'result', rows });
  // a benchmark may leave sockets or timers behind: its results are in, the process ends here
  process.exit(0);
}

main().catch(async (err) => {
  await send({ type: 'error', error: describe(err) });
  process.exit(1);
});
