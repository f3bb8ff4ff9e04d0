// Registering a webhook whose host name does not resolve now is accepted — every delivery's connection
// checks its own DNS answer — while literal special-range addresses and names that resolve to one are
// still refused at once. On the real service with the system resolver: `.invalid` never resolves
// (RFC 6761), `localhost` resolves to loopback.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test/support/service.js';
import { until } from '../../test/support/webhooks.js';

let svc: TestService;
let key: string;
// loopback refused, as on a real network (the devnet allows it by default for local receivers)
beforeAll(async () => {
  svc = await startTestService({ env: { TONWATCH_WEBHOOK_ALLOW_LOOPBACK: 'false' } });
  key = await svc.key('webhooks');
});
afterAll(async () => svc?.close());

const create = async (endpoint: string) => {
  const res = await svc.api('/webhooks', { method: 'POST', json: { endpoint }, auth: key });
  return { status: res.status, body: (await res.json()) as { webhook_id?: number; error?: string; field?: string } };
};

it('accepts a host name that does not resolve now, and its deliveries fail at connect, not at registration', async () => {
  const made = await create('https://hooks.tonwatch-test.invalid/ton');
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  const id = made.body.webhook_id!;
  const bob = ((await (await svc.api('/devnet/wallets')).json()) as Array<{ name: string; address: string }>).find((w) => w.name === 'bob')!.address;
  const sub = await svc.api(`/webhooks/${id}/account-tx/subscribe`, { method: 'POST', json: { accounts: [{ account_id: bob }] }, auth: key });
  expect(sub.status).toBe(200);
  expect((await svc.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: 'bob', amount: '1000000' } })).status).toBe(200);
  await svc.settle();
  // the connection's own lookup finds nothing: a failed attempt in the logs, retried on schedule
  let logs: Array<{ error?: string }> = [];
  await until(async () => {
    logs = ((await (await svc.api(`/webhooks/${id}/logs`, { auth: key })).json()) as { logs: typeof logs }).logs;
    return logs.length > 0;
  }, 20_000, 'a failed delivery attempt');
  expect(logs[0]!.error).toMatch(/ENOTFOUND|EAI_AGAIN/);
});

it('still refuses at once loopback and special-range addresses, literal or by a name that resolves to one', async () => {
  for (const [endpoint, reason] of [
    ['http://localhost:9000/hook', /localhost resolves to (127\.0\.0\.1|::1) is a loopback address/],
    ['http://127.0.0.1:9000/hook', /127\.0\.0\.1 is a loopback address/],
    ['http://169.254.169.254/latest/meta-data', /cloud metadata address/],
    ['http://10.1.2.3/hook', /private network address/],
  ] as const) {
    const refused = await create(endpoint);
    expect({ endpoint, status: refused.status, field: refused.body.field }).toEqual({ endpoint, status: 400, field: 'endpoint' });
    expect(refused.body.error).toMatch(reason);
  }
});
