// One process per store where the store is not shared: a second `tonwatch serve` on the same SQLite
// file, or a process of the other kind (cluster or not) on a PostgreSQL database another runs, exits
// at start naming the process that runs it; a killed owner does not keep its store locked.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, spawnService } from '../support/service.js';
import { dialects } from '../support/stores.js';
import { clusterDb, REPLAY, startNode, stopGracefully, type ClusterDb } from './support.js';

/** Runs `tonwatch serve` expecting it to exit at start; resolves with its exit code and stderr. */
async function refusedServe(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', TONWATCH_CHAIN: 'replay', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  return { code, stderr };
}

describe('a store that one process runs', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('SQLite: a second process on the same file exits naming the first; after the first is killed, a new one starts', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-single-'));
    dirs.push(dataDir);
    const env = { TONWATCH_CHAIN: 'replay', TONWATCH_BLOCK_INTERVAL_MS: '500', TONWATCH_REPLAY_RATE: '10' };
    const first = await spawnService({ dataDir, env });
    try {
      const second = await refusedServe({ TONWATCH_DATA_DIR: dataDir, TONWATCH_ADMIN_KEY: first.adminKey });
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`TONWATCH_DATA_DIR: the SQLite store is in use by another tonwatch process (pid ${first.child.pid} on ${hostname()}, started 20`);
      expect(second.stderr).toContain('SQLite serves one process');
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }
    // the owner row names a dead pid: the next process takes the store over
    const third = await spawnService({ dataDir, env, adminKey: first.adminKey });
    expect(await stopGracefully(third)).toBe(0);
  }, 120_000);

  describe.runIf(dialects.includes('postgres'))('PostgreSQL', () => {
    let db: ClusterDb;
    afterAll(async () => db?.drop());

    it('a process without TONWATCH_CLUSTER refuses a database cluster members run, and a member refuses one a single process runs', async () => {
      db = await clusterDb();
      const member = await startNode(db, 'member', 'tw_test_admin_cluster_member_key');
      try {
        const single = await refusedServe({ DATABASE_URL: db.url, TONWATCH_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tonwatch-pg-')), TONWATCH_ADMIN_KEY: 'tw_test_admin_cluster_member_key' });
        expect(single.code).toBe(2);
        expect(single.stderr).toContain(`DATABASE_URL: this database is in use by "tonwatch pid=${member.child.pid} host=`);
        expect(single.stderr).toContain('cluster"; stop it, or run every process with TONWATCH_CLUSTER=true');
      } finally {
        member.child.kill('SIGKILL');
        await member.exited;
      }
      const alone = await spawnService({ dataDir: mkdtempSync(path.join(tmpdir(), 'tonwatch-pg-')), adminKey: 'tw_test_admin_cluster_member_key', env: { DATABASE_URL: db.url, ...REPLAY } });
      try {
        const joining = await refusedServe({
          DATABASE_URL: db.url,
          TONWATCH_CLUSTER: 'true',
          TONWATCH_DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tonwatch-pg-')),
          TONWATCH_ADMIN_KEY: 'tw_test_admin_cluster_member_key',
        });
        expect(joining.code).toBe(2);
        expect(joining.stderr).toContain(`this database is in use by "tonwatch pid=${alone.child.pid} host=`);
        expect(joining.stderr).toContain('that process runs without TONWATCH_CLUSTER and must be the only one');
      } finally {
        expect(await stopGracefully(alone)).toBe(0);
      }
    }, 120_000);
  });
});
