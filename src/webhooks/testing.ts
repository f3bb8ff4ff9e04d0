// Test helpers: a real local HTTP receiver that records every delivery and answers as told, and
// a bounded wait. Used by the webhook tests and the benchmark.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Wall-clock arrival (ms). */
  at: number;
}

export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering (timeouts). */
  delayMs?: number;
}

/** Decides the answer to the n-th request (0-based, counting every request). */
export type Responder = (req: ReceivedRequest, n: number) => ReceiverAnswer;

export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  respond: Responder = () => ({ status: 200 });
  private server: http.Server | null = null;
  private waiters: Array<{ n: number; resolve: () => void }> = [];
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Starts listening on 127.0.0.1 (port 0 picks a free one; a fixed port reopens after `close`). */
  async listen(port = this.port): Promise<this> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
        const n = this.requests.length;
        this.requests.push(received);
        const answer = this.respond(received, n);
        const send = () => {
          res.writeHead(answer.status, answer.headers ?? {});
          res.end();
          this.waiters = this.waiters.filter((w) => (this.requests.length >= w.n ? (w.resolve(), false) : true));
        };
        if (answer.delayMs) setTimeout(send, answer.delayMs);
        else send();
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** Resolves once `n` requests have been answered; rejects after `ms`. */
  waitFor(n: number, ms = 10_000): Promise<void> {
    if (this.requests.length >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver got ${this.requests.length} of ${n} requests in ${ms} ms`)), ms);
      this.waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  bodies(): unknown[] {
    return this.requests.map((r) => JSON.parse(r.body));
  }

  /** Stops listening and drops open connections (the receiver is "down"). */
  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Polls `cond` until true; throws after `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
