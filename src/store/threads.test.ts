// The server's threads end cleanly on every supported Node.js. better-sqlite3 12 wraps its objects in
// node::ObjectWrap, which from Node 24's headers on registers an environment cleanup hook per object and
// removes it in the destructor; a Statement collected after its thread's environment is gone (a worker
// ending, the process exiting) then aborts the whole process in RemoveEnvironmentCleanupHook. Version 13
// is built on Node-API, which has no such hook. Whether a collection lands at that moment is up to the
// garbage collector, so the second test checks the cause itself: the binding that is loaded does not call
// RemoveEnvironmentCleanupHook (12.11.1 built against Node 26's headers does, and fails it).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../../test/support/service.js';

it('starts and stops the server with its threads (WAL checkpointer, webhook sender) three times in one process, which then exits 0', async () => {
  const { code, stdout, stderr } = await new Promise<{ code: number | string; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', path.join(ROOT, 'test/support/threads-child.ts'), '3'],
      { cwd: ROOT, timeout: 150_000 },
      (err, stdout, stderr) => resolve({ code: child.exitCode ?? child.signalCode ?? String(err), stdout, stderr }),
    );
  });
  expect(stderr).not.toContain('Assertion failed');
  expect(code, `${stdout}\n${stderr}`).toBe(0);
  expect(stdout).toContain('round 3: sender thread started and stopped');
  expect(stdout).toContain('all rounds done');
}, 180_000);

it.runIf(process.platform === 'linux')('loads a better-sqlite3 binding that registers no per-object environment cleanup hooks', async () => {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => { close(): void };
  new Database(':memory:').close();
  // The shared object the process just loaded, as the kernel maps it.
  const binding = readFileSync('/proc/self/maps', 'utf8')
    .split('\n')
    .map((line) => line.slice(line.indexOf('/')))
    .find((file) => /better[-_]sqlite3.*\.node$/.test(file));
  expect(binding).toBeDefined();
  expect(readFileSync(binding!).includes('RemoveEnvironmentCleanupHook')).toBe(false);
});
