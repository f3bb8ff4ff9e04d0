// Writing invoice changes and the webhooks they cause, inside the caller's transaction (the
// matcher's batch, a cancel, an expiry sweep): one delivery per event and per endpoint of the
// application, whose body is the invoice JSON exactly as GET returned it at that moment.
import type { Kysely } from 'kysely';
import type { DeliveryEngine, DeliveryIntent } from '../delivery/index.js';
import type { AppDirectory } from './directory.js';
import type { InvoiceMetrics } from './metrics.js';
import { invoiceJson, type Invoice, type InvoiceEventType, type Payment } from './model.js';
import { chunks, invoiceDb, invoiceRow, paymentRow } from './tables.js';
import type { DetectedJson } from './wire.js';

export interface InvoiceEvent {
  type: InvoiceEventType;
  invoice: Invoice;
  /** The invoice's payments at that moment. */
  payments: readonly Payment[];
  /** `invoice.detected`: the payment seen before it is final, added to the body. */
  detected?: DetectedJson;
}

export interface LedgerDeps {
  engine: DeliveryEngine;
  directory: AppDirectory;
  metrics?: InvoiceMetrics;
}

/**
 * Saves the invoices' mutable columns. The rows exist, so a multi-row upsert updates them all in
 * one statement per chunk (both dialects), where an UPDATE each would cost a round trip per invoice.
 */
export async function saveInvoices(db: Kysely<any>, invoices: Iterable<Invoice>): Promise<void> {
  for (const part of chunks([...invoices], 100)) {
    await invoiceDb(db)
      .insertInto('invoices')
      .values(part.map(invoiceRow))
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          status: eb.ref('excluded.status'),
          date_change: eb.ref('excluded.date_change'),
          date_paid: eb.ref('excluded.date_paid'),
          paid_by: eb.ref('excluded.paid_by'),
          paid_total: eb.ref('excluded.paid_total'),
          overpayment: eb.ref('excluded.overpayment'),
        })),
      )
      .execute();
  }
}

export async function insertPayments(db: Kysely<any>, payments: readonly Payment[], now: number): Promise<void> {
  for (const part of chunks(payments, 200)) {
    await invoiceDb(db).insertInto('invoice_payments').values(part.map((p) => paymentRow(p, now))).execute();
  }
}

/** Queues the webhooks of `events`; call `engine.notify()` after the transaction commits. */
export async function queueWebhooks(db: Kysely<any>, deps: LedgerDeps, events: readonly InvoiceEvent[]): Promise<number> {
  const intents: DeliveryIntent[] = [];
  for (const e of events) {
    const endpoints = deps.directory.endpointsOf(e.invoice.appId);
    if (endpoints.length === 0) continue;
    const body = JSON.stringify({ ...invoiceJson(e.invoice, e.payments), ...(e.detected ? { detected: e.detected } : {}) });
    for (const endpointId of endpoints) {
      // one invoice's webhooks reach each endpoint in the order they happened
      intents.push({ endpointId, orderingKey: `invoice:${e.invoice.id}`, eventType: e.type, body });
    }
    deps.metrics?.webhooks.inc({ event: e.type });
  }
  await deps.engine.enqueue(db, intents);
  return intents.length;
}

/** Counts state changes in the metrics. */
export function countEvents(metrics: InvoiceMetrics | undefined, events: readonly InvoiceEvent[]): void {
  if (!metrics) return;
  for (const e of events) {
    const currency = e.invoice.currency;
    if (e.type === 'invoice.paid') metrics.paid.inc({ currency });
    else if (e.type === 'invoice.expired') metrics.expired.inc({ currency });
    else if (e.type === 'invoice.cancelled') metrics.cancelled.inc({ currency });
  }
}
