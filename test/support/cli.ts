// For tests of CLI commands: runs a command's `run(argv)` in-process and returns its exit code and what it
// printed with console.log and console.error.
import { vi } from 'vitest';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

export async function runCli(run: (argv: string[]) => Promise<number>, argv: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  try {
    const code = await run(argv);
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}
