import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import type { Component } from '../service/component.js';
import type { Store } from '../store/db.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';

/** Response bodies in tests are whatever the server sent. */
const body = (res: Response): Promise<any> => res.json();

const Who = Type.Object({ key_id: Type.Union([Type.String(), Type.Null()]), owner_ref: Type.Union([Type.String(), Type.Null()]) });

/** Routes declaring what they need, the way streaming, webhooks and invoices will. */
const guarded: Component = {
  name: 'guarded',
  async routes(parent) {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const who = async (request: { principal: { keyId: string; ownerRef: string | null } | null }) => ({
      key_id: request.principal?.keyId ?? null,
      owner_ref: request.principal?.ownerRef ?? null,
    });
    app.get('/t/webhooks', { config: { auth: { scope: 'webhooks' } }, schema: { response: { 200: Who } } }, who);
    app.get('/t/invoices', { config: { auth: { scope: 'invoices', queryParams: ['api_key'] } }, schema: { response: { 200: Who } } }, who);
    app.get('/t/public', { schema: { response: { 200: Who } } }, who);
    // An SSE-like stream: open until the client goes.
    app.get('/t/stream', { config: { auth: { scope: 'streaming', anonymous: true } }, schema: { querystring: Type.Object({ token: Type.Optional(Type.String()) }) } }, async (request, reply) => {
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
      reply.raw.write(`event: hello\ndata: ${JSON.stringify({ key_id: request.principal?.keyId ?? null })}\n\n`);
    });
    app.get('/t/ws', { websocket: true, config: { auth: { scope: 'streaming', anonymous: true } } }, (socket, request) => {
      socket.send(JSON.stringify({ key_id: request.principal?.keyId ?? null }));
    });
  },
};

describe.each(dialects)('auth on %s', (dialect) => {
  let store: Store;
  let t: TestApp;

  beforeAll(async () => {
    store = await openTestStore(dialect);
    t = await startTestApp({ store, components: [guarded], config: { streamAnonLimit: 2 } });
  });
  afterAll(async () => {
    await t?.close();
    if (store) await dropTestStore(store);
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${t.url}${path}`, { headers });

  async function expectError(res: Response, status: number, text: RegExp): Promise<void> {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const answer = await body(res);
    expect(answer.error).toMatch(text);
  }

  it('missing key → 401 JSON; wrong key → 401 JSON', async () => {
    await expectError(await get('/t/webhooks'), 401, /missing API key/);
    await expectError(await get('/t/webhooks', { authorization: 'Bearer tw_not-a-real-key' }), 401, /invalid or revoked/);
    await expectError(await get('/t/webhooks?token=tw_nope'), 401, /invalid or revoked/);
    // Public routes need nothing.
    expect(await body(await get('/t/public'))).toEqual({ key_id: null, owner_ref: null });
  });

  it('a key without the scope → 403 JSON; admin holds every scope', async () => {
    const streaming = await t.key('streaming');
    await expectError(await get('/t/webhooks', { authorization: `Bearer ${streaming}` }), 403, /lacks the scope 'webhooks'/);
    expect((await get('/t/webhooks', { authorization: `Bearer ${t.adminKey}` })).status).toBe(200);
    await expectError(await get('/admin/keys', { authorization: `Bearer ${streaming}` }), 403, /admin/);
  });

  it('accepts the bearer scheme in any case, and ?token=', async () => {
    const key = await t.key('webhooks');
    const id = (await t.keys.verify(key))!.keyId;
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
      const res = await get('/t/webhooks', { authorization: `${scheme} ${key}` });
      expect(res.status, scheme).toBe(200);
      expect((await body(res)).key_id).toBe(id);
    }
    expect((await body(await get(`/t/webhooks?token=${encodeURIComponent(key)}`))).key_id).toBe(id);
    // The header comes first: a wrong header key is not rescued by a right query key.
    await expectError(await get(`/t/webhooks?token=${key}`, { authorization: 'Bearer tw_wrong' }), 401, /invalid/);
    // Another scheme is no key at all, so the query parameter is used.
    expect((await get(`/t/webhooks?token=${key}`, { authorization: 'Basic dXNlcjpwdw==' })).status).toBe(200);
  });

  it('invoice-style routes take ?api_key= (and not ?token=)', async () => {
    const created = await t.keys.createKey({ name: 'app token', scopes: ['invoices'], ownerRef: 'app:42' });
    expect(await body(await get(`/t/invoices?api_key=${created.key}`))).toEqual({ key_id: created.id, owner_ref: 'app:42' });
    await expectError(await get(`/t/invoices?token=${created.key}`), 401, /\?api_key=<key>/);
  });

  it('a revoked key → 401 at once', async () => {
    const key = await t.key('webhooks');
    expect((await get('/t/webhooks', { authorization: `Bearer ${key}` })).status).toBe(200);
    const id = (await t.keys.verify(key))!.keyId;
    const res = await fetch(`${t.url}/admin/keys/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${t.adminKey}` } });
    expect(res.status).toBe(200);
    expect((await body(res)).revoked_at).toMatch(/^\d{4}-/);
    await expectError(await get('/t/webhooks', { authorization: `Bearer ${key}` }), 401, /invalid or revoked/);
  });

  it('keeps keys in query strings out of the logs', async () => {
    const key = await t.key('webhooks');
    await (await get(`/t/webhooks?token=${key}`)).arrayBuffer();
    await (await get(`/t/invoices?api_key=${key}`)).arrayBuffer();
    const logged = JSON.stringify(t.logs);
    expect(logged).toContain('/t/webhooks?token=***');
    expect(logged).not.toContain(key);
  });

  it('admin API: create (key shown once), list, show, revoke; bad input → 400 naming the field', async () => {
    const auth = { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${t.url}/admin/keys`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'shop', scopes: ['invoices', 'webhooks'], owner_ref: 'app:9' }),
    });
    expect(created.status).toBe(201);
    const made = await body(created);
    expect(made).toMatchObject({ name: 'shop', scopes: ['webhooks', 'invoices'], owner_ref: 'app:9', origin: 'api', revoked_at: null });
    expect(made.key).toMatch(/^tw_/);
    expect((await get('/t/webhooks', { authorization: `Bearer ${made.key}` })).status).toBe(200);

    const list = await body(await get('/admin/keys?owner_ref=app:9', auth));
    expect(list.keys.map((k: { id: string }) => k.id)).toEqual([made.id]);
    expect(JSON.stringify(list)).not.toContain(made.key);
    const one = await body(await get(`/admin/keys/${made.id}`, auth));
    expect(one).toMatchObject({ id: made.id, hint: made.key.slice(0, 7) });
    expect(one.key).toBeUndefined();

    const bad = async (payload: unknown, field: string) => {
      const res = await fetch(`${t.url}/admin/keys`, { method: 'POST', headers: auth, body: JSON.stringify(payload) });
      expect(res.status).toBe(400);
      expect((await body(res)).field).toBe(field);
    };
    await bad({ scopes: ['webhooks'] }, 'name');
    await bad({ name: 'x', scopes: [] }, 'scopes');
    await bad({ name: 'x', scopes: ['root'] }, 'scopes.0');
    await bad({ name: '   ', scopes: ['webhooks'] }, 'name');

    await expectError(await fetch(`${t.url}/admin/keys/key_missing`, { method: 'DELETE', headers: { authorization: auth.authorization } }), 404, /no API key/);
  });

  it('anonymous streaming is allowed up to the per-address limit; a key is not limited', async () => {
    const open: http.ClientRequest[] = [];
    const openStream = (path: string) =>
      new Promise<{ status: number; first: string; req: http.ClientRequest }>((resolve, reject) => {
        const req = http.get(`${t.url}${path}`, (res) => {
          res.once('data', (c) => resolve({ status: res.statusCode!, first: String(c), req }));
        });
        req.on('error', reject);
        open.push(req);
      });
    try {
      const a = await openStream('/t/stream');
      const b = await openStream('/t/stream');
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(a.first).toContain('"key_id":null');
      expect(t.app.anonymousStreams.inUse('127.0.0.1')).toBe(2);

      const third = await get('/t/stream');
      await expectError(third, 401, /limit of streaming/);

      const key = await t.key('streaming');
      const keyed = await openStream(`/t/stream?token=${key}`);
      expect(keyed.status).toBe(200);
      expect(keyed.first).not.toContain('"key_id":null');

      a.req.destroy();
      await waitFor(() => t.app.anonymousStreams.inUse('127.0.0.1') === 1);
      const again = await openStream('/t/stream');
      expect(again.status).toBe(200);
    } finally {
      for (const r of open) r.destroy();
    }
    await waitFor(() => t.app.anonymousStreams.inUse('127.0.0.1') === 0);
  });

  it('the same limit and keys apply to WebSocket upgrades', async () => {
    const connect = (path: string, headers: Record<string, string> = {}) =>
      new Promise<{ ws: WebSocket; first: string } | { status: number; body: string }>((resolve, reject) => {
        const ws = new WebSocket(`${t.url.replace('http', 'ws')}${path}`, { headers });
        ws.once('message', (m) => resolve({ ws, first: String(m) }));
        ws.once('unexpected-response', (_req, res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        ws.once('error', reject);
      });
    const sockets: WebSocket[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const r = await connect('/t/ws');
        if (!('ws' in r)) throw new Error(`upgrade refused: ${r.status}`);
        sockets.push(r.ws);
      }
      const refused = await connect('/t/ws');
      expect(refused).toMatchObject({ status: 401 });
      expect(JSON.parse((refused as { body: string }).body).error).toMatch(/limit of streaming/);

      const wrong = await connect('/t/ws', { authorization: 'bearer tw_wrong' });
      expect(wrong).toMatchObject({ status: 401 });

      const key = await t.key('streaming');
      const keyed = await connect('/t/ws', { authorization: `bearer ${key}` });
      expect('ws' in keyed && JSON.parse(keyed.first).key_id).toMatch(/^key_/);
      if ('ws' in keyed) sockets.push(keyed.ws);

      sockets[0]!.close();
      await waitFor(() => t.app.anonymousStreams.inUse('127.0.0.1') === 1);
      const again = await connect('/t/ws');
      expect('ws' in again).toBe(true);
      if ('ws' in again) sockets.push(again.ws);
    } finally {
      for (const s of sockets) s.terminate();
    }
    await waitFor(() => t.app.anonymousStreams.inUse('127.0.0.1') === 0);
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
