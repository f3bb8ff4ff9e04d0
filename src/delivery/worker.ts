// The delivery worker: keeps the pending outbox in memory as per-key FIFO queues (queues.ts),
// sends the heads that are due with bounded concurrency, and records outcomes in batched
// transactions together with the producers' hooks. One worker per process; the store stays the
// truth — a delivery is pending until its outcome is recorded, so a crash only repeats attempts.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { toNum, type Store } from '../store/db.js';
import * as ep from './endpoints.js';
import { judgeAttempt } from './judge.js';
import type { DeliveryMetrics } from './metrics.js';
import * as outbox from './outbox.js';
import { DeliveryQueues, type Queue } from './queues.js';
import { Sender, type AttemptReport, type AttemptSender, type SenderOptions } from './sender.js';
import { ThreadedSender } from './threaded-sender.js';
import { deliveryDb } from './tables.js';
import type { Clock, DeliveryHooks, DeliveryOutcome, Endpoint, PendingDelivery } from './types.js';

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
}

/** Rows per outbox read: each read blocks the event loop, so a few ms at most. */
const LOAD_BATCH = 1000;
/**
 * With the sender thread, attempts in flight to a quickly answering endpoint, as a multiple of its
 * connections: the thread keeps the extra ones queued, so it has work while this thread is busy
 * with a store commit and has not yet handed it the next attempts.
 */
const THREAD_WINDOW = 8;
/** Answers faster than this on average (EWMA of attempt latency) count as quick. */
const QUICK_MS = 100;
/** Ids per page of the PostgreSQL rescan. */
const RESCAN_PAGE = 10_000;
/** Outcomes are recorded at most this long after they happen, or at once when this many wait: fewer,
 * larger commits rewrite each outbox page once per batch (10 ms batches cost ~1.6× the CPU per delivery). */
const FLUSH_DELAY_MS = 50;
const FLUSH_MAX = 2000;

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
  private loadedUpTo = 0;
  private loading: Promise<void> | null = null;
  private loadAgain = false;
  private memoryFull = false;
  private completions: DeliveryOutcome[] = [];
  private readonly dirty = new Set<number>();
  private flushing: Promise<boolean> | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  private timer: { at: number; cancel: () => void } | null = null;
  private intervals: NodeJS.Timeout[] = [];
  private readonly rescanFloors: number[] = [];
  /** Flagging of parked rows (queues.ts), one batch after another. */
  private parking: Promise<void> = Promise.resolve();

  constructor(private readonly o: WorkerOptions) {
    this.queues = new DeliveryQueues(o.perKeyLimit);
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

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.sender = await this.startSender();
    await this.loadNew();
    const every = (ms: number, fn: () => void) => {
      const t = setInterval(fn, ms);
      t.unref();
      this.intervals.push(t);
    };
    every(this.o.pollIntervalMs, () => void this.loadNew());
    every(10 * 60_000, () => void this.prune());
    // PostgreSQL ids can commit out of order: re-read the last ~30 s of ids for late commits.
    if (this.o.store.dialect === 'postgres') every(5000, () => void this.rescan());
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const t of this.intervals) clearInterval(t);
    this.intervals = [];
    this.timer?.cancel();
    this.timer = null;
    await this.loading;
    if (this.inFlightCount > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    await this.flushNow();
    await this.sender?.close();
    this.sender = null;
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

  /**
   * Reads newly committed pending deliveries into memory. `committed`: rows a producer has just
   * committed (its enqueue receipt); taken as they are when they are exactly the next ids, else read.
   */
  loadNew(committed?: readonly PendingDelivery[]): Promise<void> {
    if (this.loading) {
      this.loadAgain = true;
      return this.loading;
    }
    let handed = committed && this.followOn(committed) ? committed : null;
    this.loading = (async () => {
      try {
        do {
          this.loadAgain = false;
          this.memoryFull = this.queues.size >= this.o.memoryLimit;
          if (!this.running || this.memoryFull) break;
          const rows = handed ?? (await outbox.pendingAfter(this.o.store.db, this.loadedUpTo, LOAD_BATCH));
          if (rows.length === 0) break;
          await this.admit(rows);
          this.loadedUpTo = Math.max(this.loadedUpTo, rows[rows.length - 1]!.id);
          if (rows.length === LOAD_BATCH && !handed) this.loadAgain = true;
          handed = null;
          this.pump();
        } while (this.loadAgain);
      } catch (err) {
        this.o.logger?.error({ err }, 'webhook outbox read failed; retrying on the next poll');
      } finally {
        this.loading = null;
      }
    })();
    return this.loading;
  }

  /** Whether `rows` are the ids right after those already loaded, in order and without a gap. */
  private followOn(rows: readonly PendingDelivery[]): boolean {
    if (rows.length === 0 || rows[0]!.id !== this.loadedUpTo + 1) return false;
    for (let i = 1; i < rows.length; i++) if (rows[i]!.id !== rows[i - 1]!.id + 1) return false;
    return true;
  }

  // ---- endpoint changes made through the engine ---------------------------------------------

  forgetEndpoint(id: number): void {
    this.endpoints.delete(id);
    this.endpointLatency.delete(id);
    this.dirty.delete(id);
    this.queues.dropEndpoint(id);
    this.waitingForSlot.delete(id);
  }

  /** Back-online: every head of the endpoint due now; the status is written with the next flush. */
  async resumeEndpoint(endpoint: Endpoint, now: number): Promise<void> {
    const live = this.endpoints.get(endpoint.id) ?? endpoint;
    this.endpoints.set(live.id, live);
    Object.assign(live, { status: 'online', statusReason: null, statusUpdatedAt: now, failedAttempts: 0 });
    for (const q of this.queues.queuesOf(live.id)) {
      const head = this.queues.headOf(q);
      if (head && !q.inFlight) {
        head.nextAttemptAt = now;
        this.queues.schedule(q, now);
      }
    }
    this.dirty.add(live.id);
    await this.flushNow();
    this.pump();
  }

  // ---- loading -------------------------------------------------------------------------------

  private async rescan(): Promise<void> {
    this.rescanFloors.push(this.loadedUpTo);
    const floor = this.rescanFloors.length > 6 ? this.rescanFloors.shift()! : 0;
    try {
      // Ids first, through the whole range (late rows may sit behind many known pending ones);
      // only the unknown rows are read whole.
      for (let after = floor, upTo = this.loadedUpTo; ; ) {
        const ids = await outbox.pendingIdsBetween(this.o.store.db, after, upTo, RESCAN_PAGE);
        const unknown = ids.filter((id) => !this.queues.known.has(id));
        if (unknown.length > 0) await this.admit(await outbox.pendingByIds(this.o.store.db, unknown));
        if (ids.length < RESCAN_PAGE) break;
        after = ids[ids.length - 1]!;
      }
      this.pump();
    } catch (err) {
      this.o.logger?.warn({ err }, 'webhook outbox rescan failed');
    }
  }

  /** Adds rows to the queues, loading their endpoints; rows of deleted endpoints are removed. */
  private async admit(rows: readonly PendingDelivery[]): Promise<void> {
    const unknown = rows.some((r) => !this.endpoints.has(r.endpointId)) ? [...new Set(rows.map((r) => r.endpointId).filter((id) => !this.endpoints.has(id)))] : [];
    if (unknown.length > 0) {
      const found = await deliveryDb(this.o.store.db).selectFrom('delivery_endpoints').select('id').where('id', 'in', unknown.map(BigInt)).execute();
      for (const { id } of found) {
        const e = await ep.selectEndpoint(this.o.store.db, toNum(id));
        if (e && !this.endpoints.has(e.id)) this.endpoints.set(e.id, e);
      }
      const orphans = rows.filter((r) => !this.endpoints.has(r.endpointId)).map((r) => r.id);
      if (orphans.length > 0) await outbox.deleteDeliveries(this.o.store.db, orphans);
    }
    for (const row of rows) if (this.endpoints.has(row.endpointId)) this.queues.add(row);
    this.flagParked();
  }

  /** Flags the rows just left in the store (over their key's memory cap) for the key's reload. */
  private flagParked(): void {
    const ids = this.queues.takeParked();
    if (ids.length === 0) return;
    this.parking = this.parking.then(async () => {
      for (;;) {
        try {
          return await outbox.markParked(this.o.store.db, ids);
        } catch (err) {
          // Unflagged rows would be missed by the reload: try until it works (a restart reads them anyway).
          this.o.logger?.error({ err }, 'flagging parked webhook deliveries failed; retrying');
          if (!this.running) return;
          await new Promise((resolve) => setTimeout(resolve, 500).unref());
        }
      }
    });
  }

  /** Reads back a drained truncated queue's next rows from the store. */
  private async reloadQueue(q: Queue): Promise<void> {
    try {
      for (let state: ReturnType<DeliveryQueues['unpark']> = 'reload'; state === 'reload' && this.running; ) {
        // Every row parked so far is flagged before the read, so the read finds them all.
        for (let p = this.parking; ; p = this.parking) {
          await p;
          if (p === this.parking) break;
        }
        // Its endpoint deleted meanwhile (a retry after a failed read may come after that).
        if (this.queues.queues.get(q.key) !== q || q.truncatedAfter === null) return;
        const parkedBefore = q.parkedRows;
        const rows = await outbox.parkedOfKey(this.o.store.db, q.endpointId, q.orderingKey!, q.truncatedAfter!, this.o.perKeyLimit);
        if (this.queues.queues.get(q.key) !== q) return;
        // All read, and none parked while reading: the key's later rows can join the queue again.
        state = this.queues.unpark(q, rows, rows.length < this.o.perKeyLimit && q.parkedRows === parkedBefore);
      }
    } catch (err) {
      this.o.logger?.error({ err }, 'webhook queue reload failed; retrying');
      setTimeout(() => void this.reloadQueue(q), 1000).unref();
    }
    this.pump();
  }

  // ---- sending -------------------------------------------------------------------------------

  /** Starts every due attempt the concurrency allows, then sleeps until the next one is due. */
  private pump(): void {
    if (!this.running) return;
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
      const row = this.queues.headOf(q)!;
      q.inFlight = true;
      this.inFlightCount++;
      this.endpointInFlight.set(endpoint.id, (this.endpointInFlight.get(endpoint.id) ?? 0) + 1);
      const done = (report: AttemptReport) => this.completed(q, row, endpoint, report);
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
  private completed(q: Queue, row: PendingDelivery, endpoint: Endpoint, report: AttemptReport): void {
    const now = this.o.clock.now();
    this.inFlightCount--;
    this.endpointInFlight.set(endpoint.id, (this.endpointInFlight.get(endpoint.id) ?? 1) - 1);
    q.inFlight = false;
    // Quick to notice a slowdown, slow to trust a recovery.
    const avg = this.endpointLatency.get(endpoint.id);
    const l = report.latencyMs;
    this.endpointLatency.set(endpoint.id, avg === undefined ? l : avg + (l - avg) / (l > avg ? 2 : 16));
    const live = this.endpoints.get(endpoint.id);
    if (!live) {
      // Deleted while in flight: nothing left to record.
      this.queues.shift(q);
      this.queues.forget(row.id);
    } else {
      const firstAttempt = row.attempts === 0;
      const result = judgeAttempt(live, row, report, now);
      this.o.metrics?.attempt(result, report.latencyMs, firstAttempt ? now - row.createdAt : null);
      const delivery = result === 'delivered' ? row : { ...row };
      this.completions.push({ delivery, endpoint: live, result, at: now, attempts: row.attempts, statusCode: report.statusCode, error: report.error, latencyMs: report.latencyMs });
      this.dirty.add(live.id);
      if (result === 'delivered' || result === 'failed') this.advance(q, now);
      else if (result === 'retrying') this.queues.schedule(q, row.nextAttemptAt);
      this.flushSoon();
    }
    // Every free slot (more than one when the endpoint just turned quick) goes to a waiting queue.
    const waiting = this.waitingForSlot.get(endpoint.id);
    let free = this.windowOf(endpoint.id) - (this.endpointInFlight.get(endpoint.id) ?? 0);
    while (waiting?.length && free-- > 0) this.queues.schedule(waiting.shift()!, now);
    if (this.memoryFull && this.queues.size < this.o.memoryLimit / 2) void this.loadNew();
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
    else if (state === 'reload') void this.reloadQueue(q);
  }

  // ---- recording outcomes --------------------------------------------------------------------

  /**
   * Records outcomes in batches: a short wait gathers many into one transaction (SQLite commits
   * block the event loop, so one per delivery would cap throughput). Sending does not wait for it.
   */
  private flushSoon(): void {
    if (this.flushing || this.flushTimer) return;
    if (this.completions.length >= FLUSH_MAX) {
      this.flushing = this.flushOnce();
      return;
    }
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      this.flushing ??= this.flushOnce();
    }, FLUSH_DELAY_MS);
  }

  /** Waits until every outcome so far (and every changed endpoint) is in the store (gives up after 3 failed tries). */
  async flushNow(): Promise<void> {
    for (let tries = 0; tries < 3; ) {
      if (this.flushTimer) {
        clearTimeout(this.flushTimer);
        this.flushTimer = null;
      }
      if (this.flushing) {
        await this.flushing;
        continue;
      }
      if (this.completions.length === 0 && this.dirty.size === 0) return;
      this.flushing = this.flushOnce();
      if (!(await this.flushing)) tries++;
    }
  }

  /** Records the waiting outcomes in one transaction; false (and they stay waiting) when it failed. */
  private async flushOnce(): Promise<boolean> {
    const batch = this.completions;
    this.completions = [];
    const dirty = [...this.dirty];
    this.dirty.clear();
    let ok = true;
    try {
      await this.o.store.db.transaction().execute(async (trx) => {
        await outbox.recordOutcomes(trx, batch, this.o.clock.now());
        for (const id of dirty) {
          const e = this.endpoints.get(id);
          if (e) await ep.saveEndpointStatus(trx, e);
        }
        await this.runHooks(trx, batch);
      });
      for (const o of batch) if (o.result === 'delivered' || o.result === 'failed') this.queues.forget(o.delivery.id);
    } catch (err) {
      ok = false;
      this.o.logger?.error({ err }, 'recording webhook outcomes failed; retrying');
      this.completions = [...batch, ...this.completions];
      for (const id of dirty) this.dirty.add(id);
    } finally {
      this.flushing = null;
    }
    if (this.running && (this.completions.length > 0 || this.dirty.size > 0)) {
      if (ok) this.flushSoon();
      else setTimeout(() => this.flushSoon(), 500).unref();
    }
    return ok;
  }

  private async runHooks(trx: Kysely<any>, batch: DeliveryOutcome[]): Promise<void> {
    const byProducer = new Map<string, DeliveryOutcome[]>();
    for (const o of batch) {
      let list = byProducer.get(o.endpoint.producer);
      if (!list) byProducer.set(o.endpoint.producer, (list = []));
      list.push(o);
    }
    for (const [producer, list] of byProducer) await this.o.hooks.get(producer)?.onOutcomes?.(trx, list);
  }

  private async prune(): Promise<void> {
    try {
      await outbox.pruneHistory(this.o.store.db, this.o.clock.now() - this.o.historyMs);
    } catch (err) {
      this.o.logger?.warn({ err }, 'pruning webhook history failed');
    }
  }
}
