// Test helpers: a real local HTTP receiver that records every delivery and answers as told, a
// bounded wait, and a test bed (the real app and component over a real store and event log).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { makePosition, MEMPOOL_BASE, type ChainEvent, type EventBatch } from '../../src/bus/events.js';
import { StoreEventLog } from '../../src/bus/store-log.js';
import type { PendingMessage, TransactionModel } from '../../src/chain/model.js';
import { MAINNET_PROFILE } from '../../src/chain/profile.js';
import type { ChainSource } from '../../src/chain/source.js';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from './app.js';
import type { ServiceContext } from '../../src/service/component.js';
import type { Store } from '../../src/store/db.js';
import { systemClock } from '../../src/delivery/clock.js';
import { DeliveryEngine, deliveryOptionsFromConfig } from '../../src/delivery/engine.js';
import type { HostResolver } from '../../src/delivery/ssrf.js';
import type { Clock } from '../../src/delivery/types.js';
import { createWebhooksComponent } from '../../src/webhooks/component.js';

export interface WebhookTestbedOptions {
  /** Manual clock for tests of the retry schedule; the wall clock with real timers otherwise. */
  clock?: Clock;
  resolve?: HostResolver;
  /** Settings as environment variables. */
  env?: Record<string, string>;
}

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
  /** Answer only once this settles (a request held at the receiver while the test acts). */
  until?: Promise<unknown>;
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
        if (answer.until) void answer.until.then(send, send);
        else if (answer.delayMs) setTimeout(send, answer.delayMs);
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

// ---- a webhooks test bed: the real app and component over a real store and event log ----------


export interface WebhookTestbed extends TestApp {
  store: Store;
  log: StoreEventLog;
  component: ReturnType<typeof createWebhooksComponent>;
  /** Appends and publishes a batch as the follower does. */
  append(batch: EventBatch): Promise<void>;
  /** fetch() with `key` as the API key (null: none). */
  call(key: string | null, method: string, path: string, json?: unknown): Promise<{ status: number; body: any }>;
}

/**
 * The webhooks component in the real app, driven by a real event log that tests append to.
 * `env` holds settings as environment variables; there is no chain source (replay is tested on the devnet).
 */
export async function startWebhookTestbed(store: Store, opts: WebhookTestbedOptions = {}): Promise<WebhookTestbed> {
  const config = loadConfig({ TONWATCH_CHAIN: 'devnet', ...opts.env });
  const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
  await log.open();
  const metrics = new Registry();
  const logger = pino({ level: 'silent' });
  // Built and started here as the service does it.
  const delivery = new DeliveryEngine({ store, ...deliveryOptionsFromConfig(config), clock: opts.clock ?? systemClock, resolve: opts.resolve, logger, metrics });
  const ctx: ServiceContext = { config, store, source: null as unknown as ChainSource, profile: MAINNET_PROFILE, events: log, delivery, logger, metrics, now: Date.now };
  const component = createWebhooksComponent(ctx);
  const app = await startTestApp({ store, components: [component], metrics });
  await delivery.start();
  await component.startLeader!();
  return {
    ...app,
    store,
    log,
    component,
    async append(batch) {
      await store.db.transaction().execute((trx) => log.append(trx, batch));
      log.published(batch);
    },
    async call(key, method, path, json) {
      const headers: Record<string, string> = {};
      if (key) headers.authorization = `Bearer ${key}`;
      if (json !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${app.url}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await component.stopLeader!();
      await delivery.stop();
      await app.close();
    },
  };
}

/** A block batch of transactions at masterchain seqno `seqno`. */
export function txBatch(seqno: number, txs: TransactionModel[]): EventBatch {
  const events: ChainEvent[] = txs.map((tx, i) => ({ type: 'transaction', tx, position: makePosition(seqno, i + 1), mcSeqno: seqno }));
  return { kind: 'block', mcSeqno: seqno, firstPosition: events[0]!.position, lastPosition: events[events.length - 1]!.position, events };
}

/** A mempool batch after block `seqno`. */
export function mempoolBatch(seqno: number, n: number, message: PendingMessage): EventBatch {
  const position = makePosition(seqno, MEMPOOL_BASE + n);
  return { kind: 'mempool', mcSeqno: seqno, firstPosition: position, lastPosition: position, events: [{ type: 'mempool', message, position, mcSeqno: seqno }] };
}
