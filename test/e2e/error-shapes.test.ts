// The README's promise about errors, checked on the whole service: JSON `{"error", "field"?}` with the
// statuses it lists, including 415 and 426, and the one exception it names — SSE routes answer an
// error before the stream starts in plain text, as TonAPI does.
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.js';

let svc: TestService;
// one anonymous stream per client address, so that the second one meets the limit
beforeAll(async () => (svc = await startTestService({ env: { TONWATCH_STREAM_ANON_LIMIT: '1' } })));
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

/** What an EventSource client sees of a refused stream: the status, and the body as its fetch received it. */
async function refusedStream(url: string, init: { headers?: Record<string, string> } = {}): Promise<{ status: number | undefined; type: string | null; text: string }> {
  let type: string | null = null;
  let text = '';
  const es = new EventSource(url, {
    fetch: async (input, options) => {
      const res = await fetch(input, { ...options, headers: { ...options?.headers, ...init.headers } });
      type = res.headers.get('content-type');
      if (res.status !== 200) text = await res.clone().text();
      return res;
    },
  });
  try {
    const status = await new Promise<number | undefined>((resolve) => (es.onerror = (e) => resolve(e.code)));
    return { status, type, text };
  } finally {
    es.close();
  }
}

it('answers every SSE error before the stream in plain text, the message alone: a bad key, the anonymous limit, a body that is not JSON', async () => {
  const url = `${svc.url}/v2/sse/blocks`;
  const badKey = await refusedStream(`${url}?token=tw_not_a_key`);
  expect(badKey).toEqual({ status: 401, type: 'text/plain; charset=utf-8', text: 'invalid or revoked API key' });
  expect(await refusedStream(url, { headers: { authorization: 'Bearer tw_not_a_key' } })).toEqual(badKey);
  const streaming = await svc.key('webhooks');
  expect(await refusedStream(`${url}?token=${streaming}`)).toEqual({ status: 403, type: 'text/plain; charset=utf-8', text: "this API key lacks the scope 'streaming'" });

  // the one anonymous stream allowed, held open; the next anonymous one meets the limit
  const open = new EventSource(url);
  await new Promise((resolve, reject) => ((open.onopen = resolve), (open.onerror = reject)));
  try {
    const limited = await refusedStream(url);
    expect(limited.status).toBe(401);
    expect(limited.type).toBe('text/plain; charset=utf-8');
    expect(limited.text).toMatch(/^you have reached the limit of streaming connections without an API key \(1 per client address\)/);
  } finally {
    open.close();
  }

  const post = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"workchain":0}' });
  expect(post.status).toBe(415);
  expect(post.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  expect(await post.text()).toBe('the request body must be JSON: send content-type: application/json');
});
