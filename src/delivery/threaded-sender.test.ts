// The sender thread against real receivers on loopback: attempts go out signed from the thread and
// their reports come back; when the thread dies, the attempts it held are reported as network
// failures (the engine retries them) and later attempts are sent from the main thread.
import http from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { AttemptReport } from './sender.js';
import { ThreadedSender } from './threaded-sender.js';

const closers: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

const secret = 'whsec_' + Buffer.alloc(32, 3).toString('base64');
const endpointAt = (url: string) => ({ url, token: 't'.repeat(32), secret, previousSecret: null, previousSecretUntil: null });

/** A receiver that records each request and answers it with `answer` (or never). */
async function receiver(answer: ((res: http.ServerResponse) => void) | null) {
  const seen: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      answer?.(res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen };
}

async function startSender() {
  const sender = await ThreadedSender.start({ policy: { allowLoopback: true }, timeoutMs: 5000, userAgent: 'tonwatch-test', connectionsPerOrigin: 4 });
  closers.push(() => sender.close());
  return sender;
}

const send = (sender: ThreadedSender, url: string, n: number) =>
  new Promise<AttemptReport>((resolve) => sender.send(endpointAt(url), { messageId: `msg_${n}`, eventType: 'account_tx', body: `{"n":${n}}` }, Date.now(), resolve));

describe('ThreadedSender', () => {
  it('sends signed attempts from the thread and reports each outcome', async () => {
    const ok = await receiver((res) => res.writeHead(204).end());
    const gone = await receiver((res) => res.writeHead(410).end());
    const sender = await startSender();
    const reports = await Promise.all([1, 2, 3, 4, 5].map((n) => send(sender, ok.url, n)));
    expect(reports.map((r) => r.statusCode)).toEqual([204, 204, 204, 204, 204]);
    expect(ok.seen.map((r) => r.body).sort()).toEqual([1, 2, 3, 4, 5].map((n) => `{"n":${n}}`));
    const first = ok.seen.find((r) => r.body === '{"n":1}')!;
    expect(first.headers['webhook-id']).toBe('msg_1');
    expect(() => new Webhook(secret).verify(first.body, first.headers as Record<string, string>)).not.toThrow();
    expect(await send(sender, gone.url, 6)).toMatchObject({ statusCode: 410, kind: 'http', error: 'HTTP 410' });
  });

  it('uses an endpoint\'s current token and secrets after a rotation in place', async () => {
    const ok = await receiver((res) => res.writeHead(204).end());
    const sender = await startSender();
    const deliver = (endpoint: ReturnType<typeof endpointAt>, n: number) =>
      new Promise<AttemptReport>((resolve) => sender.send(endpoint, { messageId: `msg_${n}`, eventType: 'account_tx', body: `{"n":${n}}` }, Date.now(), resolve));
    const a = endpointAt(ok.url);
    const b = { ...endpointAt(ok.url), token: 'b'.repeat(32) };
    await Promise.all([deliver(a, 1), deliver(b, 2), deliver(a, 3)]);
    // Rotated in place, as the engine does: a new token and secret, the old secret still signing.
    const rotated = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
    Object.assign(a, { token: 'r'.repeat(32), secret: rotated, previousSecret: secret, previousSecretUntil: Date.now() + 60_000 });
    await deliver(a, 4);
    const byN = (n: number) => ok.seen.find((r) => r.body === `{"n":${n}}`)!.headers;
    expect([1, 2, 3, 4].map((n) => byN(n).authorization)).toEqual(['t', 'b', 't', 'r'].map((c) => `Bearer ${c.repeat(32)}`));
    expect(String(byN(4)['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(rotated).verify('{"n":4}', byN(4) as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(secret).verify('{"n":4}', byN(4) as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(rotated).verify('{"n":3}', byN(3) as Record<string, string>)).toThrow();
  });

  it('sends to the right URL after the slot table of endpoints is cleared and refilled', async () => {
    const a = await receiver((res) => res.writeHead(204).end());
    const b = await receiver((res) => res.writeHead(204).end());
    const sender = await startSender();
    // A new endpoint object takes a new slot; past 10,000 the table starts over (between batches).
    const total = 10_200;
    const reports: Array<Promise<AttemptReport>> = [];
    for (let n = 0; n < total; n++) {
      const endpoint = endpointAt(n % 2 === 0 ? a.url : b.url);
      reports.push(new Promise((resolve) => sender.send(endpoint, { messageId: `msg_${n}`, eventType: 'account_tx', body: `{"n":${n}}` }, Date.now(), resolve)));
      if (n % 500 === 499) await Promise.all(reports.slice(-500));
    }
    expect((await Promise.all(reports)).every((r) => r.statusCode === 204)).toBe(true);
    const ns = (seen: Array<{ body: string }>) => seen.map((r) => JSON.parse(r.body).n as number);
    expect(ns(a.seen).every((n) => n % 2 === 0) && ns(b.seen).every((n) => n % 2 === 1)).toBe(true);
    expect(a.seen.length + b.seen.length).toBe(total);
  });

  it('reports the attempts a dead thread held as network failures, then sends from the main thread', async () => {
    const silent = await receiver(null);
    const ok = await receiver((res) => res.writeHead(200).end('ok'));
    const sender = await startSender();
    const held = [1, 2, 3].map((n) => send(sender, silent.url, n));
    await expect.poll(() => silent.seen.length).toBe(3);
    expect(sender.inThread).toBe(true);
    await sender.kill();
    for (const r of await Promise.all(held)) expect(r).toMatchObject({ statusCode: null, kind: 'network', error: expect.stringMatching(/sender thread stopped/) });
    expect(sender.inThread).toBe(false);
    expect(await send(sender, ok.url, 4)).toMatchObject({ statusCode: 200, kind: 'http' });
    expect(ok.seen).toHaveLength(1);
  });
});
