// The roles of a process (TONWATCH_ROLES), in process on one PostgreSQL schema: a worker-only member
// answers health and metrics but no API and never leads; an api-only member serves the log the
// follower member writes; a follower member leads and runs the singletons.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test/support/service.js';
import { dialects, PG_URL, uniqueSchema } from '../../test/support/stores.js';
import { openStore } from '../store/db.js';

const ADMIN_KEY = 'tw_test_admin_roles_0123456789';

const until = async (cond: () => boolean | Promise<boolean>, what: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe.runIf(dialects.includes('postgres'))('roles of cluster members', () => {
  const running: TestService[] = [];
  let schema = '';
  afterEach(async () => {
    for (const s of running.splice(0).reverse()) await s.close();
    const store = await openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 1 });
    await store.db.schema.dropSchema(schema).ifExists().cascade().execute();
    await store.close();
  });

  it('follower, api and worker members each run their part only', async () => {
    schema = uniqueSchema('roles');
    const env = (roles: string) => ({
      DATABASE_URL: `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
      TONWATCH_CLUSTER: 'true',
      TONWATCH_CHAIN: 'replay',
      TONWATCH_BLOCK_INTERVAL_MS: '200',
      TONWATCH_REPLAY_RATE: '20',
      TONWATCH_REPLAY_ACCOUNTS: '50',
      TONWATCH_REPLAY_START: String(Date.now()),
      TONWATCH_ROLES: roles,
      // one admin key for the cluster: a member with another would revoke it (ensureAdminKey)
      TONWATCH_ADMIN_KEY: ADMIN_KEY,
    });
    // the schema must exist before the members' URLs name it
    const admin = await openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 1 });
    await admin.close();
    const follower = await startTestService({ env: env('follower') });
    running.push(follower);
    const api = await startTestService({ env: env('api') });
    running.push(api);
    const worker = await startTestService({ env: env('worker') });
    running.push(worker);

    await until(() => follower.leadership().leader, 'the follower member leads');
    expect(follower.follower).not.toBeNull();
    for (const member of [api, worker]) {
      expect(member.follower).toBeNull();
      expect(member.leadership()).toMatchObject({ leader: false });
    }
    // the api member serves the log the follower member writes, read from the store
    await until(() => (api.events.headPosition() ?? -1) >= (follower.events.headPosition() ?? 0) && follower.events.headPosition() !== null, 'the api member follows the log');
    expect((await api.api('/webhooks', { auth: ADMIN_KEY })).status).toBe(200);
    expect((await follower.api('/webhooks', { auth: ADMIN_KEY })).status).toBe(404);
    // a worker-only member: health and metrics, no API
    expect((await worker.api('/webhooks', { auth: ADMIN_KEY })).status).toBe(404);
    expect((await worker.api('/readyz', { auth: null })).status).toBe(200);
    expect((await worker.api('/metrics', { auth: null })).status).toBe(200);
    const ready = (await (await api.api('/readyz', { auth: null })).json()) as any;
    expect(ready.checks.follower).toMatchObject({ ok: true, leader: false, roles: ['api'] });

  }, 90_000);
});
