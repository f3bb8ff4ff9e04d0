// The delivery worker: keeps the pending outbox in memory as per-key FIFO queues (queues.ts,
// filled by loader.ts), sends the heads that are due with bounded concurrency, and hands outcomes
// to recorder.ts, which commits them in batches together with the producers' hooks. One worker per process; the store stays the
// truth — a delivery is pending until its outcome is recorded, so a crash only repeats attempts.
// On PostgreSQL it sends only for keys it leases (leases.ts) and only while it holds its liveness
// lock (liveness.ts); sharing.ts gives keys back and away.
import type { Logger } from 'pino';
import type { Store } from '../store/db.js';
import * as ep from './endpoints.js';
import { judgeAttempt } from './judge.js';
import { measureLag, type DeliveryLag } from './lag.js';
import { KeyLeases, leaseKeyOf } from './leases.js';
import { WorkerLiveness } from './liveness.js';
import { KeySharing } from './sharing.js';
import type { DeliveryMetrics } from './metrics.js';
import * as outbox from './outbox.js';
import { DeliveryQueues, type Queue } from './queues.js';
import { Sender, type AttemptReport, type AttemptSender, type SenderOptions } from './sender.js';
import { ThreadedSender } from './threaded-sender.js';
import { QueueLoader } from './loader.js';
import { OutcomeRecorder } from './recorder.js';
import type { Clock, DeliveryHooks, Endpoint, PendingDelivery } from './types.js';

export interface WorkerOptions {
  store: Store;
  clock: Clock;
  logger?: Logger;
  metrics: DeliveryMetrics | null;
  hooks: ReadonlyMap<string, DeliveryHooks>;
  sender: Omit<SenderOptions, 'connectionsPerOrigin'>;
  /** Write and read sockets in a worker thread (requests are still built and signed here). */
  senderThread: boolean;
  concurrency: number;
  perEndpointConcurrency: number;
  pollIntervalMs: number;
  historyMs: number;
  memoryLimit: number;
  perKeyLimit: number;
  /** PostgreSQL: this worker's name, and how long it keeps an idle key's lease (many workers on one database). */
  lease: { owner: string; leaseMs: number } | null;
}

/**
 * With the sender thread, attempts in flight to a quickly answering endpoint, as a multiple of its
 * connections: the thread keeps the extra ones queued, so it has work while this thread is busy
 * with a store commit and has not yet handed it the next attempts.
 */
const THREAD_WINDOW = 8;
/** Answers faster than this on average (EWMA of attempt latency) count as quick. */
const QUICK_MS = 100;
/** Many workers: how often endpoints in memory are read again for changes made through other nodes. */
const ENDPOINT_REFRESH_MS = 5000;

export class DeliveryWorker {
  /** Endpoints with deliveries in memory; their status here is newer than the store's. */
  readonly endpoints = new Map<number, Endpoint>();
  private readonly queues: DeliveryQueues;
  private sender: AttemptSender | null = null;
  /** Moving average of each endpoint's attempt latency (queueing in the thread included), ms. */
  private readonly endpointLatency = new Map<number, number>();
  private running = false;
  private inFlightCount = 0;
  private readonly endpointInFlight = new Map<number, number>();
  private readonly waitingForSlot = new Map<number, Queue[]>();
  /** Resolved when the last attempt in flight completes (stop() waits for it). */
  private drained: (() => void) | null = null;
  private readonly loader: QueueLoader;
  private readonly recorder: OutcomeRecorder;
  private timer: { at: number; cancel: () => void } | null = null;
  private intervals: NodeJS.Timeout[] = [];
  /** Leases on ordering keys (PostgreSQL), or null (SQLite: one process holds every key). */
  private readonly leases: KeyLeases | null;
  /** PostgreSQL: the lock that says this worker is alive; its leases last while it is held. */
  private readonly liveness: WorkerLiveness | null;
  /** Bumped when the liveness lock is lost: reports of attempts started before are of cut attempts. */
  private generation = 0;
  /** Giving back idle keys and keys over a fair share (PostgreSQL). */
  private readonly sharing: KeySharing | null;
  /** Lease work under way (sweep, rebalance, takeover): stop() lets it end before giving the leases back. */
  private readonly leaseWork = new Set<Promise<unknown>>();

  constructor(private readonly o: WorkerOptions) {
    this.queues = new DeliveryQueues(o.perKeyLimit);
    this.leases = o.lease && o.store.dialect === 'postgres' ? new KeyLeases(o.store.db, o.lease.leaseMs) : null;
    this.liveness =
      this.leases && o.lease
        ? new WorkerLiveness({
            store: o.store,
            name: o.lease.owner,
            logger: o.logger,
            alive: (owner, previous) => this.regained(owner, previous),
            lost: () => this.livenessLost(),
            committed: (keysGivenAway) => (keysGivenAway ? this.leaseTask(() => this.loader.takeOverExpired()) : void this.loader.loadNew()),
          })
        : null;
    this.sharing = this.leases
      ? new KeySharing({
          leases: this.leases,
          queues: this.queues,
          clock: o.clock,
          logger: o.logger,
          // Waiting for a connection, then the exchange, each up to the timeout.
          attemptMs: 2 * o.sender.timeoutMs + 250,
          isRunning: () => this.running,
          flushNow: () => this.recorder.flushNow(),
          task: (work) => this.leaseTask(work),
        })
      : null;
    const isRunning = () => this.running;
    this.loader = new QueueLoader({
      store: o.store,
      logger: o.logger,
      queues: this.queues,
      endpoints: this.endpoints,
      memoryLimit: o.memoryLimit,
      perKeyLimit: o.perKeyLimit,
      leases: this.leases,
      isRunning,
      pump: () => this.pump(),
    });
    this.recorder = new OutcomeRecorder({ store: o.store, clock: o.clock, logger: o.logger, hooks: o.hooks, endpoints: this.endpoints, queues: this.queues, isRunning });
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  get inMemory(): number {
    return this.queues.size;
  }

  /** Where attempts are signed and sent: `thread` or `main`. */
  get senderKind(): 'thread' | 'main' | null {
    return this.sender === null ? null : this.sender instanceof ThreadedSender && this.sender.inThread ? 'thread' : 'main';
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Age of the oldest due delivery not yet started, per endpoint state (lag.ts). */
  lag(): DeliveryLag {
    return measureLag(this.queues.queues.values(), this.endpoints, (id) => (this.endpointInFlight.get(id) ?? 0) >= this.windowOf(id), this.o.clock.now());
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.sender = await this.startSender();
    // Alive (or retrying in the background) before the first claim.
    await this.liveness?.start();
    await this.loader.loadNew();
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.intervals.push(t);
    };
    every(this.o.pollIntervalMs, () => void this.loader.loadNew());
    every(10 * 60_000, () => void this.prune());
    // PostgreSQL ids can commit out of order: re-read the last ~30 s of ids for late commits.
    if (this.o.store.dialect === 'postgres') every(5000, () => void this.loader.rescan());
    if (this.leases) {
      every(this.leases.leaseMs / 4, () => this.leaseTask(() => this.sharing!.sweep()));
      every(this.o.pollIntervalMs, () => this.leaseTask(() => this.loader.takeOverExpired()));
      every(ENDPOINT_REFRESH_MS, () => void this.refreshEndpoints());
    }
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const t of this.intervals) clearInterval(t);
    this.intervals = [];
    this.timer?.cancel();
    this.timer = null;
    await this.loader.idle();
    if (this.inFlightCount > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    await this.recorder.flushNow();
    await this.sender?.close();
    this.sender = null;
    // A sweep, census or takeover finishing after the release would leave a live lease behind.
    while (this.leaseWork.size > 0) await Promise.allSettled([...this.leaseWork]);
    // Everything sent is recorded: other workers may take the keys at once.
    await this.leases?.releaseAll().catch((err) => this.o.logger?.warn({ err }, 'releasing webhook leases failed; others take them once this worker is gone'));
    await this.liveness?.stop();
  }

  /** The liveness lock is lost (or in doubt): no attempt starts, and those in flight are cut now. */
  private livenessLost(): void {
    this.leases?.lose();
    this.generation++;
    this.sender?.abort();
  }

  /**
   * The liveness lock is held as `owner`: after a loss, keeps the keys nobody took meanwhile, drops
   * the others' queues, and reads what was skipped while no lock was held.
   */
  private async regained(owner: string, previous: string | null): Promise<void> {
    const held = await this.leases!.begin(owner, previous);
    // The workers and keys now, so takeovers take a fair share from the start (else one key per poll).
    await this.leases!.census().catch((err) => this.o.logger?.warn({ err }, 'counting webhook workers failed; counted again at the next sweep'));
    if (previous === null) return;
    for (const q of [...this.queues.queues.values()]) if (!held.has(leaseKeyOf(q.endpointId, q.orderingKey))) this.queues.dropQueue(q);
    setImmediate(() => {
      void this.loader.loadNew();
      void this.loader.rescan();
      this.leaseTask(() => this.loader.takeOverExpired());
      this.pump();
    });
  }

  /**
   * Many workers: endpoint changes made through another node's API (URL, credentials, back-online,
   * deletion) or judged by another worker (offline, suspended) reach this worker from the store.
   */
  private async refreshEndpoints(): Promise<void> {
    if (!this.running || this.endpoints.size === 0) return;
    try {
      const ids = [...this.endpoints.keys()];
      const stored = new Map((await ep.selectEndpointsByIds(this.o.store.db, ids)).map((e) => [e.id, e]));
      const now = this.o.clock.now();
      for (const id of ids) {
        const live = this.endpoints.get(id);
        if (!live) continue;
        const e = stored.get(id);
        if (!e) {
          this.forgetEndpoint(id);
          continue;
        }
        Object.assign(live, { url: e.url, token: e.token, secret: e.secret, previousSecret: e.previousSecret, previousSecretUntil: e.previousSecretUntil });
        // A newer status in the store was judged by another worker, or set through the API.
        if (e.statusUpdatedAt <= live.statusUpdatedAt) continue;
        const resumed = live.status === 'suspended' && e.status === 'online';
        Object.assign(live, { status: e.status, statusReason: e.statusReason, statusUpdatedAt: e.statusUpdatedAt, lastOnlineAt: e.lastOnlineAt, failedAttempts: e.failedAttempts });
        if (resumed) await this.resumeEndpoint(live, now);
      }
    } catch (err) {
      this.o.logger?.warn({ err }, 'reading webhook endpoints failed; retrying on the next refresh');
    }
  }

  /** Runs lease work in the background while running, where stop() can wait for it. */
  private leaseTask(work: () => Promise<unknown>): void {
    if (!this.running) return;
    const task: Promise<unknown> = work()
      .catch((err) => this.o.logger?.warn({ err }, 'webhook lease work failed'))
      .finally(() => this.leaseWork.delete(task));
    this.leaseWork.add(task);
  }

  /**
   * The sender thread when asked for and possible (an injected resolver is a function, which
   * cannot cross to a thread), else a sender in this thread.
   */
  private async startSender(): Promise<AttemptSender> {
    const options: SenderOptions = { ...this.o.sender, connectionsPerOrigin: this.o.perEndpointConcurrency };
    if (this.o.senderThread && !options.policy.resolve) {
      try {
        return await ThreadedSender.start(options, this.o.logger);
      } catch (err) {
        this.o.logger?.warn({ err }, 'webhook sender thread did not start; sending from the main thread');
      }
    }
    return new Sender(options);
  }

  /** Reads newly committed deliveries into memory (`committed`: the enqueue receipt's rows). */
  loadNew(committed?: readonly PendingDelivery[]): Promise<void> {
    return this.loader.loadNew(committed);
  }

  /** Waits until every outcome so far (and every changed endpoint) is in the store. */
  flushNow(): Promise<void> {
    return this.recorder.flushNow();
  }

  // ---- endpoint changes made through the engine ---------------------------------------------

  forgetEndpoint(id: number): void {
    this.endpoints.delete(id);
    this.endpointLatency.delete(id);
    this.recorder.forgetEndpoint(id);
    this.queues.dropEndpoint(id);
    this.waitingForSlot.delete(id);
  }

  /** Back-online: every head of the endpoint due now; the status is written with the next flush. */
  async resumeEndpoint(endpoint: Endpoint, now: number): Promise<void> {
    const live = this.endpoints.get(endpoint.id) ?? endpoint;
    this.endpoints.set(live.id, live);
    Object.assign(live, { status: 'online', statusReason: null, statusUpdatedAt: now, failedAttempts: 0 });
    // Every head is scheduled below: queues still waiting for a slot from before the suspension would
    // wait twice, and each stale turn would spend a freed slot on nothing (the worker then stalled).
    this.waitingForSlot.delete(live.id);
    for (const q of this.queues.queuesOf(live.id)) {
      const head = this.queues.headOf(q);
      if (head && !q.inFlight) {
        head.nextAttemptAt = now;
        this.queues.schedule(q, now);
      }
    }
    this.recorder.markEndpoint(live.id);
    await this.recorder.flushNow();
    this.pump();
  }

  // ---- sending -------------------------------------------------------------------------------

  /** Starts every due attempt the concurrency allows, then sleeps until the next one is due. */
  private pump(): void {
    // PostgreSQL: nothing starts while the liveness lock is not held (regained() pumps again).
    if (!this.running || (this.leases && (this.leases.owner === null || !this.liveness!.alive))) return;
    const now = this.o.clock.now();
    while (this.inFlightCount < this.o.concurrency) {
      const q = this.queues.popDue(now);
      if (!q) break;
      const endpoint = this.endpoints.get(q.endpointId);
      // Suspended endpoints keep their queues parked until back-online reschedules them.
      if (!endpoint || endpoint.status === 'suspended') continue;
      if ((this.endpointInFlight.get(endpoint.id) ?? 0) >= this.windowOf(endpoint.id)) {
        let waiting = this.waitingForSlot.get(endpoint.id);
        if (!waiting) this.waitingForSlot.set(endpoint.id, (waiting = []));
        waiting.push(q);
        continue;
      }
      // Being given away (rebalance): that drops the queue, or keeps it and schedules it again.
      if (this.leases) {
        const key = leaseKeyOf(q.endpointId, q.orderingKey);
        if (!this.leases.holds(key)) continue;
        this.sharing!.used(key);
      }
      const row = this.queues.headOf(q)!;
      q.inFlight = true;
      this.inFlightCount++;
      this.endpointInFlight.set(endpoint.id, (this.endpointInFlight.get(endpoint.id) ?? 0) + 1);
      const generation = this.generation;
      const done = (report: AttemptReport) => this.completed(q, row, endpoint, report, generation);
      try {
        this.sender!.send(endpoint, row, now, done);
      } catch (err) {
        queueMicrotask(() => done({ statusCode: null, error: (err as Error).message, retryAfterMs: null, latencyMs: 0, kind: 'network' }));
      }
    }
    this.armTimer(now);
  }

  /**
   * Attempts in flight to an endpoint: THREAD_WINDOW per connection to a quick one while the sender
   * thread runs; else one per connection, so none waits for one.
   */
  private windowOf(endpointId: number): number {
    const quick = (this.endpointLatency.get(endpointId) ?? QUICK_MS) < QUICK_MS && this.senderKind === 'thread';
    return quick ? THREAD_WINDOW * this.o.perEndpointConcurrency : this.o.perEndpointConcurrency;
  }

  private armTimer(now: number): void {
    // Every slot taken: the next completion pumps (a timer now would only wake to find none free).
    if (this.inFlightCount >= this.o.concurrency) return;
    const next = this.queues.nextDueAt();
    if (next === null || (this.timer && this.timer.at <= next)) return;
    this.timer?.cancel();
    const at = next;
    const cancel = this.o.clock.setTimeout(() => {
      if (this.timer?.at === at) this.timer = null;
      this.pump();
    }, Math.max(0, at - now));
    this.timer = { at, cancel };
  }

  /** One attempt's report: judge it, queue its recording, move the queue on. */
  private completed(q: Queue, row: PendingDelivery, endpoint: Endpoint, report: AttemptReport, generation: number): void {
    const now = this.o.clock.now();
    this.inFlightCount--;
    this.endpointInFlight.set(endpoint.id, (this.endpointInFlight.get(endpoint.id) ?? 1) - 1);
    q.inFlight = false;
    // Quick to notice a slowdown, slow to trust a recovery.
    const avg = this.endpointLatency.get(endpoint.id);
    const l = report.latencyMs;
    this.endpointLatency.set(endpoint.id, avg === undefined ? l : avg + (l - avg) / (l > avg ? 2 : 16));
    const live = this.endpoints.get(endpoint.id);
    const dropped = !this.queues.isLive(q);
    if (generation !== this.generation) {
      // Cut when the liveness lock was lost: no outcome; the row is sent again, by whoever holds its key.
      if (dropped) {
        this.queues.shift(q);
        this.queues.forget(row.id);
      } else this.queues.schedule(q, now);
    } else if (!live) {
      // Deleted while in flight: nothing left to record.
      this.queues.shift(q);
      this.queues.forget(row.id);
    } else if (report.kind === 'cancelled') {
      // Never sent (the receiver answered 410 to another attempt first): nothing to record; the head
      // waits for back-online, or goes again at once if its endpoint is not suspended.
      if (dropped) {
        this.queues.shift(q);
        this.queues.forget(row.id);
      } else if (live.status !== 'suspended') this.queues.schedule(q, now);
    } else if (dropped) {
      // Its lease was lost meanwhile: the outcome is recorded, the key is another worker's now.
      const result = judgeAttempt(live, row, report, now);
      this.recorder.record({ delivery: { ...row }, endpoint: live, result, at: now, attempts: row.attempts, statusCode: report.statusCode, error: report.error, latencyMs: report.latencyMs });
      this.queues.shift(q);
      if (result !== 'delivered' && result !== 'failed') this.queues.forget(row.id);
      this.recorder.flushSoon();
    } else {
      const firstAttempt = row.attempts === 0;
      const result = judgeAttempt(live, row, report, now);
      this.o.metrics?.attempt(result, report.latencyMs, firstAttempt ? now - row.createdAt : null);
      const delivery = result === 'delivered' ? row : { ...row };
      this.recorder.record({ delivery, endpoint: live, result, at: now, attempts: row.attempts, statusCode: report.statusCode, error: report.error, latencyMs: report.latencyMs });
      if (result === 'delivered' || result === 'failed') this.advance(q, now);
      else if (result === 'retrying') this.queues.schedule(q, row.nextAttemptAt);
      this.recorder.flushSoon();
    }
    // Every free slot (more than one when the endpoint just turned quick) goes to a waiting queue.
    const waiting = this.waitingForSlot.get(endpoint.id);
    let free = this.windowOf(endpoint.id) - (this.endpointInFlight.get(endpoint.id) ?? 0);
    while (waiting?.length && free-- > 0) this.queues.schedule(waiting.shift()!, now);
    if (this.loader.memoryFull && this.queues.size < this.o.memoryLimit / 2) void this.loader.loadNew();
    if (this.inFlightCount === 0 && this.drained) {
      this.drained();
      this.drained = null;
    }
    this.pump();
  }

  /** Moves a queue past its head; reloads the key's remaining rows when they were left in the store. */
  private advance(q: Queue, now: number): void {
    const state = this.queues.shift(q);
    if (state === 'more') this.queues.schedule(q, Math.max(now, this.queues.headOf(q)!.nextAttemptAt));
    else if (state === 'reload') void this.loader.reloadQueue(q);
  }

  private async prune(): Promise<void> {
    try {
      await outbox.pruneHistory(this.o.store.db, this.o.clock.now() - this.o.historyMs);
    } catch (err) {
      this.o.logger?.warn({ err }, 'pruning webhook history failed');
    }
  }
}
