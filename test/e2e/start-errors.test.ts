// A start that cannot open what it needs names the setting to change (#30): a PORT another process holds,
// a DATABASE_URL whose PostgreSQL refuses the connection or the login. `tonwatch serve` runs as a child process
// and must end with one sentence and exit 2, not a stack or a bare "EADDRINUSE".
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, StoreUnreachableError } from '../../src/store/db.js';
import { freePort } from '../support/ports.js';
import { ROOT } from '../support/service.js';
import { PG_URL } from '../support/stores.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** `tonwatch serve` with these settings until it exits: its code and what it wrote to stderr. */
function serve(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-start-errors-'));
  dirs.push(dataDir);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve'], {
    cwd: ROOT,
    // a known admin key: a generated one would be printed (stored) before the start fails
    env: { ...process.env, HOST: '127.0.0.1', TONWATCH_DATA_DIR: dataDir, TONWATCH_ADMIN_KEY: 'tw_test_admin_start_errors_0123456789', TONWATCH_DEVNET_MANUAL_BLOCKS: 'true', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    }),
  );
}

describe('tonwatch serve names the setting when it cannot start', () => {
  it('a PORT another process listens on: "PORT: <port> is already in use"', async () => {
    const holder = net.createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const { code, stderr } = await serve({ PORT: String(port) });
      expect(code).toBe(2);
      expect(stderr.trim()).toBe(`tonwatch: PORT: ${port} is already in use on 127.0.0.1 (another tonwatch, or another server); stop that one or choose another PORT`);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  }, 120_000);

  it('a DATABASE_URL where nothing listens: "DATABASE_URL: … the connection was refused"', async () => {
    const closed = await freePort();
    const { code, stderr } = await serve({ PORT: '0', DATABASE_URL: `postgres://tonwatch:secret@127.0.0.1:${closed}/test` });
    expect(code).toBe(2);
    // the password stays out of the message
    expect(stderr.trim()).toBe(`tonwatch: DATABASE_URL: postgres://***@127.0.0.1:${closed}/test: cannot connect to PostgreSQL: the connection was refused (is PostgreSQL running there?)`);
  }, 120_000);

  it('a DATABASE_URL naming a database the server does not have: PostgreSQL\'s own reason, under DATABASE_URL', async () => {
    // the test server, another database name
    const url = PG_URL.replace(/\/[^/?]*(\?|$)/, '/tonwatch_no_such_database$1');
    const err = await openStore({ databaseUrl: url }).then(
      (store) => store.close().then(() => null),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreUnreachableError);
    expect((err as Error).message).toMatch(/^DATABASE_URL: postgres:\/\/\S*\/tonwatch_no_such_database: PostgreSQL says: database "tonwatch_no_such_database" does not exist$/);
  });
});
