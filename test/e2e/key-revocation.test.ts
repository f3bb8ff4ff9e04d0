// A revoked key is refused by the very next request, wherever it was revoked: through the admin API of
// this process or of another member of a cluster, or by `tonwatch keys revoke` run as its own process on
// the store directly — although every server keeps a key cache (the key was used just before, so it is
// cached). SQLite: the file's data version; PostgreSQL: the revocation's announcement (NOTIFY).
import { execFile } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, startTestService, type TestService } from '../support/service.js';
import { dialects, PG_URL, uniqueSchema } from '../support/stores.js';
import { openStore } from '../../src/store/db.js';

/** `tonwatch keys revoke <id>` as an operator runs it: its own process, on the store of `env`. */
function cliRevoke(id: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'keys', 'revoke', id], { cwd: ROOT, env: { ...process.env, ...env }, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`keys revoke: ${err.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/** A new key, used once through `svc` so that the server has it in its cache. */
async function cachedKey(svc: TestService, ...others: TestService[]): Promise<{ id: string; key: string }> {
  const res = await svc.api('/admin/keys', { method: 'POST', json: { name: 'to revoke', scopes: ['webhooks'] } });
  const { id, key } = (await res.json()) as { id: string; key: string };
  for (const s of [svc, ...others]) expect((await s.api('/webhooks', { auth: key })).status).toBe(200);
  return { id, key };
}

const status = async (svc: TestService, key: string) => (await svc.api('/webhooks', { auth: key })).status;

describe('on SQLite', () => {
  let svc: TestService;
  afterAll(async () => svc?.close());

  it('refuses a key at once after `keys revoke` in another process, and after the admin API', async () => {
    svc = await startTestService();
    const viaCli = await cachedKey(svc);
    const said = await cliRevoke(viaCli.id, { TONWATCH_DATA_DIR: svc.dataDir });
    expect(said).toMatch(new RegExp(`^revoked key ${viaCli.id} "to revoke"; running servers refuse it from now on`));
    expect(await status(svc, viaCli.key)).toBe(401);

    const viaApi = await cachedKey(svc);
    expect((await svc.api(`/admin/keys/${viaApi.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await status(svc, viaApi.key)).toBe(401);
  }, 120_000);
});

describe.runIf(dialects.includes('postgres'))('on PostgreSQL', () => {
  const running: TestService[] = [];
  const schema = uniqueSchema('revoke');
  const databaseUrl = `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  afterAll(async () => {
    for (const s of running.splice(0).reverse()) await s.close();
    const store = await openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 1 });
    await store.db.schema.dropSchema(schema).ifExists().cascade().execute();
    await store.close();
  });

  /** The announcement travels asynchronously: give it a moment, and say how long it took. */
  async function refusedWithin(svc: TestService, key: string): Promise<number> {
    const start = Date.now();
    while ((await status(svc, key)) !== 401) {
      if (Date.now() - start > 2000) throw new Error('the revoked key still works after 2 s');
      await new Promise((r) => setTimeout(r, 5));
    }
    return Date.now() - start;
  }

  it('refuses a key on every member of a cluster once one member revoked it, or `keys revoke` did', async () => {
    const env = { DATABASE_URL: databaseUrl, TONWATCH_CLUSTER: 'true', TONWATCH_CHAIN: 'replay', TONWATCH_BLOCK_INTERVAL_MS: '200', TONWATCH_ADMIN_KEY: 'tw_test_admin_revoke_0123456789' };
    const store = await openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 1 });
    await store.close();
    const a = await startTestService({ env: { ...env, TONWATCH_ROLES: 'follower,api,worker' } });
    running.push(a);
    const b = await startTestService({ env: { ...env, TONWATCH_ROLES: 'api' } });
    running.push(b);
    // both answer with the same admin key (the test harness gives each its own otherwise)
    const admin = { ...a, api: (p: string, init: Parameters<TestService['api']>[1] = {}) => a.api(p, { auth: 'tw_test_admin_revoke_0123456789', ...init }) } as TestService;

    const viaA = await cachedKey(admin, b);
    expect((await admin.api(`/admin/keys/${viaA.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await status(a, viaA.key)).toBe(401); // the member that revoked: at once
    const heardAfter = await refusedWithin(b, viaA.key); // the other member: once it hears the NOTIFY
    console.log(`cluster: member b refused the key revoked on member a ${heardAfter} ms after the DELETE answered`);

    const viaCli = await cachedKey(admin, b);
    await cliRevoke(viaCli.id, { DATABASE_URL: databaseUrl });
    const cliHeard = await Promise.all([refusedWithin(a, viaCli.key), refusedWithin(b, viaCli.key)]);
    console.log(`cluster: members refused the key revoked by \`keys revoke\` ${cliHeard.join(' and ')} ms after the command ended`);
  }, 180_000);

  it('refuses a key on a single server (not a cluster) once `keys revoke` ran', async () => {
    const own = uniqueSchema('revoke1');
    const url = `${PG_URL}?options=${encodeURIComponent(`-c search_path=${own}`)}`;
    await (await openStore({ databaseUrl: PG_URL, pgSchema: own, pgPoolSize: 1 })).close();
    const svc = await startTestService({ env: { DATABASE_URL: url, TONWATCH_CHAIN: 'replay', TONWATCH_BLOCK_INTERVAL_MS: '200' } });
    try {
      const key = await cachedKey(svc);
      await cliRevoke(key.id, { DATABASE_URL: url });
      console.log(`single server: refused the key revoked by \`keys revoke\` ${await refusedWithin(svc, key.key)} ms after the command ended`);
    } finally {
      await svc.close();
      const store = await openStore({ databaseUrl: PG_URL, pgSchema: own, pgPoolSize: 1 });
      await store.db.schema.dropSchema(own).ifExists().cascade().execute();
      await store.close();
    }
  }, 120_000);
});
