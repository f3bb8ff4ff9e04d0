// The delivery engine, usable by any producer (webhook subscriptions, invoices): endpoints, a
// durable outbox written inside the producer's own transaction (`enqueue`, then `notify()` after
// commit), and a worker (worker.ts) that delivers with retries, ordering per key, signatures and
// logs. The service builds one per process (`ServiceContext.delivery`) and starts and stops it.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { Store } from '../store/db.js';
import { systemClock } from './clock.js';
import * as ep from './endpoints.js';
import { emptyLag, lagReport, type DeliveryLag } from './lag.js';
import { DeliveryMetrics } from './metrics.js';
import * as outbox from './outbox.js';
import * as reports from './reports.js';
import { DAY } from './schedule.js';
import { checkEndpoint, type HostResolver } from './ssrf.js';
import type { Clock, DeliveryHooks, DeliveryIntent, Endpoint, PendingDelivery } from './types.js';
import { DeliveryWorker } from './worker.js';

export interface DeliveryEngineOptions {
  store: Store;
  /** Allow endpoints on loopback and private addresses (development). */
  allowLoopback: boolean;
  /** Timeout of one attempt (default 15 s). */
  timeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Registry for the delivery metrics; none are registered without it. */
  metrics?: Registry;
  resolve?: HostResolver;
  /** Attempts in flight at once, over all endpoints (default 512). */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint, and its connection pool size (default 64). */
  perEndpointConcurrency?: number;
  /** How long the previous signing secret keeps signing after a rotation (default 24 h). */
  secretOverlapMs?: number;
  /** How long delivered/failed deliveries and failure logs are kept (default 7 days). */
  historyMs?: number;
  userAgent?: string;
  /** Write and read sockets in a worker thread (default true); off, or with `resolve` set, in this one. */
  senderThread?: boolean;
  /** Safety-net poll for deliveries written without `notify()` (another process). Default 1 s. */
  pollIntervalMs?: number;
  /** Most deliveries held in memory (default 200,000), and per ordering key (default 1,000). */
  memoryLimit?: number;
  perKeyLimit?: number;
  /**
   * PostgreSQL: how long a worker's lease on an ordering key lasts unrenewed (default 60 s). A
   * worker that dies holds its keys this long; then another resumes them. At least 3 × timeoutMs + 1 s.
   */
  leaseMs?: number;
  /** This worker's name in the lease rows (default host:pid:random). */
  workerId?: string;
  /** `readiness()` fails when a due delivery to an online endpoint waited longer than this (default 30 s; 0: never). */
  readyMaxLagMs?: number;
}

/** Smallest lease for an attempt timeout: renewed every quarter, an attempt needs 2 × timeout left. */
export function minLeaseMs(timeoutMs: number): number {
  return 3 * timeoutMs + 1000;
}

/** What `enqueue` wrote, for `notify` after the commit; opaque to producers. */
export interface EnqueueReceipt {
  readonly rows: PendingDelivery[] | null;
}

export class DeliveryEngine {
  readonly clock: Clock;
  private readonly db: Kysely<any>;
  private readonly hooks = new Map<string, DeliveryHooks>();
  private readonly worker: DeliveryWorker;
  private readonly secretOverlapMs: number;
  /** This worker's name in the lease rows (and on the outbox channel). */
  private readonly workerId: string;

  constructor(private readonly options: DeliveryEngineOptions) {
    this.clock = options.clock ?? systemClock;
    this.db = options.store.db;
    this.secretOverlapMs = options.secretOverlapMs ?? DAY;
    const timeoutMs = options.timeoutMs ?? 15_000;
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    const leaseMs = options.leaseMs ?? Math.max(60_000, minLeaseMs(timeoutMs));
    if (leaseMs < minLeaseMs(timeoutMs)) {
      throw new Error(`the webhook worker lease (TONWATCH_WORKER_LEASE_SECONDS, ${leaseMs} ms) must be at least 3 × the attempt timeout (TONWATCH_WEBHOOK_TIMEOUT_MS, ${timeoutMs} ms) + 1 s = ${minLeaseMs(timeoutMs)} ms`);
    }
    const metrics = options.metrics
      ? new DeliveryMetrics(options.metrics, {
          depth: () => reports.pendingCount(this.db),
          endpointsByStatus: () => this.endpointsByStatus(),
          inFlight: () => this.worker.inFlight,
          lag: () => this.lag(),
        })
      : null;
    this.worker = new DeliveryWorker({
      store: options.store,
      clock: this.clock,
      logger: options.logger,
      metrics,
      hooks: this.hooks,
      sender: {
        policy: { allowLoopback: options.allowLoopback, resolve: options.resolve },
        timeoutMs,
        userAgent: options.userAgent ?? 'tonwatch-webhooks/0.1',
      },
      senderThread: options.senderThread ?? true,
      concurrency: options.concurrency ?? 512,
      perEndpointConcurrency: options.perEndpointConcurrency ?? 64,
      pollIntervalMs: options.pollIntervalMs ?? 1000,
      historyMs: options.historyMs ?? 7 * DAY,
      memoryLimit: options.memoryLimit ?? 200_000,
      perKeyLimit: options.perKeyLimit ?? 1000,
      lease: { owner: this.workerId, leaseMs },
    });
  }

  /** Hooks of a producer, called with the outcomes of its endpoints' deliveries. */
  registerProducer(producer: string, hooks: DeliveryHooks): void {
    this.hooks.set(producer, hooks);
  }

  /** Starts the worker (the service, once, before the producers start). */
  async start(): Promise<void> {
    await this.worker.start();
  }

  /** Finishes in-flight attempts and stops (the service, after the producers stopped). */
  async stop(): Promise<void> {
    await this.worker.stop();
  }

  health() {
    return { ok: this.worker.isRunning, in_memory: this.worker.inMemory, in_flight: this.worker.inFlight, sender: this.worker.senderKind };
  }

  /** Age of the oldest due delivery not yet started, per endpoint state, over the keys this process holds. */
  lag(): DeliveryLag {
    return this.worker.isRunning ? this.worker.lag() : emptyLag();
  }

  /**
   * The /readyz check: not ready while a due delivery to an online endpoint with room for more
   * attempts waited longer than the bound (a stall of this worker); slow, offline and suspended
   * endpoints are reported, never failing it. A process that does not deliver is ready.
   */
  readiness() {
    return { ...lagReport(this.lag(), this.options.readyMaxLagMs ?? 30_000), running: this.worker.isRunning };
  }

  // ---- producers ---------------------------------------------------------------------------

  /**
   * Writes deliveries inside the caller's transaction. Call `notify(receipt)` once it has
   * committed (never after a rollback): the worker then takes the rows from memory.
   */
  async enqueue(trx: Kysely<any>, intents: readonly DeliveryIntent[]): Promise<EnqueueReceipt> {
    return { rows: await outbox.enqueueDeliveries(trx, intents, this.clock.now()) };
  }

  /**
   * Tells the worker that deliveries were committed (it also polls, but this is immediate). With
   * the receipt of the enqueue just committed, it need not read those rows back from the store.
   */
  notify(receipt?: EnqueueReceipt): void {
    if (this.worker.isRunning) void this.worker.loadNew(receipt?.rows ?? undefined);
    // Workers in other processes hear of it on their liveness sessions; a missed one is read at their poll.
    if (this.options.store.dialect === 'postgres') outbox.announceCommitted(this.db, this.workerId).catch(() => {});
  }

  // ---- endpoints ---------------------------------------------------------------------------

  /** Checks an endpoint URL (form, then every address it resolves to); returns it normalised or throws EndpointRefusedError. */
  checkUrl(url: string): Promise<string> {
    return checkEndpoint(url, { allowLoopback: this.options.allowLoopback, resolve: this.options.resolve });
  }

  /** Creates an endpoint after checking its URL; throws EndpointRefusedError. */
  async createEndpoint(input: ep.NewEndpoint, trx?: Kysely<any>): Promise<Endpoint> {
    const url = await this.checkUrl(input.url);
    return ep.insertEndpoint(trx ?? this.db, { ...input, url }, this.clock.now());
  }

  /** An endpoint with its live status (the worker's view is newer than the store's). */
  async getEndpoint(id: number): Promise<Endpoint | null> {
    const live = this.worker.endpoints.get(id);
    if (live) return { ...live };
    return ep.selectEndpoint(this.db, id);
  }

  async listEndpoints(filter: { producer?: string; owner?: string }): Promise<Endpoint[]> {
    const rows = await ep.selectEndpoints(this.db, filter);
    return rows.map((e) => ({ ...(this.worker.endpoints.get(e.id) ?? e) }));
  }

  async updateEndpointUrl(id: number, url: string): Promise<void> {
    const checked = await this.checkUrl(url);
    await ep.updateEndpointUrl(this.db, id, checked);
    const live = this.worker.endpoints.get(id);
    if (live) live.url = checked;
  }

  /** New token and signing secret; the previous secret keeps signing during the overlap. */
  async rotateCredentials(id: number): Promise<Endpoint | null> {
    const current = await this.getEndpoint(id);
    if (!current) return null;
    const rotated = await ep.rotateCredentials(this.db, current, this.clock.now(), this.secretOverlapMs);
    const live = this.worker.endpoints.get(id);
    if (live) {
      Object.assign(live, { token: rotated.token, secret: rotated.secret, previousSecret: rotated.previousSecret, previousSecretUntil: rotated.previousSecretUntil });
    }
    return rotated;
  }

  /** Deletes an endpoint with its deliveries and logs (inside `trx` when given, with the producer's rows). */
  async deleteEndpoint(id: number, trx?: Kysely<any>): Promise<boolean> {
    this.worker.forgetEndpoint(id);
    return ep.deleteEndpointRows(trx ?? this.db, id);
  }

  /** The receiver is reachable again: status online, every waiting delivery due now. */
  async backOnline(id: number): Promise<boolean> {
    const endpoint = await this.getEndpoint(id);
    if (!endpoint) return false;
    const now = this.clock.now();
    await outbox.makeDueNow(this.db, id, now);
    if (this.worker.isRunning) {
      await this.worker.resumeEndpoint(endpoint, now);
    } else {
      await ep.saveEndpointStatus(this.db, { ...endpoint, status: 'online', statusReason: null, statusUpdatedAt: now, failedAttempts: 0 });
    }
    return true;
  }

  /** Sends a past delivery again (same webhook-id and body), outside its ordering key. */
  async redeliver(endpointId: number, messageId: string): Promise<boolean> {
    const endpoint = await this.getEndpoint(endpointId);
    if (!endpoint) return false;
    const found = await outbox.copyForRedelivery(this.db, endpoint, messageId, this.clock.now());
    if (found) this.notify();
    return found;
  }

  // ---- reports -----------------------------------------------------------------------------

  failureLog(endpointId: number, offset: number, limit: number) {
    return reports.failureLog(this.db, endpointId, offset, limit);
  }

  usage(producer: string, owner: string, at = this.clock.now()) {
    return reports.usage(this.db, producer, owner, at);
  }

  pendingCount(endpointId?: number): Promise<number> {
    return reports.pendingCount(this.db, endpointId);
  }

  /** Waits until every outcome so far is recorded in the store (tests, shutdown). */
  flush(): Promise<void> {
    return this.worker.flushNow();
  }

  private async endpointsByStatus(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const { id, status } of await reports.endpointStatuses(this.db)) {
      const live = this.worker.endpoints.get(id)?.status ?? status;
      out[live] = (out[live] ?? 0) + 1;
    }
    return out;
  }
}

const DAY_MS = 86_400_000;

/** The engine's settings from configuration (the one place they are read). */
export function deliveryOptionsFromConfig(config: Config): Omit<DeliveryEngineOptions, 'store'> {
  return {
    allowLoopback: config.webhookAllowLoopback,
    timeoutMs: config.webhookTimeoutMs,
    concurrency: config.webhookConcurrency,
    senderThread: config.webhookSenderThread,
    secretOverlapMs: config.webhookSecretOverlapSeconds * 1000,
    historyMs: config.webhookHistoryDays * DAY_MS,
    leaseMs: config.workerLeaseSeconds * 1000,
    readyMaxLagMs: config.readyMaxDeliveryLagSeconds * 1000,
  };
}
