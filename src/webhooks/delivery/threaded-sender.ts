// The Sender in a worker thread: signing, request writes and response parsing leave the main
// thread, which keeps the queues and the store (docs/WEBHOOKS.md, "Where the time goes"). Attempts
// and reports cross in batches, one message per event-loop turn each way. If the thread dies, the
// attempts it held are reported as network failures (the worker retries them) and sending goes on
// in this thread.
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { Sender, type AttemptDelivery, type AttemptEndpoint, type AttemptReport, type AttemptSender, type SenderOptions } from './sender.js';

/**
 * Attempts as they cross to the thread, flattened (a structured clone writes every object's
 * property names): ATTEMPT_FIELDS values per attempt. An endpoint crosses once, as a numbered slot,
 * and again only when it changed (a rotated secret).
 */
export type ToThread =
  | { type: 'attempts'; reset: boolean; endpoints: Array<number | AttemptEndpoint>; attempts: Array<number | string> }
  | { type: 'close' };
/** Attempt id, endpoint slot, webhook-id, event type, body, time of the attempt (ms). */
export const ATTEMPT_FIELDS = 6;
/** Reports, flattened likewise: attempt id, status code, latency, kind, error, retry-after (ms). */
export type FromThread = { type: 'ready' } | { type: 'closed' } | { type: 'reports'; reports: Array<number | string | null> };
export const REPORT_FIELDS = 6;
/** Endpoint slots before the thread's table is cleared and refilled (endpoint objects come and go). */
const SLOT_LIMIT = 10_000;

type Done = (report: AttemptReport) => void;

/** Where the thread's entry is: the TypeScript sources need tsx's loader registered first. */
function threadEntry(): URL {
  return import.meta.url.endsWith('.ts') ? new URL('./sender-thread-boot.mjs', import.meta.url) : new URL('./sender-thread.js', import.meta.url);
}

export class ThreadedSender implements AttemptSender {
  private worker: Worker | null;
  /** Attempts handed to the thread and not yet reported, by attempt id. */
  private readonly pending = new Map<number, Done>();
  private outgoing: Array<number | string> = [];
  /** Endpoints (re)sent with the next batch, as [slot, endpoint, …]. */
  private outgoingEndpoints: Array<number | AttemptEndpoint> = [];
  /** Each endpoint object's slot and the fields last sent for it. */
  private slots = new WeakMap<AttemptEndpoint, { slot: number; sent: AttemptEndpoint | null }>();
  private nextSlot = 1;
  private resetSlots = false;
  private nextId = 1;
  private flushQueued = false;
  private closing: (() => void) | null = null;
  /** Takes over when the thread is gone. */
  private fallback: Sender | null = null;

  private constructor(
    private readonly options: SenderOptions,
    worker: Worker,
    private readonly logger?: Logger,
  ) {
    this.worker = worker;
    worker.on('message', (m: FromThread) => this.onMessage(m));
    worker.on('error', (err) => this.lost(err));
    worker.on('exit', (code) => this.lost(new Error(`sender thread exited with code ${code}`)));
    // Attempts in flight must not keep the process alive: they stay pending in the store.
    worker.unref();
  }

  /** Starts the thread and waits until it can take attempts. */
  static async start(options: SenderOptions, logger?: Logger): Promise<ThreadedSender> {
    const worker = new Worker(threadEntry(), { workerData: options, name: 'webhook-sender' });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: FromThread) => {
        if (m.type !== 'ready') return;
        cleanup();
        resolve();
      };
      const onError = (err: Error) => {
        cleanup();
        reject(err);
      };
      const onExit = (code: number) => onError(new Error(`sender thread exited with code ${code} while starting`));
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
    return new ThreadedSender(options, worker, logger);
  }

  /** False once the thread is gone and attempts are sent from this thread. */
  get inThread(): boolean {
    return this.worker !== null;
  }

  /** Stops the thread abruptly, as a crash would (tests). */
  async kill(): Promise<void> {
    await this.worker?.terminate();
  }

  send(endpoint: AttemptEndpoint, delivery: AttemptDelivery, nowMs: number, done: Done): void {
    if (!this.worker) return this.inThisThread().send(endpoint, delivery, nowMs, done);
    const id = this.nextId++;
    this.pending.set(id, done);
    this.outgoing.push(id, this.slotOf(endpoint), delivery.messageId, delivery.eventType, delivery.body, nowMs);
    if (!this.flushQueued) {
      this.flushQueued = true;
      // After the current pump: every attempt it starts goes in one message.
      queueMicrotask(() => this.flush());
    }
  }

  /** The endpoint's slot in the thread; its fields go along when the thread does not have them yet. */
  private slotOf(e: AttemptEndpoint): number {
    let s = this.slots.get(e);
    if (!s) this.slots.set(e, (s = { slot: this.nextSlot++, sent: null }));
    const sent = s.sent;
    if (!sent || sent.url !== e.url || sent.token !== e.token || sent.secret !== e.secret || sent.previousSecret !== e.previousSecret || sent.previousSecretUntil !== e.previousSecretUntil) {
      s.sent = { url: e.url, token: e.token, secret: e.secret, previousSecret: e.previousSecret, previousSecretUntil: e.previousSecretUntil };
      this.outgoingEndpoints.push(s.slot, s.sent);
    }
    return s.slot;
  }

  private flush(): void {
    this.flushQueued = false;
    const attempts = this.outgoing;
    if (attempts.length === 0) return;
    this.worker?.postMessage({ type: 'attempts', reset: this.resetSlots, endpoints: this.outgoingEndpoints, attempts } satisfies ToThread);
    this.outgoing = [];
    this.outgoingEndpoints = [];
    this.resetSlots = false;
    // Between batches, so no attempt refers to a slot from before the reset.
    if (this.nextSlot > SLOT_LIMIT) {
      this.slots = new WeakMap();
      this.nextSlot = 1;
      this.resetSlots = true;
    }
  }

  private onMessage(m: FromThread): void {
    if (m.type === 'reports') {
      const r = m.reports;
      for (let i = 0; i < r.length; i += REPORT_FIELDS) {
        const id = r[i] as number;
        const done = this.pending.get(id);
        if (!done) continue;
        this.pending.delete(id);
        done({ statusCode: r[i + 1] as number | null, latencyMs: r[i + 2] as number, kind: r[i + 3] as AttemptReport['kind'], error: r[i + 4] as string | null, retryAfterMs: r[i + 5] as number | null });
      }
    } else if (m.type === 'closed') this.closing?.();
  }

  /** The thread is gone: its attempts failed (they are retried), later ones are sent from here. */
  private lost(err: Error): void {
    if (!this.worker) return;
    this.worker = null;
    const expected = this.closing !== null;
    if (!expected) this.logger?.error({ err }, 'webhook sender thread stopped; sending from the main thread');
    const waiting = [...this.pending.values()];
    this.pending.clear();
    this.outgoing = [];
    this.outgoingEndpoints = [];
    for (const done of waiting) done({ statusCode: null, error: `sender thread stopped: ${err.message}`, retryAfterMs: null, latencyMs: 0, kind: 'network' });
    this.closing?.();
  }

  private inThisThread(): Sender {
    return (this.fallback ??= new Sender(this.options));
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (worker) {
      this.flush();
      await new Promise<void>((resolve) => {
        this.closing = resolve;
        worker.postMessage({ type: 'close' } satisfies ToThread);
      });
      this.worker = null;
      await worker.terminate();
    }
    await this.fallback?.close();
  }
}
