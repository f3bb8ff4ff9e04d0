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
