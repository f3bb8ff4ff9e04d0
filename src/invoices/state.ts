// The invoice state machine (compat.md §5), as pure functions over an invoice:
//   pending → paid (payments before date_expire reach the amount) | cancelled | expired (time).
// Overpayment: what a paying payment adds beyond the amount; the whole of a payment to a paid,
// expired or cancelled invoice; and the partial sum an invoice held when it expired or was cancelled.
// Each step says which webhook events it causes, so the caller can snapshot the invoice after each.
import type { AccountId } from '../chain/model.js';
import type { Invoice, InvoiceEventType, PaymentKind } from './model.js';

/** Largest value a bigint column holds; sums are clamped there rather than overflowing the store. */
const INT64_MAX = 2n ** 63n - 1n;
const add = (a: bigint, b: bigint) => (a + b > INT64_MAX ? INT64_MAX : a + b);

export interface Step {
  invoice: Invoice;
  /** Events caused, in order, each with the invoice as it stood right after that event. */
  events: Array<{ type: InvoiceEventType; invoice: Invoice }>;
}

/** Pending → expired at `now`; the partial sum paid so far becomes overpayment. */
export function expire(inv: Invoice, now: number): Step {
  if (inv.status !== 'pending') return { invoice: inv, events: [] };
  const next: Invoice = { ...inv, status: 'expired', dateChange: now, overpayment: add(inv.overpayment, inv.paidTotal) };
  return { invoice: next, events: [{ type: 'invoice.expired', invoice: next }] };
}

/** Pending → cancelled at `now`; the partial sum paid so far becomes overpayment. */
export function cancel(inv: Invoice, now: number): Step {
  if (inv.status !== 'pending') return { invoice: inv, events: [] };
  const next: Invoice = { ...inv, status: 'cancelled', dateChange: now, overpayment: add(inv.overpayment, inv.paidTotal) };
  return { invoice: next, events: [{ type: 'invoice.cancelled', invoice: next }] };
}

export interface IncomingPayment {
  amount: bigint;
  payer: AccountId | null;
  /** Chain time of the paying transaction: what decides "before date_expire". */
  utime: number;
}

/**
 * Applies one payment observed at wall time `now`. A pending invoice whose date_expire has passed
 * by the payment's chain time expires first (the expiry timer may not have fired yet).
 */
export function applyPayment(inv: Invoice, p: IncomingPayment, now: number): Step & { kind: PaymentKind } {
  const events: Step['events'] = [];
  let cur = inv;
  if (cur.status === 'pending' && p.utime >= cur.dateExpire) {
    const expired = expire(cur, now);
    cur = expired.invoice;
    events.push(...expired.events);
  }
  if (cur.status === 'pending') {
    const paidTotal = add(cur.paidTotal, p.amount);
    if (paidTotal < cur.amount) {
      // a partial payment: recorded, no status change and no webhook
      return { invoice: { ...cur, paidTotal, dateChange: now }, events, kind: 'payment' };
    }
    const paid: Invoice = {
      ...cur,
      status: 'paid',
      paidTotal,
      overpayment: add(cur.overpayment, paidTotal - cur.amount),
      paidBy: p.payer,
      datePaid: p.utime,
      dateChange: now,
    };
    events.push({ type: 'invoice.paid', invoice: paid });
    return { invoice: paid, events, kind: 'payment' };
  }
  const kind: PaymentKind = cur.status === 'paid' ? 'excess' : 'late';
  const next: Invoice = { ...cur, overpayment: add(cur.overpayment, p.amount), dateChange: now };
  events.push({ type: 'invoice.overpaid', invoice: next });
  return { invoice: next, events, kind };
}
