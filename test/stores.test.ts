// test/support/stores.ts decides whether the PostgreSQL half of the store tests runs: with `CI`
// set, an unreachable PostgreSQL fails the run; without it, those cases skip with a warning.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from './support/service.js';

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Loads test/support/stores.ts in a fresh process; resolves with its exit code and output. */
async function loadStores(env: Record<string, string | undefined>): Promise<{ code: number | null; output: string }> {
  const script = `const s = await import(${JSON.stringify(path.join(ROOT, 'test/support/stores.ts'))}); console.log('dialects=' + s.dialects.join(','));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, output };
}

it('with CI set, an unreachable PostgreSQL fails the run; without CI it is skipped with a warning', async () => {
  const url = `postgres://postgres@127.0.0.1:${await closedPort()}/test`;
  const ci = await loadStores({ CI: 'true', TONWATCH_TEST_DATABASE_URL: url });
  expect(ci.code).not.toBe(0);
  expect(ci.output).toContain('PostgreSQL is required when CI is set');
  expect(ci.output).toContain(url);

  const local = await loadStores({ CI: undefined, TONWATCH_TEST_DATABASE_URL: url });
  expect(local.code).toBe(0);
  expect(local.output).toContain('PostgreSQL tests skipped');
  expect(local.output).toContain('dialects=sqlite\n');
}, 60_000);
