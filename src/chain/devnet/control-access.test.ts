// Who may move devnet funds: the control API answers callers on this machine without a key, and asks
// everyone else — another host, or a web page of another site running in the developer's browser —
// for an admin key (TONWATCH_DEVNET_CONTROL=local, the default); `key` asks everyone, `open` no one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../../test/support/service.js';

const send = { from: 'alice', to: 'bob', amount: '1000000', comment: 'access' };

async function post(svc: TestService, headers: Record<string, string>, auth: string | null = null): Promise<Response> {
  return svc.api('/devnet/send', { method: 'POST', json: send, auth, headers });
}

describe('devnet control API access (TONWATCH_DEVNET_CONTROL=local)', () => {
  let svc: TestService;
  // Behind a trusted proxy the client address is X-Forwarded-For's: how another host is told apart here.
  beforeAll(async () => (svc = await startTestService({ env: { TONWATCH_TRUST_PROXY: 'true' } })));
  afterAll(async () => svc?.close());

  it('sends for a caller on this machine without a key, as the README tour does', async () => {
    const res = await post(svc, {});
    expect(res.status).toBe(200);
    expect(((await res.json()) as { message_hash: string }).message_hash).toMatch(/^[0-9a-f]{64}$/);
    // A page served by this same server (the console) sends its own origin.
    const host = new URL(svc.url).host;
    expect((await post(svc, { origin: `http://${host}` })).status).toBe(200);
  });

  it('asks another host for an admin key, and takes one', async () => {
    const res = await post(svc, { 'x-forwarded-for': '203.0.113.7' });
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: string };
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(body.error).toMatch(/missing API key: a caller on another machine \(203\.0\.113\.7\) needs one; callers on this machine need none/);
    expect((await svc.api('/devnet/wallets', { auth: null, headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(401);
    expect((await post(svc, { 'x-forwarded-for': '203.0.113.7' }, svc.adminKeySecret)).status).toBe(200);
    const streaming = await svc.key('streaming');
    expect((await post(svc, { 'x-forwarded-for': '203.0.113.7' }, streaming)).status).toBe(403);
  });

  it('asks a web page of another site for a key even though the browser runs on this machine', async () => {
    const port = new URL(svc.url).port;
    const page = await post(svc, { origin: 'https://evil.example' });
    expect(page.status).toBe(401);
    // the refusal names the Origin as the reason, not "callers on this machine need none"
    const { error } = (await page.json()) as { error: string };
    expect(error).toMatch(/^missing API key: a request from a web page \(Origin https:\/\/evil\.example\) needs one, even from this machine; send Authorization/);
    expect(error).not.toMatch(/need none/);
    // DNS rebinding: the page's own name resolves to 127.0.0.1, so Host and Origin agree but are not loopback names.
    expect((await post(svc, { origin: `http://rebound.example:${port}`, host: `rebound.example:${port}` })).status).toBe(401);
    expect((await post(svc, { origin: 'https://evil.example' }, svc.adminKeySecret)).status).toBe(200);
  });
});

describe('devnet control API access (TONWATCH_DEVNET_CONTROL=key and open)', () => {
  it('key: every caller needs an admin key; open: none does', async () => {
    const keyed = await startTestService({ env: { TONWATCH_DEVNET_CONTROL: 'key' } });
    try {
      expect((await post(keyed, {})).status).toBe(401);
      expect((await post(keyed, {}, keyed.adminKeySecret)).status).toBe(200);
    } finally {
      await keyed.close();
    }
    const open = await startTestService({ env: { TONWATCH_DEVNET_CONTROL: 'open', TONWATCH_TRUST_PROXY: 'true' } });
    try {
      expect((await post(open, { 'x-forwarded-for': '203.0.113.7', origin: 'https://evil.example' })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});
