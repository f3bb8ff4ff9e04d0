// An unknown query parameter is a 400 listing the ones the route takes, never silently ignored
// (`?status=paid` on the invoice list used to answer every invoice): on every documented route of the
// real service, with the API key parameters (`token`, `api_key`) still taken where they were.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp, createInvoice, json, walletAddress } from '../support/invoices.js';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
let token: string;
beforeAll(async () => {
  svc = await startTestService();
  token = (await createApp(svc, { name: 'query names', recipient_address: await walletAddress(svc, 'merchant') })).token;
  await createInvoice(svc, token, { amount: '1000000', life_time: 600, currency: 'TON' });
});
afterAll(async () => svc?.close());

const INVOICES = '/api/v1/services/invoices';

it('refuses ?status=paid on the invoice list, naming filter_status among the parameters it takes', async () => {
  const res = await svc.api(`${INVOICES}?status=paid`, { auth: token });
  const body = await json<{ error: string; field: string }>(res, 400);
  expect(body.field).toBe('status');
  expect(body.error).toMatch(/^unknown query parameter 'status': this route takes /);
  const takes = body.error.replace(/^.*this route takes /, '').split(', ');
  expect(takes).toEqual(expect.arrayContaining(['filter_status', 'filter_status[]', 'limit', 'offset', 'api_key']));
  // the parameter it meant filters, and the key in the query still works
  const paid = await json<{ items: unknown[]; count: number }>(await svc.api(`${INVOICES}?filter_status=paid&api_key=${token}`, { auth: null }), 200);
  expect(paid.count).toBe(0);
  expect((await json<{ count: number }>(await svc.api(INVOICES, { auth: token }), 200)).count).toBe(1);
});

it('takes the key parameters where it took them before: token on keyed routes, api_key on the invoice API', async () => {
  expect((await svc.api(`/webhooks?token=${svc.adminKeySecret}`, { auth: null })).status).toBe(200);
  expect((await svc.api(`/admin/keys?limit=1&token=${svc.adminKeySecret}`, { auth: null })).status).toBe(200);
  // the invoice API never read `token`: now it says so instead of ignoring it
  const wrong = await json<{ error: string }>(await svc.api(`${INVOICES}?token=${token}`, { auth: token }), 400);
  expect(wrong.error).toMatch(/^unknown query parameter 'token': this route takes .*api_key/);
  // a route that takes nothing says so
  const none = await json<{ error: string; field: string }>(await svc.api('/healthz?verbose=1', { auth: null }), 400);
  expect(none).toEqual({ error: "unknown query parameter 'verbose': this route takes no query parameters", field: 'verbose' });
});

it('answers an unknown parameter on the SSE routes in plain text (TonAPI compatibility), listing what they take', async () => {
  const res = await fetch(`${svc.url}/v2/sse/accounts/transactions?accounts=ALL&opcodes=0x0f8a7ea5`);
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect(await res.text()).toBe("unknown query parameter 'opcodes': this route takes accounts, operations, heartbeat, last_event_id, token");
});

it('refuses an unknown parameter on every documented route', async () => {
  const doc = (await (await svc.api('/docs/json')).json()) as { paths: Record<string, Record<string, unknown>> };
  const checked: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const method of Object.keys(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      // any value fits a path parameter: the names are checked before anything else is validated
      const url = `${path.replace(/\{[^}]+\}/g, '1')}?zz_not_a_parameter=1`;
      const hasBody = ['post', 'put', 'patch'].includes(method);
      const res = await svc.api(url, { method: method.toUpperCase(), ...(hasBody ? { json: {} } : {}) });
      const text = await res.text();
      const label = `${method.toUpperCase()} ${path} → ${res.status} ${text.slice(0, 200)}`;
      expect(res.status, label).toBe(400);
      if (path.startsWith('/v2/sse/')) expect(text, label).toMatch(/^unknown query parameter 'zz_not_a_parameter': this route takes /);
      else expect(JSON.parse(text), label).toMatchObject({ field: 'zz_not_a_parameter', error: expect.stringMatching(/^unknown query parameter 'zz_not_a_parameter': this route takes /) });
      checked.push(`${method} ${path}`);
    }
  }
  expect(checked.length).toBeGreaterThan(50);
});
