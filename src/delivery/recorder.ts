// Recording delivery outcomes: the worker hands over each judged attempt and each endpoint whose
// status changed; they commit in batched transactions together with the producers' hooks, and a
// delivered or failed row leaves memory only once that is recorded (a crash repeats, never loses).
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../store/db.js';
import * as ep from './endpoints.js';
import * as outbox from './outbox.js';
import type { DeliveryQueues } from './queues.js';
import type { Clock, DeliveryHooks, DeliveryOutcome, Endpoint } from './types.js';

/** Outcomes are recorded at most this long after they happen, or at once when this many wait: fewer,
 * larger commits rewrite each outbox page once per batch (10 ms batches cost ~1.6× the CPU per delivery). */
const FLUSH_DELAY_MS = 50;
const FLUSH_MAX = 2000;

export interface RecorderOptions {
  store: Store;
  clock: Clock;
  logger?: Logger;
  hooks: ReadonlyMap<string, DeliveryHooks>;
  /** The worker's live endpoints, whose status is saved when marked. */
  endpoints: ReadonlyMap<number, Endpoint>;
  queues: DeliveryQueues;
  isRunning(): boolean;
}

export class OutcomeRecorder {
  private completions: DeliveryOutcome[] = [];
  private readonly dirty = new Set<number>();
  private flushing: Promise<boolean> | null = null;
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(private readonly o: RecorderOptions) {}

  /** An attempt's outcome, written with the next flush (call flushSoon after moving its queue on). */
  record(outcome: DeliveryOutcome): void {
    this.completions.push(outcome);
    this.dirty.add(outcome.endpoint.id);
  }

  /** An endpoint whose status changed, saved with the next flush. */
  markEndpoint(id: number): void {
    this.dirty.add(id);
  }

  /** A deleted endpoint: nothing of it is saved any more. */
  forgetEndpoint(id: number): void {
    this.dirty.delete(id);
  }

  /**
   * Records outcomes in batches: a short wait gathers many into one transaction (SQLite commits
   * block the event loop, so one per delivery would cap throughput). Sending does not wait for it.
   */
  flushSoon(): void {
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
          const e = this.o.endpoints.get(id);
          if (e) await ep.saveEndpointStatus(trx, e);
        }
        await this.runHooks(trx, batch);
      });
      for (const o of batch) if (o.result === 'delivered' || o.result === 'failed') this.o.queues.forget(o.delivery.id);
    } catch (err) {
      ok = false;
      this.o.logger?.error({ err }, 'recording webhook outcomes failed; retrying');
      this.completions = [...batch, ...this.completions];
      for (const id of dirty) this.dirty.add(id);
    } finally {
      this.flushing = null;
    }
    if (this.o.isRunning() && (this.completions.length > 0 || this.dirty.size > 0)) {
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
}
