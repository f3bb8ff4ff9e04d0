// Crash safety with the real process: `tonwatch serve` is SIGKILLed between a failed attempt and
// its retry, restarted on the same data dir, and the event is delivered once more, in order, with
// the same webhook-id; the event queued behind it follows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnService, type SpawnedService } from '../../test/support/service.js';
import { openStore } from '../store/db.js';
import { deliveryDb } from '../delivery/tables.js';
import { Receiver, until } from '../../test/support/webhooks.js';

describe('webhooks across a SIGKILL', () => {
  const dirs: string[] = [];
  const children: SpawnedService[] = [];
  let receiver: Receiver | null = null;

  afterEach(async () => {
    for (const c of children.splice(0)) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    await receiver?.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('a delivery that failed before the kill is retried after the restart, before the one behind it', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-webhook-crash-'));
    dirs.push(dataDir);
    const env = { TONWATCH_BLOCK_INTERVAL_MS: '100' };
    receiver = await new Receiver().listen(0);
    let firstSeen = false;
    // The first attempt fails and asks for a retry in 3 s: the kill comes inside that window.
    receiver.respond = () => (firstSeen ? { status: 200 } : ((firstSeen = true), { status: 503, headers: { 'retry-after': '3' } }));

    const first = await spawnService({ dataDir, env });
    children.push(first);
    const api = async (base: string, method: string, p: string, json?: unknown, auth = first.adminKey) => {
      const res = await fetch(`${base}${p}`, { method, headers: { authorization: `Bearer ${auth}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) }, body: json === undefined ? undefined : JSON.stringify(json) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const key = (await api(first.url, 'POST', '/admin/keys', { name: 'crash', scopes: ['webhooks'] })).body.key as string;
    const wallets = (await api(first.url, 'GET', '/devnet/wallets')).body as Array<{ name: string; address: string }>;
    const bob = wallets.find((w) => w.name === 'bob')!.address;
    const hook = (await api(first.url, 'POST', '/webhooks', { endpoint: receiver.url }, key)).body;
    expect((await api(first.url, 'POST', `/webhooks/${hook.webhook_id}/account-tx/subscribe`, { accounts: [{ account_id: bob }] }, key)).status).toBe(200);
    const subscription = async (base: string) => (await api(base, 'GET', `/webhooks/${hook.webhook_id}/account-tx/subscriptions`, undefined, key)).body.account_tx_subscriptions[0];

    expect((await api(first.url, 'POST', '/devnet/send', { from: 'alice', to: 'bob', amount: '1000000', comment: 'one' })).status).toBe(200);
    await receiver.waitFor(1, 20_000);
    await until(async () => (await subscription(first.url)).failed_attempts === 1, 10_000, 'the failure recorded');
    expect((await api(first.url, 'POST', '/devnet/send', { from: 'carol', to: 'bob', amount: '1000000', comment: 'two' })).status).toBe(200);
    // The second transfer reaches bob and waits in the outbox behind the failing first one.
    const store = await openStore({ sqlitePath: path.join(dataDir, 'tonwatch.sqlite') });
    try {
      const pending = async () => (await deliveryDb(store.db).selectFrom('delivery_outbox').select('id').where('state', '=', 'pending').execute()).length;
      await until(async () => (await pending()) === 2, 20_000, 'both deliveries pending');
    } finally {
      await store.close();
    }
    expect(receiver.requests).toHaveLength(1);
    first.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await first.exited).toBe('SIGKILL');

    const second = await spawnService({ dataDir, env, adminKey: first.adminKey });
    children.push(second);
    await until(async () => (await fetch(`${second.url}/readyz`)).status === 200, 30_000, 'the restarted service ready');
    const healthyMs = Date.now() - killedAt;
    await receiver.waitFor(3, 30_000);
    await until(async () => (await subscription(second.url)).failed_attempts === undefined, 10_000, 'the failure cleared');
    const bodies = receiver.requests.map((r) => JSON.parse(r.body) as { account_id: string; lt: number });
    expect(bodies.every((b) => b.account_id === bob)).toBe(true);
    expect(bodies[1]!.lt).toBe(bodies[0]!.lt); // the failed event once more…
    expect(bodies[2]!.lt).toBeGreaterThan(bodies[1]!.lt); // …then the one behind it
    expect(receiver.requests[1]!.headers['webhook-id']).toBe(receiver.requests[0]!.headers['webhook-id']);
    expect(receiver.requests[1]!.at - receiver.requests[0]!.at).toBeGreaterThanOrEqual(3000); // Retry-After held across the restart
    // Outcomes are recorded in batches after the receiver answers: wait for the last one.
    await until(async () => (await subscription(second.url)).last_delivered_lt === bodies[2]!.lt, 10_000, 'the last delivery recorded');
    expect(await subscription(second.url)).toEqual({ account_id: bob, last_delivered_lt: bodies[2]!.lt });
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests).toHaveLength(3);
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    console.log(`SIGKILL with 1 delivery in flight: ${ids.length - new Set(ids).size} repeat (same webhook-id); killed → restarted and /readyz 200 in ${healthyMs} ms`);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
