// Schema-driven fuzzing of a real started service (issue 25): every operation of /docs/json gets
// generated requests (valid, one parameter made wrong, hostile text, wrong bodies, other keys), then
// malformed WebSocket JSON-RPC frames and SSE query strings. Each answer: no 5xx the docs do not list,
// no hang, every error a JSON `{error}`, a 400 naming the parameter that was made wrong; /healthz and
// /readyz ok afterwards. Seeded and bounded here; `npm run fuzz` sends 20,000 (FUZZ_REQUESTS, FUZZ_SEED).
import net from 'node:net';
import fc from 'fast-check';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationsOf, requestFor, type FuzzRequest, type Operation } from '../support/schema-arbitrary.js';
import { startTestService, type TestService } from '../support/service.js';

const TOTAL = Number(process.env.FUZZ_REQUESTS ?? 1600);
const SEED = Number(process.env.FUZZ_SEED ?? 20251125);
const HTTP_RUNS = Math.round(TOTAL * 0.8);
const SSE_RUNS = Math.round(TOTAL * 0.1);
const WS_FRAMES = Math.round(TOTAL * 0.1);
/** Longest any single request may take before it counts as a hang. */
const PER_REQUEST_MS = 10_000;
const BODY_TIMEOUT_MS = 1000;
/** Generous on a busy machine: ~25 ms per request on an idle one. */
const testTimeout = (runs: number) => 60_000 + runs * 100;

interface Answer {
  status: number;
  contentType: string;
  json?: { error?: unknown; field?: unknown };
}

const statuses = new Map<number, number>();
let namedFields = 0;

let svc: TestService;
let ops: Operation[];
let addresses: string[];

async function send(method: string, url: string, init: { auth?: FuzzRequest['auth']; body?: string; contentType?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.auth === 'admin') headers.authorization = `Bearer ${svc.adminKeySecret}`;
  if (init.auth === 'bogus') headers.authorization = 'Bearer tw_fuzz_not_a_key_0000000000';
  if (init.contentType) headers['content-type'] = init.contentType;
  const res = await fetch(svc.url + url, { method, headers, body: init.body, redirect: 'manual', signal: AbortSignal.timeout(PER_REQUEST_MS) });
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  const contentType = res.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, contentType };
  }
  const text = await res.text();
  let json: Answer['json'];
  try {
    json = contentType.includes('json') ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType, json };
}

/** The content types the docs give an answer with this status; the app's JSON error shape when they say nothing. */
function promised(op: Operation | undefined, status: number): string[] {
  const types = op?.responses[String(status)] ?? [];
  return types.length > 0 ? types : ['application/json'];
}

/** What every answer must be: no undocumented 5xx, every error in the documented type, JSON ones with an error text. */
function expectSane(answer: Answer, op: Operation | undefined, label: string): void {
  if (answer.status >= 500) expect(Object.keys(op?.responses ?? {}), `${label} → ${answer.status}`).toContain(String(answer.status));
  if (answer.status < 400) return;
  const types = promised(op, answer.status);
  expect(types.some((t) => answer.contentType.startsWith(t)), `${label} → ${answer.status} as ${answer.contentType}, documented ${types.join(', ')}`).toBe(true);
  if (answer.contentType.startsWith('application/json')) {
    expect(typeof answer.json?.error, `${label} → ${answer.status} without an error text`).toBe('string');
  }
}

beforeAll(async () => {
  svc = await startTestService({ env: { TONWATCH_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) } });
  ops = operationsOf((await (await svc.api('/docs/json')).json()) as Parameters<typeof operationsOf>[0]);
  addresses = ((await (await svc.api('/devnet/wallets')).json()) as Array<{ address: string }>).map((w) => w.address);
  // Something for the ids 1..3 the generator prefers to find: a webhook and an invoice application.
  await svc.api('/webhooks', { method: 'POST', json: { endpoint: 'http://127.0.0.1:9/fuzz' } });
  await svc.api('/api/v1/services/invoices/app', { method: 'POST', json: { name: 'fuzz' } });
});

afterAll(async () => {
  await svc?.close();
});

describe(`schema-driven fuzzing (seed ${SEED})`, () => {
  it('walks every documented operation', () => {
    expect(ops.length).toBeGreaterThan(50);
    const routes = new Set(ops.map((o) => `${o.method} ${o.path}`));
    for (const r of ['GET /webhooks/{webhook_id}/logs', 'GET /account/{address}/audit', 'GET /api/v1/services/invoices/{id}/qr', 'POST /devnet/send']) expect(routes).toContain(r);
  });

  it('malformed WebSocket JSON-RPC frames get an error reply or a close with 1003/1007, never a hang', async () => {
    const url = `${svc.url.replace('http', 'ws')}/v2/websocket?token=${svc.adminKeySecret}`;
    let ws: WebSocket | null = null;
    const inbox: Array<{ text?: string; close?: number }> = [];
    const open = async () => {
      const socket = new WebSocket(url);
      socket.on('message', (data) => inbox.push({ text: String(data) }));
      socket.on('close', (code) => inbox.push({ close: code }));
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      return socket;
    };
    const next = async (): Promise<{ text?: string; close?: number }> => {
      const until = Date.now() + PER_REQUEST_MS;
      while (Date.now() < until) {
        const i = inbox.findIndex((m) => m.close !== undefined || (m.text !== undefined && JSON.parse(m.text).result !== undefined));
        if (i >= 0) return inbox.splice(0, i + 1).at(-1)!;
        await new Promise((r) => setTimeout(r, 2));
      }
      throw new Error('no reply and no close: the connection hangs');
    };
    const methods = ['subscribe_account', 'unsubscribe_account', 'subscribe_trace', 'unsubscribe_trace', 'subscribe_mempool', 'unsubscribe_mempool', 'subscribe_block', 'unsubscribe_block'];
    const item = fc.oneof(
      fc.constantFrom(...addresses),
      fc.constantFrom('workchain=-1', 'workchain=0', 'workchain=abc', 'workchain=1e400', 'last_event_id=0', 'last_event_id=Infinity', 'last_event_id=99999999999999999999999', 'operations=JettonTransfer', 'operations=', 'accounts='),
      fc.string({ maxLength: 40, unit: 'binary' }),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const rpc = fc
      .record(
        {
          id: fc.oneof(fc.nat(), fc.integer(), fc.double(), fc.string({ maxLength: 5 }), fc.constant(null)),
          jsonrpc: fc.constantFrom('2.0', '1.0', 2),
          method: fc.oneof(fc.constantFrom(...methods), fc.string({ maxLength: 20 }), fc.integer()),
          params: fc.oneof(fc.array(item, { maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
        },
        { requiredKeys: [] },
      )
      .map((r) => JSON.stringify(r));
    const frame = fc.oneof(
      { weight: 6, arbitrary: rpc.map((text) => ({ text })) },
      { weight: 1, arbitrary: fc.constantFrom('{"id":1e400,"method":"subscribe_block"}', '{"id":18446744073709551616,"method":"subscribe_block"}', '{"id":-0,"method":"unsubscribe_block"}', `{"id":1,"method":"subscribe_account","params":["${'x'.repeat(100_000)}"]}`).map((text) => ({ text })) },
      { weight: 2, arbitrary: fc.oneof(fc.string({ maxLength: 100, unit: 'binary' }), fc.json(), fc.constantFrom('', '{', '[]', 'null', '{"id":1,"method":')).map((text) => ({ text })) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((binary) => ({ binary })) },
    );
    await fc.assert(
      fc.asyncProperty(frame, async (f) => {
        if (!ws || ws.readyState !== WebSocket.OPEN) {
          inbox.length = 0;
          ws = await open();
        }
        let expected: 'reply' | number;
        if ('binary' in f) {
          ws.send(f.binary, { binary: true });
          expected = 1003;
        } else {
          ws.send(f.text);
          let parsed: unknown;
          try {
            parsed = JSON.parse(f.text);
          } catch {
            parsed = undefined;
          }
          expected = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? 'reply' : 1007;
        }
        const got = await next();
        if (expected === 'reply') {
          expect(got.close, `frame ${JSON.stringify(f).slice(0, 200)} closed the socket`).toBeUndefined();
          expect(typeof JSON.parse(got.text!).result).toBe('string');
        } else {
          expect(got.close).toBe(expected);
        }
      }),
      { seed: SEED, numRuns: WS_FRAMES },
    );
    (ws as WebSocket | null)?.close();
  }, testTimeout(WS_FRAMES));

  it('SSE query strings answer a stream or a JSON error, never a 5xx or a hang', async () => {
    const key = fc.constantFrom('accounts', 'accounts', 'operations', 'heartbeat', 'last_event_id', 'workchain', 'token', 'accounts[]', 'ACCOUNTS', '', '%zz');
    const value = fc.oneof(
      fc.subarray(addresses, { minLength: 1 }).map((a) => a.join(',')),
      fc.constantFrom('data', '-1', '0', 'Infinity', '1e400', '99999999999999999999', '%', '%zz', '%E0%A4%A', ',,,', 'JettonTransfer', 'a=b=c', '%00'),
      fc.constant(Array.from({ length: 1001 }, (_, i) => `0:${i.toString(16).padStart(64, '0')}`).join(',')),
      fc.string({ maxLength: 40, unit: 'binary' }).map(encodeURIComponent),
    );
    const query = fc.array(fc.tuple(key, value), { maxLength: 5 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
    const path = fc.constantFrom('/v2/sse/accounts/transactions', '/v2/sse/accounts/traces', '/v2/sse/mempool', '/v2/sse/blocks');
    const auth = fc.constantFrom('admin', 'admin', 'admin', 'none') as fc.Arbitrary<FuzzRequest['auth']>;
    await fc.assert(
      fc.asyncProperty(path, query, auth, async (p, q, a) => {
        const answer = await send('GET', `${p}?${q}`, { auth: a });
        expectSane(answer, ops.find((o) => o.method === 'GET' && o.path === p), `GET ${p}?${q.slice(0, 200)}`);
        if (answer.status === 200) expect(answer.contentType).toMatch(/^text\/event-stream/);
      }),
      { seed: SEED, numRuns: SSE_RUNS },
    );
  }, testTimeout(SSE_RUNS));

  it(`${HTTP_RUNS} generated requests over every route: no 5xx, no hang, a JSON error naming the field`, async () => {
    const request = fc.oneof(...ops.map((op) => requestFor(op))).map((r) => Object.assign(r, { [fc.toStringMethod]: () => r.label }));
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const answer = await send(r.method, r.url, { auth: r.auth, body: r.body, contentType: r.contentType });
        expectSane(answer, r.op, r.label);
        // Where the docs give a 400 in the JSON error shape, it names the field.
        if (r.mutation && promised(r.op, 400).includes('application/json')) {
          expect(answer.status, `${r.label} → ${JSON.stringify(answer.json)}`).toBe(400);
          expect(answer.json?.field, `${r.label} → ${JSON.stringify(answer.json)}`).toBe(r.mutation.field);
          namedFields++;
        }
      }),
      { seed: SEED, numRuns: HTTP_RUNS },
    );
  }, testTimeout(HTTP_RUNS));

  it('a partial body to /devnet/send is closed after the body timeout', async () => {
    const port = Number(new URL(svc.url).port);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () =>
        socket.write(`POST /devnet/send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${svc.adminKeySecret}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"to":`),
      );
      let text = '';
      socket.setEncoding('utf8').on('data', (d) => (text += d)).on('error', () => {}).on('close', () => resolve(text));
      setTimeout(() => reject(new Error('still open after 15 s')), 15_000).unref();
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('is healthy afterwards', async () => {
    expect((await svc.api('/healthz')).status).toBe(200);
    const ready = await svc.api('/readyz');
    expect(ready.status, await ready.clone().text()).toBe(200);
    console.log(
      `fuzz: seed ${SEED}, ${HTTP_RUNS} route requests, ${SSE_RUNS} SSE query strings, ${WS_FRAMES} WebSocket frames; ` +
        `${namedFields} one-field mutations answered 400 naming the field; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`,
    );
  });
});
