// The Sender's sockets in a worker thread: requests are built and signed here, on the thread that
// keeps the queues and the store, and the thread only writes them and reads the answers
// (docs/WEBHOOKS.md, "Sender thread"). Attempts and reports cross in batches, one message per
// event-loop turn each way. If the thread dies, the attempts it held are reported as network
// failures (the worker retries them) and sending goes on in this thread.
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { buildRequest, refuse, requestLine, Sender, type AttemptDelivery, type AttemptEndpoint, type AttemptReport, type AttemptSender, type SenderOptions } from './sender.js';

/**
 * Attempts as they cross to the thread: built whole here (headers, signature, body), so the thread
 * only writes and reads sockets, the loop the receiver waits on. Flattened (a structured clone
 * writes every object's property names): ATTEMPT_FIELDS values per attempt. An endpoint's URL
 * crosses once, as a numbered slot, and again only when it changed.
 */
export type ToThread =
  | { type: 'attempts'; reset: boolean; urls: Array<number | string>; attempts: Array<number | string> }
  // One per 410 report, in the order they came: the attempts made before it was heard end at `upTo`.
  | { type: 'gone-heard'; upTo: number }
  | { type: 'abort' }
  | { type: 'close' };
/** Attempt id, endpoint slot, request (head and body), time of the attempt (ms). */
export const ATTEMPT_FIELDS = 4;
/** Reports, flattened likewise: attempt id, status code, latency, kind, error, retry-after (ms). */
export type FromThread = { type: 'ready' } | { type: 'closed' } | { type: 'reports'; reports: Array<number | string | null> };
export const REPORT_FIELDS = 6;
/** Endpoint slots before the thread's table is cleared and refilled (endpoint objects come and go). */
const SLOT_LIMIT = 10_000;

interface Slot {
  slot: number;
  url: string;
  /** The endpoint's request line and Host header. */
  line: string;
}

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
  /** URLs (re)sent with the next batch, as [slot, url, …]. */
  private outgoingUrls: Array<number | string> = [];
  /** Each endpoint object's slot and the URL last sent for it. */
  private slots = new WeakMap<AttemptEndpoint, Slot>();
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
    const slot = this.slotOf(endpoint);
    const request = buildRequest(slot.line, endpoint, delivery, nowMs, this.options.userAgent);
    if (typeof request !== 'string') return refuse(done, request.refused);
    const id = this.nextId++;
    this.pending.set(id, done);
    this.outgoing.push(id, slot.slot, request, nowMs);
    if (!this.flushQueued) {
      this.flushQueued = true;
      // After the current pump: every attempt it starts goes in one message.
      queueMicrotask(() => this.flush());
    }
  }

  /** The endpoint's slot in the thread; its URL goes along when the thread does not have it yet. */
  private slotOf(e: AttemptEndpoint): Slot {
    let s = this.slots.get(e);
    if (!s || s.url !== e.url) {
      s = { slot: s?.slot ?? this.nextSlot++, url: e.url, line: requestLine(new URL(e.url)) };
      this.slots.set(e, s);
      this.outgoingUrls.push(s.slot, s.url);
    }
    return s;
  }

  private flush(): void {
    this.flushQueued = false;
    const attempts = this.outgoing;
    if (attempts.length === 0) return;
    this.worker?.postMessage({ type: 'attempts', reset: this.resetSlots, urls: this.outgoingUrls, attempts } satisfies ToThread);
    this.outgoing = [];
    this.outgoingUrls = [];
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
      let gone = 0;
      for (let i = 0; i < r.length; i += REPORT_FIELDS) {
        const id = r[i] as number;
        if (r[i + 1] === 410) gone++;
        const done = this.pending.get(id);
        if (!done) continue;
        this.pending.delete(id);
        done({ statusCode: r[i + 1] as number | null, latencyMs: r[i + 2] as number, kind: r[i + 3] as AttemptReport['kind'], error: r[i + 4] as string | null, retryAfterMs: r[i + 5] as number | null });
      }
      // The thread stops a 410'd endpoint's attempts until told which ones were made before the
      // 410 was heard here (its endpoint is suspended now): those already made go first.
      if (gone > 0 && this.worker) {
        this.flush();
        for (let i = 0; i < gone; i++) this.worker.postMessage({ type: 'gone-heard', upTo: this.nextId - 1 } satisfies ToThread);
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
    this.outgoingUrls = [];
    for (const done of waiting) done({ statusCode: null, error: `sender thread stopped: ${err.message}`, retryAfterMs: null, latencyMs: 0, kind: 'network' });
    this.closing?.();
  }

  abort(): void {
    // Attempts not handed over yet go first, so the thread cuts them too.
    this.flush();
    this.worker?.postMessage({ type: 'abort' } satisfies ToThread);
    this.fallback?.abort();
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
