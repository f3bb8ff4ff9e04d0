// The roles of a process (TONWATCH_ROLES), in process on one PostgreSQL schema: a worker-only member
// answers health and metrics but no API and never leads; an api-only member serves the log the
// follower member writes; a follower member leads and runs the singletons, among them the invoice
// expiry, which expires on time an invoice created through an api member (announced to it).
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, createInvoice } from '../../test/support/invoices.js';
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

  const replayStart = Date.now();
  const env = (roles: string) => ({
    DATABASE_URL: `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    TONWATCH_CLUSTER: 'true',
    TONWATCH_CHAIN: 'replay',
    TONWATCH_BLOCK_INTERVAL_MS: '200',
    TONWATCH_REPLAY_RATE: '20',
    TONWATCH_REPLAY_ACCOUNTS: '50',
    TONWATCH_REPLAY_START: String(replayStart),
    TONWATCH_ROLES: roles,
    // one admin key for the cluster: a member with another would revoke it (ensureAdminKey)
    TONWATCH_ADMIN_KEY: ADMIN_KEY,
  });
  /** A `tonwatch serve` member with these roles, stopped after the test. */
  const member = async (roles: string) => {
    const service = await startTestService({ env: env(roles) });
    running.push(service);
    return service;
  };
  /** A new schema for the members (it must exist before their URLs name it). */
  const newSchema = async () => {
    schema = uniqueSchema('roles');
    const admin = await openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 1 });
    await admin.close();
  };

  it('follower, api and worker members each run their part only', async () => {
    await newSchema();
    const follower = await member('follower');
    const api = await member('api');
    const worker = await member('worker');

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

  it("an invoice created through an api member expires on time by the leader's timer (the new invoice is announced)", async () => {
    await newSchema();
    const follower = await member('follower');
    const api = await member('api');
    await until(() => follower.leadership().leader, 'the follower member leads');
    // the leader's expiry timer is armed for nothing yet: only the api member knows of the invoice
    // the cluster's admin key, not the one startTestService made up
    const asAdmin = { ...api, api: (path: string, init: Parameters<TestService['api']>[1] = {}) => api.api(path, { auth: ADMIN_KEY, ...init }) };
    // a recipient the chain accepts: an account of the replay's pool that has sent a message
    const sender = async () => {
      const batches = await api.events.readAfter(-1, 1000);
      return batches.flatMap((b) => b.events).find((e) => e.type === 'transaction' && e.tx.outMessages.some((m) => m.type === 'internal' && !m.bounced));
    };
    await until(async () => (await sender()) !== undefined, 'a transaction sending a message in the log');
    const recipient = await sender();
    const { token } = await createApp(asAdmin, { name: 'Cluster shop', recipient_address: recipient?.type === 'transaction' ? recipient.tx.account : '' });
    const invoice = await createInvoice(asAdmin, token, { amount: '1000000', life_time: 2, currency: 'TON' });
    const stored = async () => (await follower.store.db.selectFrom('invoices' as any).select('status').where('id', '=', invoice.id).executeTakeFirstOrThrow()).status as string;
    expect(await stored()).toBe('pending');
    // expired in the store (not only as read past date_expire) by the leader's sweep: without the
    // announcement its timer would next look in an hour
    await until(async () => (await stored()) === 'expired', 'the leader expiring the invoice', 20_000);
    console.log(`invoice created on an api member: expired by the leader ${Date.now() - invoice.date_expire * 1000} ms after date_expire`);
  }, 90_000);
});
