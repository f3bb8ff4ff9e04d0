// Slow and unfinished requests (issue 25): a body that stops arriving, a body that trickles past the
// request timeout and headers that never end are each closed with 408 within the configured time, on
// authenticated routes too; and one client address cannot hold more requests in progress than its cap.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { dropTestStore, openTestStore } from '../../test/support/stores.js';
import type { Component } from '../service/component.js';
import type { Store } from '../store/db.js';
import { startTestApp, type TestApp } from '../../test/support/app.js';

let gate: Promise<void> = Promise.resolve();
const echo: Component = {
  name: 'echo',
  async routes(parent) {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();
    const schema = { body: Type.Object({ text: Type.String() }), response: { 200: Type.Object({ text: Type.String() }) } };
    app.post('/t/open', { schema }, async (request) => ({ text: request.body.text }));
    app.post('/t/keyed', { schema, config: { auth: { scope: 'webhooks' } } }, async (request) => ({ text: request.body.text }));
    // Answers when the test opens the gate: a request in progress for as long as the test wants.
    app.get('/t/held', { config: { auth: { scope: 'webhooks' } }, schema: { response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => {
      await gate;
      return { ok: true };
    });
  },
};

interface Closed {
  /** Everything the server wrote before closing. */
  answer: string;
  ms: number;
}

/** Sends `head` and then `parts` (one every `everyMs`), and resolves when the server closes the connection. */
function rawRequest(port: number, head: string, parts: string[] = [], everyMs = 100): Promise<Closed> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (d) => (answer += d));
    socket.on('error', () => {}); // a reset after the 408 is a close too
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, ms: Date.now() - started });
    });
    socket.on('connect', () => {
      socket.write(head);
      const queue = [...parts];
      timer = setInterval(() => {
        const next = queue.shift();
        if (next !== undefined && socket.writable) socket.write(next);
      }, everyMs);
    });
    setTimeout(() => reject(new Error(`still open after 20 s; got ${JSON.stringify(answer)}`)), 20_000).unref();
  });
}

const post = (path: string, length: number, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

describe('slow requests', () => {
  let store: Store;
  let t: TestApp;
  let port: number;
  const BODY_MS = 400;
  const REQUEST_MS = 1500;
  const HEADERS_MS = 1000;

  beforeAll(async () => {
    store = await openTestStore('sqlite');
    t = await startTestApp({
      store,
      components: [echo],
      config: { bodyTimeoutMs: BODY_MS, requestTimeoutMs: REQUEST_MS, headersTimeoutMs: HEADERS_MS, clientConnectionLimit: 3 },
    });
    port = Number(new URL(t.url).port);
  });
  afterAll(async () => {
    await t?.close();
    if (store) await dropTestStore(store);
  });

  it('a partial body that stops arriving is closed with 408 after the body timeout', async () => {
    const closed = await rawRequest(port, post('/t/open', 100) + '{"text":"ab');
    expect(closed.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closed.answer).toContain('"error_code":"body_timeout"');
    expect(closed.ms).toBeGreaterThanOrEqual(BODY_MS - 50);
    expect(closed.ms).toBeLessThan(BODY_MS + 5000);
  });

  it('the same on an authenticated route', async () => {
    const key = await t.key('webhooks');
    const closed = await rawRequest(port, post('/t/keyed', 100, `Authorization: Bearer ${key}\r\n`) + '{"te');
    expect(closed.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closed.ms).toBeLessThan(BODY_MS + 5000);
  });

  it('a body that trickles in is closed with 408 after the request timeout', async () => {
    const trickle = Array.from({ length: 200 }, () => ' ');
    const closed = await rawRequest(port, post('/t/open', 1000) + '{"text":', trickle, 100);
    expect(closed.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closed.ms).toBeGreaterThanOrEqual(REQUEST_MS - 50);
    expect(closed.ms).toBeLessThan(REQUEST_MS + 5000);
  });

  it('headers that never end are closed with 408 after the headers timeout', async () => {
    const closed = await rawRequest(port, 'POST /t/open HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expect(closed.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closed.ms).toBeLessThan(HEADERS_MS + 5000);
  });

  it('a complete body in parts is answered', async () => {
    const body = JSON.stringify({ text: 'in parts' });
    const closed = rawRequest(port, post('/t/open', body.length, 'Connection: close\r\n'), [body.slice(0, 5), body.slice(5)], 100);
    const { answer } = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('"text":"in parts"');
  });

  it('one client address holds at most clientConnectionLimit requests, with an API key too', async () => {
    const key = await t.key('webhooks');
    let open!: () => void;
    gate = new Promise((r) => (open = r));
    const headers = { authorization: `Bearer ${key}` };
    const held = [1, 2, 3].map(() => fetch(`${t.url}/t/held`, { headers }));
    await expect.poll(() => t.app.clientRequests.inUse('127.0.0.1')).toBe(3);
    const refused = await fetch(`${t.url}/t/held`, { headers });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error_code: 'client_connection_limit' });
    expect(refused.headers.get('retry-after')).toBe('1');
    open();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200, 200]);
    await expect.poll(() => t.app.clientRequests.inUse('127.0.0.1')).toBe(0);
    expect((await fetch(`${t.url}/t/held`, { headers })).status).toBe(200);
  });
});
