// Expiry at date_expire, across restarts: one timer for the nearest date_expire of a pending
// invoice, rebuilt at start and moved when a sooner invoice is created. A sweep waits until the
// matcher has applied every event already in the log, so a payment that made it on chain in time
// is counted before its invoice can expire.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { StepFailures } from '../bus/leadership.js';
import type { Store } from '../store/db.js';
import { countEvents, queueWebhooks, saveInvoices, type InvoiceEvent, type LedgerDeps } from './ledger.js';
import { expire } from './state.js';
import { dueInvoices, nextExpiry, paymentsOf } from './store.js';

const SWEEP_BATCH = 500;
/** Longest single timer: long timers are re-armed (setTimeout's limit is ~24.8 days). */
const MAX_TIMER_MS = 60 * 60 * 1000;
/** How soon to look again while the matcher catches up. */
const CATCH_UP_RETRY_MS = 50;

export interface ExpiryDeps extends LedgerDeps {
  store: Store;
  logger?: Logger;
  /** Wall clock in ms. */
  now(): number;
  /** True when the matcher has applied everything the event log holds. */
  matcherCaughtUp(): boolean;
  /** Called after each committed sweep that changed invoices. */
  afterCommit?(events: InvoiceEvent[]): void;
  /** Checks in the sweep's transaction that this process still leads (a cluster's fence, EventLog.fence). */
  fence?(trx: Kysely<any>): Promise<void>;
}

export class ExpiryTimer {
  private timer: NodeJS.Timeout | null = null;
  /** Unix seconds the timer is armed for. */
  private armedFor: number | null = null;
  private running = false;
  private sweeping: Promise<void> | null = null;
  private readonly failures: StepFailures;

  constructor(private readonly deps: ExpiryDeps) {
    this.failures = new StepFailures(deps.logger, 'invoice expiry sweep');
  }

  async start(): Promise<void> {
    this.running = true;
    await this.sweepNow();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.disarm();
    await this.sweeping?.catch(() => {});
  }

  /** A new pending invoice expires at `dateExpire`: fire sooner if that is the nearest. */
  invoiceCreated(dateExpire: number): void {
    if (!this.running) return;
    if (this.armedFor === null || dateExpire < this.armedFor) this.arm(dateExpire);
  }

  /** Expires what is due now and re-arms for the next; concurrent calls share one sweep. */
  sweepNow(): Promise<void> {
    this.sweeping ??= this.sweep().finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async sweep(): Promise<void> {
    if (!this.running) return;
    this.disarm();
    try {
      if (!this.deps.matcherCaughtUp()) {
        this.armIn(CATCH_UP_RETRY_MS);
        return;
      }
      for (;;) {
        const nowSec = Math.floor(this.deps.now() / 1000);
        const events = await this.deps.store.db.transaction().execute(async (trx) => {
          // a deposed leader's sweep rolls back: the new leader's expires the same invoices
          await this.deps.fence?.(trx);
          const due = await dueInvoices(trx, nowSec, SWEEP_BATCH);
          if (due.length === 0) return [];
          const payments = await paymentsOf(trx, due.map((i) => i.id));
          const out: InvoiceEvent[] = [];
          for (const inv of due) {
            for (const e of expire(inv, nowSec).events) out.push({ ...e, payments: payments.get(inv.id) ?? [] });
          }
          await saveInvoices(trx, out.map((e) => e.invoice));
          await queueWebhooks(trx, this.deps, out);
          return out;
        });
        if (events.length === 0) break;
        countEvents(this.deps.metrics, events);
        this.deps.logger?.info({ expired: events.length }, 'invoices expired');
        this.deps.afterCommit?.(events);
        if (events.length < SWEEP_BATCH) break;
      }
      this.failures.succeeded();
      const next = await nextExpiry(this.deps.store.db);
      if (next !== null && this.running) this.arm(next);
    } catch (err) {
      this.failures.failed(err, {}, 'invoice expiry sweep failed; retrying in 1 s');
      if (this.running) this.armIn(1000);
    }
  }

  private arm(dateExpire: number): void {
    this.disarm();
    this.armedFor = dateExpire;
    this.schedule(Math.max(0, dateExpire * 1000 - this.deps.now()));
  }

  private armIn(ms: number): void {
    this.disarm();
    this.armedFor = Math.floor((this.deps.now() + ms) / 1000);
    this.schedule(ms);
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => void this.sweepNow(), Math.min(ms, MAX_TIMER_MS));
    this.timer.unref?.();
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = null;
  }
}
