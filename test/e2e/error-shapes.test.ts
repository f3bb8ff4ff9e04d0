// The README's promise about errors, checked on the whole service: JSON `{"error", "field"?}` with the
// statuses it lists, including 415 and 426, and the one exception it names — SSE routes answer an
// error before the stream starts in plain text, as TonAPI does.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
beforeAll(async () => (svc = await startTestService()));
afterAll(async () => svc?.close());

async function jsonError(res: Response, status: number): Promise<{ error: string; field?: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { error: string; field?: string };
  expect(typeof body.error).toBe('string');
  return body;
}

it('answers a body that is not JSON with a JSON 415', async () => {
  // What `curl -d '…'` sends when no content type is given.
  const res = await fetch(`${svc.url}/devnet/send`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'from=alice' });
  expect((await jsonError(res, 415)).error).toMatch(/content.type|media type/i);
});

it('answers a JSON body sent as text/plain, or with no content type, with the same 415 saying what to send', async () => {
  const body = JSON.stringify({ endpoint: 'https://203.0.113.9/hook' });
  const sent: Array<Record<string, string>> = [
    { 'content-type': 'text/plain' }, // what fetch and many clients send for a string body
    {}, // bytes without a content type (`curl --data-binary` with the header removed)
    { 'content-type': 'application/x-www-form-urlencoded' },
  ];
  for (const headers of sent) {
    for (const [path, bytes] of [['/webhooks', body], ['/devnet/send', JSON.stringify({ from: 'alice', to: 'bob', amount: '1000000' })]] as const) {
      const res = await svc.api(path, { method: 'POST', headers, body: new TextEncoder().encode(bytes) });
      const error = await jsonError(res, 415);
      expect(error.error, `${path} with ${JSON.stringify(headers)}`).toBe('the request body must be JSON: send content-type: application/json');
    }
  }
  // the same body as application/json is taken
  expect((await svc.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: 'bob', amount: '1000000' } })).status).toBe(200);
});

it('answers a plain GET of /v2/websocket with a JSON 426', async () => {
  const res = await fetch(`${svc.url}/v2/websocket`);
  expect((await jsonError(res, 426)).error).toMatch(/WebSocket upgrade/);
});

it('answers SSE errors before the stream in plain text (TonAPI compatibility), and every other error in JSON', async () => {
  const sse = await fetch(`${svc.url}/v2/sse/accounts/transactions?accounts=zzz`);
  expect(sse.status).toBe(400);
  expect(sse.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(await sse.text()).toMatch(/can't decode address zzz/);
  await jsonError(await fetch(`${svc.url}/no/such/route`), 404);
  await jsonError(await svc.api('/webhooks', { auth: null }), 401);
});
