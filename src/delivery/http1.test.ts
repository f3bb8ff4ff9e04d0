// The webhook HTTP/1.1 client against real servers on loopback: Node's own HTTP and HTTPS servers,
// and raw TCP servers that answer byte by byte, in chunks, with interim responses, with garbage,
// never, or by closing a kept-alive connection as a request goes out.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { once } from 'node:events';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { OriginClient, type ExchangeError, type ExchangeResult } from './http1.js';
import { buildRequest, deliveryHeaders, requestLine, Sender, type AttemptReport } from './sender.js';
import { guardedLookup } from './ssrf.js';

const lookup = guardedLookup({ allowLoopback: true });
const TLS_DIR = new URL('../../test/support/tls/', import.meta.url);
const closers: Array<() => Promise<unknown> | void> = [];

afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

function client(url: string, opts: { connections?: number; timeoutMs?: number; ca?: Buffer } = {}): OriginClient {
  const c = new OriginClient(new URL(url), { connections: opts.connections ?? 4, timeoutMs: opts.timeoutMs ?? 2000, lookup, tls: opts.ca ? { ca: opts.ca } : undefined });
  closers.push(() => c.close());
  return c;
}

function post(path: string, host: string, body: string, extra = ''): string {
  return `POST ${path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

function exchange(c: OriginClient, data: string): Promise<{ err: ExchangeError | null; res: ExchangeResult | null }> {
  return new Promise((resolve) => c.request(data, (err, res) => resolve({ err, res })));
}

/** A TCP server whose every request (one per `data` burst ending a request) gets `answer(socket, n)`. */
async function rawServer(answer: (socket: net.Socket, requestNo: number, connNo: number) => void) {
  let connections = 0;
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    const connNo = ++connections;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let buf = '';
    socket.on('data', (d) => {
      buf += d.toString('latin1');
      // One request is a head plus its content-length of body.
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const len = Number(/content-length: (\d+)/i.exec(buf.slice(0, end))?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        buf = buf.slice(end + 4 + len);
        answer(socket, ++requests, connNo);
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  closers.push(() => {
    for (const s of sockets) s.destroy();
    return new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}`, connections: () => connections, requests: () => requests };
}

/** Writes `text` one byte per event-loop turn. */
async function dribble(socket: net.Socket, text: string) {
  for (const ch of text) {
    if (socket.destroyed) return;
    socket.write(ch);
    await new Promise((r) => setImmediate(r));
  }
}

describe('webhook HTTP/1.1 client', () => {
  it('posts the exact bytes to a Node HTTP server and reuses one kept-alive connection', async () => {
    const seen: Array<{ body: string; headers: http.IncomingHttpHeaders; remotePort: number }> = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ body: Buffer.concat(chunks).toString(), headers: req.headers, remotePort: req.socket.remotePort! });
        if (seen.length === 3) res.writeHead(429, { 'retry-after': '12' }).end('slow down');
        else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => new Promise((r) => server.close(r)));
    const port = (server.address() as net.AddressInfo).port;
    const c = client(`http://127.0.0.1:${port}`);
    const body = JSON.stringify({ text: 'héllo ✓', n: 1 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await exchange(c, post('/hook?x=1', `127.0.0.1:${port}`, body, `webhook-id: msg_${i}\r\n`)));
    expect(results.map((r) => r.res?.statusCode)).toEqual([200, 200, 429, 200]);
    expect(results[2]!.res!.retryAfter).toBe('12');
    expect(results[0]!.res!.retryAfter).toBeUndefined();
    expect(seen.map((s) => s.body)).toEqual([body, body, body, body]);
    expect(seen[1]!.headers['webhook-id']).toBe('msg_1');
    expect(new Set(seen.map((s) => s.remotePort)).size).toBe(1);
    expect(c.connectionCount).toBe(1);
  });

  it('opens at most `connections` connections and queues the rest', async () => {
    const server = await rawServer((socket) => setTimeout(() => socket.write('HTTP/1.1 204 No Content\r\n\r\n'), 5));
    const c = client(server.url, { connections: 3 });
    const all = await Promise.all(Array.from({ length: 30 }, () => exchange(c, post('/', server.host, '{}'))));
    expect(all.every((r) => r.res?.statusCode === 204)).toBe(true);
    expect(server.connections()).toBe(3);
    expect(server.requests()).toBe(30);
  });

  it('reads a response that arrives one byte at a time, then reuses the connection', async () => {
    const server = await rawServer((socket) => void dribble(socket, 'HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello'));
    const c = client(server.url);
    expect((await exchange(c, post('/', server.host, '{"a":1}'))).res?.statusCode).toBe(201);
    expect((await exchange(c, post('/', server.host, '{"a":2}'))).res?.statusCode).toBe(201);
    expect(server.connections()).toBe(1);
  });

  it('skips a chunked body with extensions and trailers split across writes', async () => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked\r\nRetry-After: 30\r\n\r\n5;ext=1\r\nhel');
      setTimeout(() => socket.write('lo\r\n1'), 5);
      setTimeout(() => socket.write('0\r\n0123456789abcdef\r\n0\r\nTrailer: x\r'), 10);
      setTimeout(() => socket.write('\n\r\n'), 15);
    });
    const c = client(server.url);
    const first = await exchange(c, post('/', server.host, '{}'));
    expect(first.err).toBeNull();
    expect(first.res).toEqual({ statusCode: 500, retryAfter: '30' });
    expect((await exchange(c, post('/', server.host, '{}'))).res?.statusCode).toBe(500);
    expect(server.connections()).toBe(1);
  });

  it('passes over 100 Continue and 103 Early Hints to the final status', async () => {
    const server = await rawServer((socket) =>
      socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 503 Busy\r\nRetry-After: 7\r\nContent-Length: 0\r\n\r\n'),
    );
    const c = client(server.url);
    expect((await exchange(c, post('/', server.host, '{}'))).res).toEqual({ statusCode: 503, retryAfter: '7' });
  });

  it('takes a body ended by the connection closing, and does not reuse that connection', async () => {
    const server = await rawServer((socket) => {
      socket.write('HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nsome text');
      setTimeout(() => socket.end(), 5);
    });
    const c = client(server.url);
    expect((await exchange(c, post('/', server.host, '{}'))).res?.statusCode).toBe(200);
    expect((await exchange(c, post('/', server.host, '{}'))).res?.statusCode).toBe(200);
    expect(server.connections()).toBe(2);
  });

  it('opens a new connection after `Connection: close` and when the keep-alive hint has run out', async () => {
    const closing = await rawServer((socket) => socket.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'));
    const c1 = client(closing.url);
    await exchange(c1, post('/', closing.host, '{}'));
    await exchange(c1, post('/', closing.host, '{}'));
    expect(closing.connections()).toBe(2);
    // timeout=1 leaves no idle time once the one-second margin is taken off.
    const hinted = await rawServer((socket) => socket.write('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 0\r\n\r\n'));
    const c2 = client(hinted.url);
    await exchange(c2, post('/', hinted.host, '{}'));
    await exchange(c2, post('/', hinted.host, '{}'));
    expect(hinted.connections()).toBe(2);
  });

  it('sends again once on a new connection when a reused one is closed before any answer', async () => {
    // Each connection answers its first request and drops at its second: a receiver's idle timeout racing a request.
    const perConn = new Map<number, number>();
    const server = await rawServer((socket, _n, connNo) => {
      const k = (perConn.get(connNo) ?? 0) + 1;
      perConn.set(connNo, k);
      if (k === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
      else socket.destroy();
    });
    const c = client(server.url);
    expect((await exchange(c, post('/', server.host, '{"n":1}'))).res?.statusCode).toBe(200);
    const second = await exchange(c, post('/', server.host, '{"n":2}'));
    expect(second.err).toBeNull();
    expect(second.res?.statusCode).toBe(200);
    expect(server.connections()).toBe(2);
    expect(server.requests()).toBe(3);
  });

  it('fails without a second try when a new connection is closed, or a response is cut short', async () => {
    const dropping = await rawServer((socket) => socket.destroy());
    const c1 = client(dropping.url);
    const r1 = await exchange(c1, post('/', dropping.host, '{}'));
    expect(r1.err?.code).toBe('ECONNRESET');
    expect(dropping.requests()).toBe(1);
    const cut = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial');
      setTimeout(() => socket.destroy(), 5);
    });
    const c2 = client(cut.url);
    const r2 = await exchange(c2, post('/', cut.host, '{}'));
    expect(r2.err?.message).toMatch(/response cut short/);
    expect(cut.requests()).toBe(1);
  });

  it('rejects what is not an HTTP/1.x response, and a head that never ends', async () => {
    const garbage = await rawServer((socket) => socket.write('SSH-2.0-OpenSSH_9.0\r\n\r\n'));
    const r1 = await exchange(client(garbage.url), post('/', garbage.host, '{}'));
    expect(r1.err?.code).toBe('EPROTO');
    expect(r1.err?.message).toMatch(/not an HTTP\/1\.x response/);
    const huge = await rawServer((socket) => socket.write('HTTP/1.1 200 OK\r\n' + 'X-Pad: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n'.repeat(1000)));
    const r2 = await exchange(client(huge.url), post('/', huge.host, '{}'));
    expect(r2.err?.message).toMatch(/larger than 16 KB/);
  });

  it('times out a receiver that never answers, and one that cannot be reached', async () => {
    const silent = await rawServer(() => {});
    const c = client(silent.url, { timeoutMs: 150 });
    const started = Date.now();
    const r = await exchange(c, post('/', silent.host, '{}'));
    expect(r.err?.code).toBe('ETIMEDOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(c.connectionCount).toBe(0);
    // A port nobody listens on.
    const probe = net.createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise((r2) => probe.close(r2));
    const refused = await exchange(client(`http://127.0.0.1:${port}`), post('/', `127.0.0.1:${port}`, '{}'));
    expect(refused.err?.code).toBe('ECONNREFUSED');
  });

  it('gives a request that waited for a free connection the whole timeout once it has one', async () => {
    // One connection, each answer after 150 ms, a 250 ms timeout: the second request is answered
    // ~300 ms after it was made, 150 ms after it went out.
    const slow = await rawServer((socket) => setTimeout(() => socket.write('HTTP/1.1 204 No Content\r\n\r\n'), 150));
    const c = client(slow.url, { connections: 1, timeoutMs: 250 });
    const results = await Promise.all([1, 2].map(() => exchange(c, post('/', slow.host, '{}'))));
    expect(results.map((r) => r.err?.code ?? r.res?.statusCode)).toEqual([204, 204]);
    expect(slow.connections()).toBe(1);
  });

  it('speaks HTTPS to a receiver with a certificate the client trusts, and refuses one it does not', async () => {
    const key = readFileSync(new URL('localhost.key', TLS_DIR));
    const cert = readFileSync(new URL('localhost.crt', TLS_DIR));
    const bodies: string[] = [];
    const server = https.createServer({ key, cert }, (req, res) => {
      let b = '';
      req.on('data', (c) => (b += c));
      req.on('end', () => {
        bodies.push(b);
        res.writeHead(202).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    });
    const port = (server.address() as net.AddressInfo).port;
    const trusted = client(`https://localhost:${port}`, { ca: cert });
    for (let i = 0; i < 3; i++) expect((await exchange(trusted, post('/', `localhost:${port}`, `{"i":${i}}`))).res?.statusCode).toBe(202);
    expect(bodies).toEqual(['{"i":0}', '{"i":1}', '{"i":2}']);
    expect(trusted.connectionCount).toBe(1);
    const untrusted = await exchange(client(`https://localhost:${port}`), post('/', `localhost:${port}`, '{}'));
    expect(untrusted.err?.code).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/);
  });

  it('refuses a host that resolves to a forbidden address before connecting', async () => {
    const strict = new OriginClient(new URL('http://internal.example:8080'), {
      connections: 1,
      timeoutMs: 1000,
      lookup: guardedLookup({ allowLoopback: false, resolve: async () => [{ address: '10.0.0.5', family: 4 }] }),
    });
    closers.push(() => strict.close());
    const r = await exchange(strict, post('/', 'internal.example:8080', '{}'));
    expect(r.err?.code).toBe('ESSRF');
  });

  it('on close, lets the request in flight finish and fails the queued ones', async () => {
    const server = await rawServer((socket) => setTimeout(() => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'), 30));
    const c = new OriginClient(new URL(server.url), { connections: 1, timeoutMs: 2000, lookup });
    const inFlight = exchange(c, post('/', server.host, '{}'));
    const queued = exchange(c, post('/', server.host, '{}'));
    await new Promise((r) => setTimeout(r, 5));
    const closed = c.close();
    expect((await queued).err?.code).toBe('ECLOSED');
    expect((await inFlight).res?.statusCode).toBe(200);
    await closed;
    expect(c.connectionCount).toBe(0);
    expect((await exchange(c, post('/', server.host, '{}'))).err?.code).toBe('ECLOSED');
  });
});

describe('Sender', () => {
  it('sends the signed headers and body, and refuses a header value with a line break instead of writing it', async () => {
    const server = await rawServer((socket) => socket.write('HTTP/1.1 204 No Content\r\n\r\n'));
    const sender = new Sender({ policy: { allowLoopback: true }, timeoutMs: 1000, userAgent: 'tonwatch-test', connectionsPerOrigin: 2 });
    closers.push(() => sender.close());
    const endpoint = { id: 1, producer: 'p', owner: 'o', url: `${server.url}/hook`, token: 't'.repeat(32), secret: 'whsec_' + Buffer.alloc(32, 1).toString('base64'), previousSecret: null, previousSecretUntil: null, status: 'online' as const, statusReason: null, statusUpdatedAt: 0, lastOnlineAt: 0, failedAttempts: 0, createdAt: 0 };
    const delivery = { id: 1, endpointId: 1, orderingKey: null, messageId: 'msg_ok', eventType: 'account_tx', body: '{"a":1}', meta: null, attempts: 0, nextAttemptAt: 0, firstFailedAt: null, createdAt: 0 };
    const send = (d: typeof delivery) => new Promise<AttemptReport>((resolve) => sender.send(endpoint, d, Date.now(), resolve));
    const ok = await send(delivery);
    expect(ok).toMatchObject({ statusCode: 204, error: null, kind: 'http' });
    const bad = await send({ ...delivery, eventType: 'account_tx\r\nx-injected: 1' });
    expect(bad).toMatchObject({ statusCode: null, kind: 'refused' });
    expect(bad.error).toMatch(/webhook-event-type header would contain a line break/);
    expect(server.requests()).toBe(1);
  });

  it('builds the request: request line, the signed headers in order, the body; deliveryHeaders reads the same', () => {
    const now = Date.now();
    const secret = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
    const previous = 'whsec_' + Buffer.alloc(32, 2).toString('base64');
    const delivery = { messageId: 'msg_1', eventType: 'account_tx', body: '{"a":"é"}' };
    for (const endpoint of [
      { url: 'https://example.com/a/b?c=1', token: 't'.repeat(32), secret, previousSecret: null, previousSecretUntil: null },
      { url: 'https://example.com/a/b?c=1', token: 't'.repeat(32), secret, previousSecret: previous, previousSecretUntil: now + 1000 },
    ]) {
      const request = buildRequest(requestLine(new URL(endpoint.url)), endpoint, delivery, now, 'tonwatch-test') as string;
      const [head, body] = request.split('\r\n\r\n');
      const lines = head!.split('\r\n');
      const ts = String(Math.floor(now / 1000));
      const signature = lines.find((l) => l.startsWith('webhook-signature: '))!.slice('webhook-signature: '.length);
      expect(lines).toEqual([
        'POST /a/b?c=1 HTTP/1.1',
        'host: example.com',
        'content-type: application/json',
        'user-agent: tonwatch-test',
        `authorization: Bearer ${'t'.repeat(32)}`,
        `idempotency-key: ${createHash('sha256').update(delivery.body).digest('hex')}`,
        'webhook-id: msg_1',
        `webhook-timestamp: ${ts}`,
        `webhook-signature: ${signature}`,
        'webhook-event-type: account_tx',
        `content-length: ${Buffer.byteLength(delivery.body)}`,
      ]);
      expect(body).toBe(delivery.body);
      // One signature per active secret, each verifying on its own.
      expect(signature.split(' ')).toHaveLength(endpoint.previousSecret ? 2 : 1);
      for (const s of endpoint.previousSecret ? [secret, previous] : [secret]) {
        expect(() => new Webhook(s).verify(delivery.body, { 'webhook-id': 'msg_1', 'webhook-timestamp': ts, 'webhook-signature': signature })).not.toThrow();
      }
      const headers = deliveryHeaders(endpoint, delivery, now, 'tonwatch-test');
      expect(Object.entries(headers).map(([k, v]) => `${k}: ${v}`)).toEqual(lines.slice(2, -1));
    }
  });
});
