// The invoicing vocabulary: applications, invoices, payments, and their JSON as the API (and every
// webhook body) shows them. Amounts are bigint minimal units inside, decimal strings outside;
// times are unix seconds.
import type { AccountId, HashHex } from '../chain/model.js';

import { CURRENCIES, STATUSES, type Currency, type InvoiceJson, type InvoiceStatus, type PaymentJson, type PaymentKind } from './wire.js';

export { CURRENCIES, STATUSES, type Currency, type InvoiceJson, type InvoiceStatus, type PaymentJson, type PaymentKind };

/** Minimal units per currency, and the bounds of an invoice amount (0.001 … 1,000,000,000 of the currency). */
export const DECIMALS: Record<Currency, number> = { TON: 9, USDT: 6 };
export const MIN_AMOUNT: Record<Currency, bigint> = { TON: 1_000_000n, USDT: 1_000n };
export const MAX_AMOUNT: Record<Currency, bigint> = { TON: 10n ** 18n, USDT: 10n ** 15n };
export const MAX_LIFE_TIME = 90 * 86_400;
export const MAX_DESCRIPTION = 255;

/** How a payment counted: toward the amount, beyond it on a paid invoice, or after expiry/cancel. */

export type InvoiceEventType = 'invoice.paid' | 'invoice.expired' | 'invoice.cancelled' | 'invoice.overpaid' | 'invoice.detected';

export interface App {
  id: number;
  name: string;
  description: string | null;
  recipient: AccountId;
  tokenKeyId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface Invoice {
  id: string;
  appId: number;
  status: InvoiceStatus;
  currency: Currency;
  amount: bigint;
  description: string | null;
  dateCreate: number;
  dateExpire: number;
  dateChange: number | null;
  datePaid: number | null;
  payTo: AccountId;
  paymentLink: string;
  paidBy: AccountId | null;
  paidTotal: bigint;
  overpayment: bigint;
}

export interface Payment {
  txHash: HashHex;
  invoiceId: string;
  appId: number;
  currency: Currency;
  amount: bigint;
  payer: AccountId | null;
  kind: PaymentKind;
  lt: bigint;
  utime: number;
  mcSeqno: number;
}

export function paymentJson(p: Payment): PaymentJson {
  return { tx_hash: p.txHash, lt: Number(p.lt), amount: p.amount.toString(), payer: p.payer, kind: p.kind, utime: p.utime };
}

/**
 * The invoice JSON. `payments` given: the full view (GET, webhooks); omitted: the list view.
 * `forCreate` drops `date_change`, which the create response never carries.
 */
export function invoiceJson(inv: Invoice, payments?: readonly Payment[], forCreate = false): InvoiceJson {
  const out: InvoiceJson = {
    id: inv.id,
    status: inv.status,
    amount: inv.amount.toString(),
    currency: inv.currency,
    date_create: inv.dateCreate,
    date_expire: inv.dateExpire,
    payment_link: inv.paymentLink,
    pay_to_address: inv.payTo,
  };
  if (inv.description !== null) out.description = inv.description;
  if (inv.dateChange !== null && !forCreate) out.date_change = inv.dateChange;
  if (inv.datePaid !== null) out.date_paid = inv.datePaid;
  if (inv.paidBy !== null) out.paid_by_address = inv.paidBy;
  if (inv.overpayment > 0n) out.overpayment = inv.overpayment.toString();
  if (payments) out.payments = payments.map(paymentJson);
  return out;
}

/** Owner reference of an application's API token and webhook endpoints. */
export const appOwnerRef = (appId: number) => `app:${appId}`;

export function appIdOfOwnerRef(ref: string | null | undefined): number | null {
  const m = ref ? /^app:([1-9][0-9]{0,15})$/.exec(ref) : null;
  return m ? Number(m[1]) : null;
}
