// `tonwatch keys …` spawned as a real process over a real store, as an operator would run it.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeys } from '../../auth/keys.js';
import { openStore, type Store } from '../../store/db.js';
import { PG_URL, dialects, uniqueSchema } from '../../../test/support/stores.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'keys', ...args], { cwd: ROOT, env, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe.each(dialects)('tonwatch keys on %s', (dialect) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonwatch-keys-'));
  const schema = uniqueSchema('cli');
  let env: NodeJS.ProcessEnv;
  let store: Store;

  beforeAll(async () => {
    env = { ...process.env, TONWATCH_DATA_DIR: tmp, TONWATCH_CONFIG: '', DATABASE_URL: '', TONWATCH_ADMIN_KEY: '', LOG_LEVEL: 'silent' };
    if (dialect === 'postgres') {
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.end();
      // The CLI takes the store from DATABASE_URL, as serve does; the schema rides in the URL.
      env.DATABASE_URL = `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    }
  });

  afterAll(async () => {
    await store?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
    if (dialect === 'postgres') {
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });

  it('creates, lists and revokes keys in the configured store', async () => {
    const created = await cli(['create', '--name', 'ci hooks', '--scope', 'webhooks', '--scope', 'streaming', '--owner-ref', 'team:ops', '--json'], env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toMatchObject({ name: 'ci hooks', scopes: ['streaming', 'webhooks'], owner_ref: 'team:ops', origin: 'cli', revoked_at: null });
    expect(key.key).toMatch(/^tw_/);

    // The key works for the server: same store, found by its hash.
    store =
      dialect === 'postgres'
        ? await openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 2 })
        : await openStore({ sqlitePath: path.join(tmp, 'tonwatch.sqlite') });
    expect((await new ApiKeys(store).verify(key.key))?.keyId).toBe(key.id);

    const listed = await cli(['list', '--json'], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).keys.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect(listed.stdout).not.toContain(key.key);
    const table = await cli(['list'], env);
    expect(table.stdout).toMatch(new RegExp(`${key.id}\\s+ci hooks\\s+streaming,webhooks\\s+team:ops`));

    const revoked = await cli(['revoke', key.id, '--json'], env);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout).revoked_at).toMatch(/^\d{4}-/);
    expect(await new ApiKeys(store).verify(key.key)).toBeNull();
    expect((await cli(['list', '--active', '--json'], env)).stdout).toBe('{"keys":[]}\n');
  });

});

describe('tonwatch keys failing', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tonwatch-keys-'));
  const env = { ...process.env, TONWATCH_DATA_DIR: tmp, TONWATCH_CONFIG: '', DATABASE_URL: '', TONWATCH_ADMIN_KEY: '' };
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('fails clearly: unknown id → 1, bad scope or usage → 2', async () => {
    const missing = await cli(['revoke', 'key_0000'], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no API key with id 'key_0000'");

    const scope = await cli(['create', '--name', 'x', '--scope', 'root'], env);
    expect(scope.code).toBe(2);
    expect(scope.stderr).toContain('unknown scope "root"');

    const usage = await cli(['create', '--scope', 'webhooks'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--name is required');
  });

  it('exits non-zero naming the setting on invalid configuration', async () => {
    const res = await cli(['list'], { ...process.env, PORT: 'abc', TONWATCH_CONFIG: '' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('PORT: must be an integer from 0 to 65535, got "abc"');
  });
});
