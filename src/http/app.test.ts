import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { dropTestStore, openTestStore } from '../../test/support/stores.js';
import type { Component } from '../service/component.js';
import type { Store } from '../store/db.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';

let healthy = true;

/** A component like the real ones: TypeBox schemas on every route, registered through buildApp. */
const sample: Component = {
  name: 'sample',
  async routes(parent) {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    app.post(
      '/sample/echo',
      {
        schema: {
          summary: 'Echo',
          body: Type.Object({ text: Type.String() }),
          response: { 200: Type.Object({ text: Type.String() }) },
        },
      },
      async (request) => ({ text: request.body.text }),
    );
    app.get(
      '/sample/items/:id',
      {
        schema: {
          params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
          querystring: Type.Object({ verbose: Type.Optional(Type.Boolean()) }),
          response: { 200: Type.Object({ id: Type.Integer(), verbose: Type.Boolean() }) },
        },
      },
      async (request) => ({ id: request.params.id, verbose: request.query.verbose ?? false }),
    );
    app.get(
      '/sample/accounts',
      {
        schema: {
          querystring: Type.Object({ accounts: Type.String() }),
          response: { 200: Type.Object({ count: Type.Integer() }) },
        },
      },
      async (request) => ({ count: request.query.accounts.split(',').length }),
    );
    app.get('/sample/boom', { schema: { response: { 200: Type.Object({}) } } }, async () => {
      throw new Error('kaboom: internal detail');
    });
  },
  async health() {
    return { ok: healthy, head_seqno: 2n ** 60n, lag_blocks: 3n };
  },
};

let store: Store;
let t: TestApp;

beforeAll(async () => {
  store = await openTestStore('sqlite');
  t = await startTestApp({
    store,
    components: [sample],
    config: { bodyLimitBytes: 4096 },
    health: {
      store: async () => ({ ok: true, dialect: store.dialect }),
      slow: () => new Promise(() => {}),
    },
    healthTimeoutMs: 200,
  });
});

afterAll(async () => {
  await t?.close();
  if (store) await dropTestStore(store);
});

async function json(res: Response): Promise<any> {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return res.json();
}

/** Raw request, for what fetch will not send (chunked bodies without a length). */
function rawPost(path: string, chunks: Buffer[]): Promise<{ status: number; body: string; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, type: res.headers['content-type'] }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('errors', () => {
  it('unknown route → 404 JSON without echoing the query', async () => {
    const res = await fetch(`${t.url}/nope/here?token=secret-value`);
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: 'no route GET /nope/here' });
  });

  it('oversized body → 413 JSON, with a declared length and when chunked', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(5000) });
    const res = await fetch(`${t.url}/sample/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
    expect(await json(res)).toEqual({ error: 'request body is too large' });

    const chunked = await rawPost('/sample/echo', [Buffer.from('{"text":"'), Buffer.alloc(5000, 'y'), Buffer.from('"}')]);
    expect(chunked.status).toBe(413);
    expect(chunked.type).toMatch(/^application\/json/);
    expect(JSON.parse(chunked.body)).toEqual({ error: 'request body is too large' });

    const small = await rawPost('/sample/echo', [Buffer.from('{"text":"fits"}')]);
    expect(small.status).toBe(200);
    expect(JSON.parse(small.body)).toEqual({ text: 'fits' });
  });

  it('invalid input → 400 JSON naming the field', async () => {
    const missing = await fetch(`${t.url}/sample/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(missing.status).toBe(400);
    expect(await json(missing)).toMatchObject({ field: 'text', error: expect.stringContaining('text') });

    const param = await fetch(`${t.url}/sample/items/abc`);
    expect(param.status).toBe(400);
    expect(await json(param)).toMatchObject({ field: 'id' });

    const broken = await fetch(`${t.url}/sample/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":' });
    expect(broken.status).toBe(400);
    expect((await json(broken)).error).toMatch(/JSON/);
  });

  it('a failing handler → 500 JSON with the request id, logged with that id, details kept out of the answer', async () => {
    const res = await fetch(`${t.url}/sample/boom`);
    expect(res.status).toBe(500);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f]{16}$/);
    expect(await json(res)).toEqual({ error: 'internal server error', request_id: requestId });
    const logged = t.logs.find((l) => l.level === 50 && l.reqId === requestId);
    expect((logged?.err as { message?: string })?.message).toBe('kaboom: internal detail');
  });
});

describe('limits', () => {
  it('accepts a GET URL with 1000 raw addresses (far beyond Node’s 16 KiB header default)', async () => {
    const accounts = Array.from({ length: 1000 }, (_, i) => `0:${i.toString(16).padStart(64, '0')}`).join(',');
    expect(accounts.length).toBeGreaterThan(60_000);
    const res = await fetch(`${t.url}/sample/accounts?accounts=${accounts}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ count: 1000 });
  });
});

describe('docs', () => {
  it('/docs/json lists every registered route with its schemas', async () => {
    const doc = await json(await fetch(`${t.url}/docs/json`));
    expect(doc.openapi).toMatch(/^3\./);
    const visible = t.app.registeredRoutes.filter((r) => !r.hidden && r.method !== 'HEAD' && r.method !== 'OPTIONS');
    expect(visible.length).toBeGreaterThanOrEqual(11);
    for (const r of visible) {
      const path = r.url.replace(/:(\w+)/g, '{$1}');
      expect(doc.paths[path]?.[r.method.toLowerCase()], `${r.method} ${r.url}`).toBeDefined();
    }
    const item = doc.paths['/sample/items/{id}'].get;
    expect(item.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual(['path:id', 'query:verbose']);
    expect(item.responses['200'].content['application/json'].schema.properties.id.type).toBe('integer');
    expect(doc.paths['/sample/echo'].post.requestBody.content['application/json'].schema.required).toEqual(['text']);
    // Authenticated routes carry their security requirement and the schemes are declared.
    expect(doc.paths['/admin/keys'].post.security).toEqual([{ bearerAuth: [] }, { query_token: [] }]);
    expect(doc.paths['/admin/keys'].post.responses['401']).toBeDefined();
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.query_token).toMatchObject({ type: 'apiKey', in: 'query', name: 'token' });
  });

  it('/docs is a browsable page whose assets are served locally', async () => {
    const page = await fetch(`${t.url}/docs/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src).not.toMatch(/^(https?:)?\/\//);
      const asset = await fetch(new URL(src, `${t.url}/docs/`));
      expect(asset.status, src).toBe(200);
      await asset.arrayBuffer();
    }
  });
});

describe('health', () => {
  it('/healthz answers while the process is up', async () => {
    const res = await fetch(`${t.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ ok: true });
  });

  it('/readyz is 503 when a provider fails or does not answer, with every check’s facts', async () => {
    healthy = false;
    const res = await fetch(`${t.url}/readyz`);
    expect(res.status).toBe(503);
    const body = await json(res);
    expect(body.ok).toBe(false);
    expect(body.checks.store).toEqual({ ok: true, dialect: 'sqlite' });
    expect(body.checks.sample).toEqual({ ok: false, head_seqno: '1152921504606846976', lag_blocks: 3 });
    expect(body.checks.slow).toEqual({ ok: false, error: 'no answer within 200 ms' });
  });
});

describe('metrics', () => {
  it('/metrics counts requests by method, route template and status, plus process metrics', async () => {
    const scrape = async () => {
      const res = await fetch(`${t.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await res.text();
      const value = (metric: string, labels: string) =>
        Number(new RegExp(`^${metric}\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      return {
        text,
        ok: value('tonwatch_http_requests_total', 'method="GET",route="/sample/items/:id",status="200"'),
        bad: value('tonwatch_http_requests_total', 'method="GET",route="/sample/items/:id",status="400"'),
        unmatched: value('tonwatch_http_requests_total', 'method="GET",route="unmatched",status="404"'),
        timed: value('tonwatch_http_request_duration_seconds_count', 'method="GET",route="/sample/items/:id"'),
      };
    };
    const before = await scrape();
    for (const id of [1, 2, 3]) await (await fetch(`${t.url}/sample/items/${id}`)).arrayBuffer();
    await (await fetch(`${t.url}/sample/items/0`)).arrayBuffer();
    await (await fetch(`${t.url}/no/such/route`)).arrayBuffer();
    const after = await scrape();
    expect(after.ok - before.ok).toBe(3);
    expect(after.bad - before.bad).toBe(1);
    expect(after.unmatched - before.unmatched).toBe(1);
    expect(after.timed - before.timed).toBe(4);
    expect(after.text).toContain('process_cpu_user_seconds_total');
  });
});

describe('CORS', () => {
  const preflight = (url: string, origin: string) =>
    fetch(`${url}/sample/echo`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });

  it('allows any origin by default, without credentials', async () => {
    const res = await preflight(t.url, 'https://wallet.example.org');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const allowed = res.headers.get('access-control-allow-headers')?.toLowerCase() ?? '';
    // Invoice creation from a browser sends Idempotency-Key and reads Location.
    for (const h of ['authorization', 'content-type', 'last-event-id', 'idempotency-key']) expect(allowed).toContain(h);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    const simple = await fetch(`${t.url}/healthz`, { headers: { origin: 'https://wallet.example.org' } });
    expect(simple.headers.get('access-control-allow-origin')).toBe('*');
    expect(simple.headers.get('access-control-expose-headers')?.toLowerCase()).toContain('location');
  });

  it('with a list, answers only the listed origins; with none, sends no CORS headers', async () => {
    const listed = await startTestApp({ store, components: [sample], config: { corsOrigins: ['https://app.example.com'] } });
    const none = await startTestApp({ store, components: [sample], config: { corsOrigins: [] } });
    try {
      const ok = await preflight(listed.url, 'https://app.example.com');
      expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      const other = await preflight(listed.url, 'https://evil.example.net');
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const off = await fetch(`${none.url}/healthz`, { headers: { origin: 'https://app.example.com' } });
      expect(off.status).toBe(200);
      expect(off.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await listed.close();
      await none.close();
    }
  });
});
