// Row types of the invoicing tables and their conversion to the model.
import type { Generated, Kysely, Selectable } from 'kysely';
import { toNum } from '../store/db.js';
import type { App, Currency, Invoice, InvoiceStatus, Payment, PaymentKind } from './model.js';

export interface InvoiceTables {
  invoice_apps: {
    id: Generated<bigint>;
    name: string;
    description: string | null;
    recipient: string;
    token_key_id: string | null;
    created_at: bigint;
    updated_at: bigint;
  };
  invoice_recipients: {
    app_id: bigint;
    account: string;
    usdt_master: string | null;
    usdt_wallet: string | null;
    added_at: bigint;
  };
  invoices: {
    id: string;
    app_id: bigint;
    status: string;
    currency: string;
    amount: bigint;
    description: string | null;
    date_create: bigint;
    date_expire: bigint;
    date_change: bigint | null;
    date_paid: bigint | null;
    pay_to: string;
    payment_link: string;
    paid_by: string | null;
    paid_total: bigint;
    overpayment: bigint;
    idempotency_key: string | null;
    request_hash: string | null;
  };
  invoice_payments: {
    tx_hash: string;
    invoice_id: string;
    app_id: bigint;
    currency: string;
    amount: bigint;
    payer: string | null;
    kind: string;
    lt: bigint;
    utime: bigint;
    mc_seqno: bigint;
    recorded_at: bigint;
  };
}

/** Narrows any handle (a store's or a transaction's) to the invoicing tables. */
export const invoiceDb = (db: Kysely<any>) => db as Kysely<InvoiceTables>;

export type InvoiceRow = Selectable<InvoiceTables['invoices']>;
type AppRow = Selectable<InvoiceTables['invoice_apps']>;
type PaymentRow = Selectable<InvoiceTables['invoice_payments']>;

/** A bigint column as bigint (PostgreSQL and SQLite both hand back bigint; be safe with numbers). */
const big = (v: unknown): bigint => (typeof v === 'bigint' ? v : BigInt(v as number | string));
const optNum = (v: unknown): number | null => (v === null || v === undefined ? null : toNum(v));

export function appFromRow(r: AppRow): App {
  return {
    id: toNum(r.id),
    name: r.name,
    description: r.description,
    recipient: r.recipient,
    tokenKeyId: r.token_key_id,
    createdAt: toNum(r.created_at),
    updatedAt: toNum(r.updated_at),
  };
}

export function invoiceFromRow(r: InvoiceRow): Invoice {
  return {
    id: r.id,
    appId: toNum(r.app_id),
    status: r.status as InvoiceStatus,
    currency: r.currency as Currency,
    amount: big(r.amount),
    description: r.description,
    dateCreate: toNum(r.date_create),
    dateExpire: toNum(r.date_expire),
    dateChange: optNum(r.date_change),
    datePaid: optNum(r.date_paid),
    payTo: r.pay_to,
    paymentLink: r.payment_link,
    paidBy: r.paid_by,
    paidTotal: big(r.paid_total),
    overpayment: big(r.overpayment),
  };
}

/** A full row for an invoice (idempotency columns left null: upserts never overwrite them). */
export function invoiceRow(inv: Invoice): InvoiceTables['invoices'] {
  return {
    id: inv.id,
    app_id: BigInt(inv.appId),
    currency: inv.currency,
    amount: inv.amount,
    description: inv.description,
    date_create: BigInt(inv.dateCreate),
    date_expire: BigInt(inv.dateExpire),
    pay_to: inv.payTo,
    payment_link: inv.paymentLink,
    idempotency_key: null,
    request_hash: null,
    ...invoiceChanges(inv),
  };
}

/** The mutable columns of an invoice, for updates after a state change. */
export function invoiceChanges(inv: Invoice) {
  return {
    status: inv.status,
    date_change: inv.dateChange === null ? null : BigInt(inv.dateChange),
    date_paid: inv.datePaid === null ? null : BigInt(inv.datePaid),
    paid_by: inv.paidBy,
    paid_total: inv.paidTotal,
    overpayment: inv.overpayment,
  };
}

export function paymentFromRow(r: PaymentRow): Payment {
  return {
    txHash: r.tx_hash,
    invoiceId: r.invoice_id,
    appId: toNum(r.app_id),
    currency: r.currency as Currency,
    amount: big(r.amount),
    payer: r.payer,
    kind: r.kind as PaymentKind,
    lt: big(r.lt),
    utime: toNum(r.utime),
    mcSeqno: toNum(r.mc_seqno),
  };
}

export function paymentRow(p: Payment, recordedAt: number): InvoiceTables['invoice_payments'] {
  return {
    tx_hash: p.txHash,
    invoice_id: p.invoiceId,
    app_id: BigInt(p.appId),
    currency: p.currency,
    amount: p.amount,
    payer: p.payer,
    kind: p.kind,
    lt: p.lt,
    utime: BigInt(p.utime),
    mc_seqno: BigInt(p.mcSeqno),
    recorded_at: BigInt(recordedAt),
  };
}

/** Splits a list for `IN (…)` and multi-row inserts under the dialects' parameter limits. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
