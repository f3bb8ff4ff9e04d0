// Invoice queries: create (with idempotency keys), read with payments, list with every filter and
// sort of compat.md §5, stats, export pages, and the rows the expiry timer and cancel change.
// Every function takes the handle to use, so callers can run them inside their own transaction.
import { createHash, randomUUID } from 'node:crypto';
import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import { conflict } from '../errors.js';
import { toNum } from '../store/db.js';
import { dialectOf } from '../store/types.js';
import type { Currency, Invoice, Payment } from './model.js';
import type { InvoiceStats } from './wire.js';
import { chunks, invoiceDb, invoiceFromRow, paymentFromRow, type InvoiceRow, type InvoiceTables } from './tables.js';
import type { ListFilter, NewInvoiceInput } from './validate.js';

export interface CreateInvoiceOptions {
  /** Default: a random UUID (tests pass their own). */
  id?: string;
  appId: number;
  payTo: string;
  input: NewInvoiceInput;
  idempotencyKey: string | null;
  /** Unix seconds. */
  now: number;
  /** Builds the payment link once the id and expiry are known. */
  link(id: string, dateExpire: number): string;
  /** Writes the row (a group commit, inserts.ts); default: an insert of its own. */
  insert?(row: InvoiceTables['invoices']): Promise<void>;
}

/** Same body, same key → same hash; the hash covers exactly the fields that define an invoice. */
export function requestHash(input: NewInvoiceInput): string {
  return createHash('sha256')
    .update(JSON.stringify([input.amount.toString(), input.lifeTime, input.currency, input.description]))
    .digest('hex');
}

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Creates an invoice; with an idempotency key already used for the same body, returns that one. */
export async function createInvoice(db: Kysely<any>, o: CreateInvoiceOptions): Promise<{ invoice: Invoice; replayed: boolean }> {
  const hash = o.idempotencyKey === null ? null : requestHash(o.input);
  if (o.idempotencyKey !== null) {
    const earlier = await byIdempotencyKey(db, o.appId, o.idempotencyKey, hash!);
    if (earlier) return { invoice: earlier, replayed: true };
  }
  const id = o.id ?? randomUUID();
  const dateExpire = o.now + o.input.lifeTime;
  const row: InvoiceTables['invoices'] = {
    id,
    app_id: BigInt(o.appId),
    status: 'pending',
    currency: o.input.currency,
    amount: o.input.amount,
    description: o.input.description,
    date_create: BigInt(o.now),
    date_expire: BigInt(dateExpire),
    date_change: null,
    date_paid: null,
    pay_to: o.payTo,
    payment_link: o.link(id, dateExpire),
    paid_by: null,
    paid_total: 0n,
    overpayment: 0n,
    idempotency_key: o.idempotencyKey,
    request_hash: hash,
  };
  try {
    // rows with an idempotency key go alone: their unique-key race is handled right here
    if (o.insert && o.idempotencyKey === null) await o.insert(row);
    else await invoiceDb(db).insertInto('invoices').values(row).execute();
  } catch (err) {
    // two requests with one key at once: the second sees the first's invoice
    if (o.idempotencyKey !== null && isUniqueViolation(err)) {
      const earlier = await byIdempotencyKey(db, o.appId, o.idempotencyKey, hash!);
      if (earlier) return { invoice: earlier, replayed: true };
    }
    throw err;
  }
  return { invoice: invoiceFromRow(row), replayed: false };
}

async function byIdempotencyKey(db: Kysely<any>, appId: number, key: string, hash: string): Promise<Invoice | null> {
  const row = await invoiceDb(db)
    .selectFrom('invoices')
    .selectAll()
    .where('app_id', '=', BigInt(appId))
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
  if (!row) return null;
  if (row.request_hash !== hash) {
    throw conflict('this Idempotency-Key was already used with a different request body; use a new key for a new invoice');
  }
  return invoiceFromRow(row);
}

/** One invoice of an application (null when it does not exist or belongs to another). */
export async function getInvoice(db: Kysely<any>, appId: number, id: string): Promise<Invoice | null> {
  const row = await invoiceDb(db).selectFrom('invoices').selectAll().where('id', '=', id).where('app_id', '=', BigInt(appId)).executeTakeFirst();
  return row ? invoiceFromRow(row) : null;
}

/** Invoices by id, any application; locked for update on PostgreSQL (the matcher and cancel race otherwise). */
export async function invoicesForUpdate(db: Kysely<any>, ids: readonly string[]): Promise<Map<string, Invoice>> {
  const out = new Map<string, Invoice>();
  const pg = dialectOf(db) === 'postgres';
  for (const part of chunks([...new Set(ids)], 500)) {
    let q = invoiceDb(db).selectFrom('invoices').selectAll().where('id', 'in', part);
    if (pg) q = q.forUpdate();
    for (const row of await q.execute()) out.set(row.id, invoiceFromRow(row));
  }
  return out;
}

/** Payments of each invoice, in chain order. */
export async function paymentsOf(db: Kysely<any>, invoiceIds: readonly string[]): Promise<Map<string, Payment[]>> {
  const out = new Map<string, Payment[]>();
  for (const id of invoiceIds) out.set(id, []);
  for (const part of chunks([...new Set(invoiceIds)], 500)) {
    const rows = await invoiceDb(db)
      .selectFrom('invoice_payments')
      .selectAll()
      .where('invoice_id', 'in', part)
      .orderBy('lt')
      .orderBy('tx_hash')
      .execute();
    for (const r of rows) out.get(r.invoice_id)!.push(paymentFromRow(r));
  }
  return out;
}

/** Tx hashes among `hashes` that are already recorded. */
export async function knownPayments(db: Kysely<any>, hashes: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const part of chunks([...new Set(hashes)], 500)) {
    const rows = await invoiceDb(db).selectFrom('invoice_payments').select('tx_hash').where('tx_hash', 'in', part).execute();
    for (const r of rows) out.add(r.tx_hash);
  }
  return out;
}

// ---- lists ---------------------------------------------------------------------------------

type InvoiceQuery = SelectQueryBuilder<InvoiceTables, 'invoices', any>;

function filtered(db: Kysely<any>, appId: number, f: ListFilter): InvoiceQuery {
  let q = invoiceDb(db).selectFrom('invoices').where('app_id', '=', BigInt(appId)) as InvoiceQuery;
  // search_id is checked to be hex digits and dashes, so it is safe inside a LIKE pattern
  if (f.searchId) q = q.where('id', 'like', `%${f.searchId}%`);
  if (f.statuses.length > 0) q = q.where('status', 'in', f.statuses);
  if (f.currency) q = q.where('currency', '=', f.currency);
  if (f.overpayment === true) q = q.where('overpayment', '>', 0n);
  if (f.overpayment === false) q = q.where('overpayment', '=', 0n);
  if (f.start !== null) q = q.where('date_create', '>=', BigInt(f.start));
  if (f.end !== null) q = q.where('date_create', '<=', BigInt(f.end));
  return q;
}

const SORT_COLUMNS = {
  id: 'id',
  amount: 'amount',
  status: 'status',
  description: 'description',
  pay_to_address: 'pay_to',
  paid_by_address: 'paid_by',
  date_create: 'date_create',
  date_paid: 'date_paid',
} as const;

function ordered(q: InvoiceQuery, f: ListFilter): InvoiceQuery {
  const dir = f.typeOrder;
  if (f.fieldOrder === 'life_time') {
    q = q.orderBy(sql`date_expire - date_create`, dir);
  } else {
    const column = SORT_COLUMNS[f.fieldOrder];
    // invoices without the field come last in both directions, on both dialects
    if (column === 'description' || column === 'paid_by' || column === 'date_paid') q = q.orderBy(sql`(${sql.ref(column)} is null)`, 'asc');
    q = q.orderBy(column, dir);
  }
  return f.fieldOrder === 'id' ? q : q.orderBy('id', 'asc');
}

export async function listInvoices(db: Kysely<any>, appId: number, f: ListFilter): Promise<{ items: Invoice[]; count: number }> {
  const rows = await ordered(filtered(db, appId, f).selectAll(), f).limit(f.limit).offset(f.offset).execute();
  const countRow = await filtered(db, appId, f)
    .select((e) => e.fn.countAll<bigint>().as('n'))
    .executeTakeFirst();
  return { items: rows.map((r) => invoiceFromRow(r as InvoiceRow)), count: toNum(countRow?.n) };
}

/** Every invoice matching the filter (its limit and offset ignored), page by page, for CSV export. */
export async function* exportPages(db: Kysely<any>, appId: number, f: ListFilter, maxRows: number, pageSize = 1000): AsyncGenerator<Invoice[]> {
  for (let offset = 0; offset < maxRows; offset += pageSize) {
    const rows = await ordered(filtered(db, appId, f).selectAll(), f)
      .limit(Math.min(pageSize, maxRows - offset))
      .offset(offset)
      .execute();
    if (rows.length === 0) return;
    yield rows.map((r) => invoiceFromRow(r as InvoiceRow));
    if (rows.length < pageSize) return;
  }
}

// ---- stats ---------------------------------------------------------------------------------

export type { InvoiceStats } from './wire.js';

/** Sums in two parts (units ÷ 10^9 and the rest) so no SQL sum of bigint amounts can overflow. */
const SPLIT = 1_000_000_000n;
function splitSums(prefix: string, condition: ReturnType<typeof sql>) {
  return [
    sql<string>`coalesce(sum(case when ${condition} then amount / ${sql.lit(Number(SPLIT))} else 0 end), 0)`.as(`${prefix}_hi`),
    sql<string>`coalesce(sum(case when ${condition} then amount % ${sql.lit(Number(SPLIT))} else 0 end), 0)`.as(`${prefix}_lo`),
  ];
}
const joinSums = (hi: unknown, lo: unknown) => (BigInt(String(hi ?? 0)) * SPLIT + BigInt(String(lo ?? 0))).toString();

export async function invoiceStats(db: Kysely<any>, appId: number, currency: Currency, nowSec: number): Promise<InvoiceStats> {
  const weekAgo = nowSec - 7 * 86_400;
  const row = (await invoiceDb(db)
    .selectFrom('invoices')
    .select([
      sql<bigint>`count(*)`.as('total'),
      sql<bigint>`coalesce(sum(case when status = 'pending' then 1 else 0 end), 0)`.as('pending'),
      ...splitSums('paid', sql`status = 'paid'`),
      ...splitSums('week', sql`status = 'paid' and date_paid >= ${weekAgo}`),
      ...splitSums('pend', sql`status = 'pending'`),
    ])
    .where('app_id', '=', BigInt(appId))
    .where('currency', '=', currency)
    .executeTakeFirst()) as Record<string, unknown> | undefined;
  const monthAgo = Math.floor(nowSec / 86_400) * 86_400 - 29 * 86_400;
  const days = (await invoiceDb(db)
    .selectFrom('invoices')
    .select([
      sql<bigint>`(date_paid / 86400) * 86400`.as('day'),
      sql<bigint>`count(*)`.as('n'),
      sql<string>`sum(amount / ${sql.lit(Number(SPLIT))})`.as('hi'),
      sql<string>`sum(amount % ${sql.lit(Number(SPLIT))})`.as('lo'),
    ])
    .where('app_id', '=', BigInt(appId))
    .where('currency', '=', currency)
    .where('status', '=', 'paid')
    .where('date_paid', '>=', BigInt(monthAgo))
    .groupBy(sql`(date_paid / 86400) * 86400`)
    .orderBy(sql`(date_paid / 86400) * 86400`)
    .execute()) as Array<Record<string, unknown>>;
  return {
    total: toNum(row?.total),
    success_total: joinSums(row?.paid_hi, row?.paid_lo),
    success_in_week: joinSums(row?.week_hi, row?.week_lo),
    invoices_in_progress: toNum(row?.pending),
    total_amount_pending: joinSums(row?.pend_hi, row?.pend_lo),
    currency,
    paid_per_day: days.map((d) => ({ day: toNum(d.day), amount: joinSums(d.hi, d.lo), count: toNum(d.n) })),
  };
}

// ---- expiry --------------------------------------------------------------------------------

/** Pending invoices whose date_expire has come, oldest expiry first (locked on PostgreSQL). */
export async function dueInvoices(db: Kysely<any>, nowSec: number, limit: number): Promise<Invoice[]> {
  let q = invoiceDb(db)
    .selectFrom('invoices')
    .selectAll()
    .where('status', '=', 'pending')
    .where('date_expire', '<=', BigInt(nowSec))
    .orderBy('date_expire')
    .limit(limit);
  if (dialectOf(db) === 'postgres') q = q.forUpdate().skipLocked();
  return (await q.execute()).map(invoiceFromRow);
}

/** The nearest date_expire of a pending invoice, or null. */
export async function nextExpiry(db: Kysely<any>): Promise<number | null> {
  const row = await invoiceDb(db)
    .selectFrom('invoices')
    .select((e) => e.fn.min('date_expire').as('next'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? null : toNum(row.next);
}
