// The invoicing API (docs/INVOICES.md, compat.md §5) as the console uses it. Invoice calls carry the
// application's API token; application calls the admin key.
import type { Currency } from '../lib/units.js';
import type { InvoiceJson, InvoiceStats, InvoiceStatus, PaymentJson } from '../../../src/invoices/wire.js';
import { call, callBlob, get, type Query } from './client.js';

export const INVOICES = '/api/v1/services/invoices';

export type { InvoiceStats, InvoiceStatus };
export const STATUSES: readonly InvoiceStatus[] = ['pending', 'paid', 'cancelled', 'expired'];

/** The server's own JSON types (type-only: nothing of the server is bundled). */
export type Payment = PaymentJson;
export type Invoice = InvoiceJson;

export const SORT_FIELDS = ['id', 'amount', 'status', 'life_time', 'description', 'pay_to_address', 'paid_by_address', 'date_create', 'date_paid'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export interface InvoiceFilters {
  search_id?: string;
  filter_status?: InvoiceStatus[];
  currency?: Currency | '';
  overpayment?: boolean;
  /** Unix seconds, inclusive. */
  start?: number;
  end?: number;
  field_order?: SortField;
  type_order?: 'asc' | 'desc';
}

export interface InvoicePage {
  items: Invoice[];
  count: number;
}


export interface NewInvoice {
  amount: string;
  life_time: number;
  currency: Currency;
  description?: string;
}

const auth = (key: string) => ({ key });

/** The list API's query: every filter, the sort and the page. */
export function listQuery(f: InvoiceFilters, page?: { limit: number; offset: number }): Query {
  return {
    search_id: f.search_id?.trim() || undefined,
    'filter_status[]': f.filter_status?.length ? f.filter_status : undefined,
    currency: f.currency || undefined,
    overpayment: f.overpayment ? 'true' : undefined,
    start: f.start,
    end: f.end,
    field_order: f.field_order,
    type_order: f.type_order,
    limit: page?.limit,
    offset: page?.offset,
  };
}

export const listInvoices = (key: string, f: InvoiceFilters, page: { limit: number; offset: number }, signal?: AbortSignal) =>
  get<InvoicePage>(INVOICES, { ...auth(key), query: listQuery(f, page), signal });

export const getInvoice = (key: string, id: string, signal?: AbortSignal) =>
  get<Invoice>(`${INVOICES}/${encodeURIComponent(id)}`, { ...auth(key), signal });

export const createInvoice = (key: string, body: NewInvoice, idempotencyKey: string) =>
  call<Invoice>('POST', `${INVOICES}/invoice`, { ...auth(key), json: body, headers: { 'idempotency-key': idempotencyKey } });

export const cancelInvoice = (key: string, id: string) => call<Invoice>('PATCH', `${INVOICES}/${encodeURIComponent(id)}/cancel`, auth(key));

export const invoiceStats = (key: string, currency: Currency, signal?: AbortSignal) =>
  get<{ stats: InvoiceStats }>(`${INVOICES}/stats`, { ...auth(key), query: { currency }, signal }).then((r) => r.stats);

export const exportInvoices = (key: string, f: InvoiceFilters) => callBlob(`${INVOICES}/export`, { ...auth(key), query: listQuery(f) });

/** The payment link's QR code as an image Blob (fetched with the token in a header, shown via a blob: URL). */
export const invoiceQr = (key: string, id: string, size = 440) =>
  callBlob(`${INVOICES}/${encodeURIComponent(id)}/qr`, { key, query: { format: 'png', size } }).then((r) => r.blob);
