// The durable consumer that turns finalized transactions into invoice payments: for each block it
// recognises payments (payments.ts), applies them through the state machine (state.ts), and writes
// the invoices, their payments and the webhooks they cause in the consumer's own transaction.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { EventBatch } from '../bus/events.js';
import type { AppDirectory } from './directory.js';
import { countEvents, insertPayments, queueWebhooks, saveInvoices, type InvoiceEvent, type LedgerDeps } from './ledger.js';
import type { Invoice, Payment } from './model.js';
import { recognise, type IgnoreReason, type PaymentCandidate } from './payments.js';
import { applyPayment } from './state.js';
import { invoicesForUpdate, knownPayments, paymentsOf } from './store.js';

export interface MatcherDeps extends LedgerDeps {
  directory: AppDirectory;
  logger?: Logger;
  /** Wall clock in ms. */
  now(): number;
}

export interface BatchResult {
  matched: number;
  ignored: number;
  events: InvoiceEvent[];
}

export class InvoiceMatcher {
  /** Unix seconds of the last block applied (for the lag metric and tests). */
  lastBlockUtime: number | null = null;

  constructor(private readonly deps: MatcherDeps) {}

  async handle(batch: EventBatch, trx: Kysely<any>): Promise<BatchResult> {
    const result: BatchResult = { matched: 0, ignored: 0, events: [] };
    if (batch.kind !== 'block') return result;
    const candidates: PaymentCandidate[] = [];
    for (const event of batch.events) {
      if (event.type === 'block' && event.block.workchain === -1) this.lastBlockUtime = event.block.genUtime;
      if (event.type !== 'transaction') continue;
      const r = recognise(event.tx, this.deps.directory);
      if (r === null) continue;
      if (r.kind === 'ignored') {
        this.ignore(r.reason, r.invoiceId, r.tx.hash, r.tx.account);
        result.ignored++;
      } else {
        candidates.push(r.payment);
      }
    }
    if (candidates.length === 0) return result;

    const known = await knownPayments(trx, candidates.map((c) => c.tx.hash));
    const fresh = candidates.filter((c) => !known.has(c.tx.hash));
    const invoices = await invoicesForUpdate(trx, fresh.map((c) => c.invoiceId));
    const payments = await paymentsOf(trx, [...invoices.keys()]);
    const changed = new Map<string, Invoice>();
    const recorded: Payment[] = [];
    const nowSec = Math.floor(this.deps.now() / 1000);
    for (const c of fresh) {
      const inv = invoices.get(c.invoiceId);
      const reason: IgnoreReason | null = !inv
        ? 'unknown_invoice'
        : inv.payTo !== c.recipient
          ? 'wrong_recipient'
          : inv.currency !== c.currency
            ? 'currency_mismatch'
            : null;
      if (reason !== null || !inv) {
        this.ignore(reason ?? 'unknown_invoice', c.invoiceId, c.tx.hash, c.tx.account);
        result.ignored++;
        continue;
      }
      const step = applyPayment(inv, { amount: c.amount, payer: c.payer, utime: c.tx.utime }, nowSec);
      const payment: Payment = {
        txHash: c.tx.hash,
        invoiceId: inv.id,
        appId: inv.appId,
        currency: c.currency,
        amount: c.amount,
        payer: c.payer,
        kind: step.kind,
        lt: c.tx.lt,
        utime: c.tx.utime,
        mcSeqno: c.tx.mcSeqno,
      };
      const list = payments.get(inv.id)!;
      // an expiry caused by this payment's lateness happened before the payment was recorded
      for (const e of step.events) {
        if (e.type === 'invoice.expired') result.events.push({ ...e, payments: [...list] });
      }
      list.push(payment);
      for (const e of step.events) {
        if (e.type !== 'invoice.expired') result.events.push({ ...e, payments: [...list] });
      }
      invoices.set(inv.id, step.invoice);
      changed.set(inv.id, step.invoice);
      recorded.push(payment);
      this.deps.metrics?.matched.inc({ currency: c.currency, kind: step.kind });
      this.deps.logger?.info({ invoice: inv.id, tx: c.tx.hash, amount: c.amount.toString(), kind: step.kind, status: step.invoice.status }, 'invoice payment matched');
    }
    await saveInvoices(trx, changed.values());
    await insertPayments(trx, recorded, nowSec);
    await queueWebhooks(trx, this.deps, result.events);
    countEvents(this.deps.metrics, result.events);
    result.matched = recorded.length;
    return result;
  }

  private ignore(reason: IgnoreReason, invoiceId: string, txHash: string, account: string): void {
    this.deps.metrics?.ignored.inc({ reason });
    this.deps.logger?.warn({ reason, invoice: invoiceId, tx: txHash, account }, 'transfer naming an invoice ignored');
  }
}
