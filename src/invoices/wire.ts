// The invoicing API's JSON as clients see it (compat.md §5 plus our documented additions): the one
// copy of these types, imported by the server (model.ts, store.ts) and, type-only, by the console
// (web/src/api/invoices.ts). Free of imports so the console's type check can read it.

export const CURRENCIES = ['TON', 'USDT'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const STATUSES = ['pending', 'paid', 'cancelled', 'expired'] as const;
export type InvoiceStatus = (typeof STATUSES)[number];

export type PaymentKind = 'payment' | 'excess' | 'late';

export interface PaymentJson {
  tx_hash: string;
  lt: number;
  amount: string;
  payer: string | null;
  kind: PaymentKind;
  utime: number;
}

/**
 * Ours: a payment seen before it is final (docs/INVOICES.md, "Detected payments"): its amount in minimal
 * units, the finality level it has reached, when it was first seen (unix seconds), the trace's normalised
 * external message hash. Only on a pending invoice; it never changes the status.
 */
export interface DetectedJson {
  amount: string;
  finality: 'pending' | 'confirmed' | 'finalized';
  at: number;
  trace: string;
}

/** The invoice on the wire (compat.md §5) plus `date_paid`, `payments` and `detected` (ours, documented). */
export interface InvoiceJson {
  id: string;
  status: InvoiceStatus;
  amount: string;
  currency: Currency;
  description?: string;
  date_create: number;
  date_expire: number;
  date_change?: number;
  date_paid?: number;
  payment_link: string;
  pay_to_address: string;
  paid_by_address?: string;
  overpayment?: string;
  payments?: PaymentJson[];
  detected?: DetectedJson;
}

/** Paid amount and count of one UTC day (day = unix seconds of its midnight). */
export interface PaidDay {
  day: number;
  amount: string;
  count: number;
}

export interface InvoiceStats {
  total: number;
  success_total: string;
  success_in_week: string;
  invoices_in_progress: number;
  total_amount_pending: string;
  currency: Currency;
  /** Ours: paid amounts per UTC day over the last 30 days, oldest first, days without payments left out. */
  paid_per_day: PaidDay[];
}
