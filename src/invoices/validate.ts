// Checks of everything a client sends: each failure is a 400 naming the field and what is allowed.
import { InvalidAddressError, parseAccountId } from '../chain/address.js';
import type { AccountId } from '../chain/model.js';
import { badRequest } from '../errors.js';
import {
  CURRENCIES,
  DECIMALS,
  MAX_AMOUNT,
  MAX_DESCRIPTION,
  MAX_LIFE_TIME,
  MIN_AMOUNT,
  STATUSES,
  type Currency,
  type InvoiceStatus,
} from './model.js';

export interface NewInvoiceInput {
  amount: bigint;
  lifeTime: number;
  currency: Currency;
  description: string | null;
}

/** `1000000` nanoton → `0.001 TON`, for messages. */
export function formatUnits(units: bigint, currency: Currency): string {
  const d = DECIMALS[currency];
  const s = units.toString().padStart(d + 1, '0');
  const whole = s.slice(0, -d);
  const frac = s.slice(-d).replace(/0+$/, '');
  return `${whole}${frac ? '.' + frac : ''} ${currency}`;
}

export function currencyInput(value: unknown, field = 'currency'): Currency {
  const v = typeof value === 'string' ? value.trim().toUpperCase() : value;
  if (typeof v !== 'string' || !(CURRENCIES as readonly string[]).includes(v)) {
    throw badRequest(`${field} must be one of ${CURRENCIES.join(', ')}`, field);
  }
  return v as Currency;
}

export function amountInput(value: unknown, currency: Currency, field = 'amount'): bigint {
  // A JSON number would already have lost digits past 2^53: amounts are strings in this API.
  if (typeof value !== 'string' || !/^[0-9]+$/.test(value.trim())) {
    throw badRequest(`${field} must be a string of digits in minimal units (nanoton for TON, 10^-6 for USDT), e.g. "2500000000"`, field);
  }
  const amount = BigInt(value.trim());
  if (amount < MIN_AMOUNT[currency]) {
    throw badRequest(`${field} must be at least ${MIN_AMOUNT[currency]} (${formatUnits(MIN_AMOUNT[currency], currency)})`, field);
  }
  if (amount > MAX_AMOUNT[currency]) {
    throw badRequest(`${field} must be at most ${MAX_AMOUNT[currency]} (${formatUnits(MAX_AMOUNT[currency], currency)})`, field);
  }
  return amount;
}

export function lifeTimeInput(value: unknown, field = 'life_time'): number {
  const n = typeof value === 'string' && /^[0-9]{1,12}$/.test(value.trim()) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_LIFE_TIME) {
    throw badRequest(`${field} must be an integer number of seconds from 1 to ${MAX_LIFE_TIME} (90 days)`, field);
  }
  return n;
}

/** Optional text up to `max` characters, without NUL or other control characters (newlines and tabs allowed). */
export function textInput(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`, field);
  if ([...value].length > max) throw badRequest(`${field} must be at most ${max} characters`, field);
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(value)) throw badRequest(`${field} must not contain control characters`, field);
  return value;
}

export function newInvoiceInput(body: unknown): NewInvoiceInput {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the body must be a JSON object');
  const b = body as Record<string, unknown>;
  if (b.amount === undefined) throw badRequest('amount is required', 'amount');
  if (b.life_time === undefined) throw badRequest('life_time is required', 'life_time');
  if (b.currency === undefined) throw badRequest('currency is required (TON or USDT)', 'currency');
  const currency = currencyInput(b.currency);
  return {
    amount: amountInput(b.amount, currency),
    lifeTime: lifeTimeInput(b.life_time),
    currency,
    description: textInput(b.description, 'description', MAX_DESCRIPTION),
  };
}

export function idempotencyKeyInput(value: unknown): string | null {
  if (value === undefined) return null;
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v !== 'string' || v.length < 1 || v.length > 255 || /[^\x21-\x7e]/.test(v)) {
    throw badRequest('Idempotency-Key must be 1 to 255 visible ASCII characters', 'Idempotency-Key');
  }
  return v;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A UUID in any case, lowercased; null when the text is not one. */
export function parseInvoiceId(value: string): string | null {
  const v = value.trim().toLowerCase();
  return UUID.test(v) ? v : null;
}

export function recipientInput(value: unknown, field = 'recipient_address'): AccountId {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${field} is required: the wallet that receives payments`, field);
  try {
    return parseAccountId(value.trim());
  } catch (err) {
    const why = err instanceof InvalidAddressError ? err.message : String(err);
    throw badRequest(`${field} is not a TON address: ${why}`, field);
  }
}

export function appNameInput(value: unknown, field = 'name'): string {
  const v = typeof value === 'string' ? value.trim() : '';
  if (v.length < 3 || v.length > 64 || /[\u0000-\u001f\u007f]/.test(v)) {
    throw badRequest(`${field} must be 3 to 64 printable characters`, field);
  }
  return v;
}

// ---- list filters --------------------------------------------------------------------------

export const SORT_FIELDS = ['id', 'amount', 'status', 'life_time', 'description', 'pay_to_address', 'paid_by_address', 'date_create', 'date_paid'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export interface ListFilter {
  limit: number;
  offset: number;
  fieldOrder: SortField;
  typeOrder: 'asc' | 'desc';
  searchId: string | null;
  statuses: InvoiceStatus[];
  currency: Currency | null;
  overpayment: boolean | null;
  start: number | null;
  end: number | null;
}

export const MAX_LIST_LIMIT = 1000;

function intParam(q: Record<string, unknown>, name: string, min: number, max: number, fallback: number | null): number | null {
  let v = q[name];
  if (Array.isArray(v)) v = v[v.length - 1];
  if (v === undefined || v === '') return fallback;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?[0-9]{1,16}$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw badRequest(`${name} must be an integer from ${min} to ${max}`, name);
  return n;
}

function oneParam(q: Record<string, unknown>, name: string): string | undefined {
  let v = q[name];
  if (Array.isArray(v)) v = v[v.length - 1];
  if (v === undefined || v === '') return undefined;
  return String(v);
}

/** Reads the list (and export) query: every filter and sort of compat.md §5. */
export function listFilterInput(query: unknown, defaultLimit = 100, maxLimit = MAX_LIST_LIMIT): ListFilter {
  const q = (query && typeof query === 'object' ? query : {}) as Record<string, unknown>;
  const fieldOrder = oneParam(q, 'field_order') ?? 'date_create';
  if (!(SORT_FIELDS as readonly string[]).includes(fieldOrder)) {
    throw badRequest(`field_order must be one of ${SORT_FIELDS.join(', ')}`, 'field_order');
  }
  const typeOrder = (oneParam(q, 'type_order') ?? 'desc').toLowerCase();
  if (typeOrder !== 'asc' && typeOrder !== 'desc') throw badRequest('type_order must be asc or desc', 'type_order');
  // filter_status[]=paid&filter_status[]=expired, filter_status=paid,expired, or repeated filter_status
  const rawStatuses = [q['filter_status[]'], q['filter_status']].flat().filter((v) => v !== undefined && v !== '');
  const statuses = new Set<InvoiceStatus>();
  for (const raw of rawStatuses) {
    for (const s of String(raw).split(',').map((x) => x.trim().toLowerCase()).filter(Boolean)) {
      if (!(STATUSES as readonly string[]).includes(s)) throw badRequest(`filter_status must list values of ${STATUSES.join(', ')}`, 'filter_status');
      statuses.add(s as InvoiceStatus);
    }
  }
  const currencyText = oneParam(q, 'currency');
  const overpaymentText = oneParam(q, 'overpayment');
  let overpayment: boolean | null = null;
  if (overpaymentText !== undefined) {
    const v = overpaymentText.toLowerCase();
    if (['true', '1'].includes(v)) overpayment = true;
    else if (['false', '0'].includes(v)) overpayment = false;
    else throw badRequest('overpayment must be true or false', 'overpayment');
  }
  const searchText = oneParam(q, 'search_id');
  if (searchText !== undefined && (searchText.length > 36 || !/^[0-9a-fA-F-]+$/.test(searchText))) {
    throw badRequest('search_id must be (part of) an invoice id: hexadecimal digits and dashes', 'search_id');
  }
  const start = intParam(q, 'start', 0, 2 ** 40, null);
  const end = intParam(q, 'end', 0, 2 ** 40, null);
  if (start !== null && end !== null && end < start) throw badRequest('end must not be before start', 'end');
  return {
    limit: intParam(q, 'limit', 1, maxLimit, defaultLimit)!,
    offset: intParam(q, 'offset', 0, 1_000_000_000, 0)!,
    fieldOrder: fieldOrder as SortField,
    typeOrder,
    searchId: searchText === undefined ? null : searchText.toLowerCase(),
    statuses: [...statuses],
    currency: currencyText === undefined ? null : currencyInput(currencyText),
    overpayment,
    start,
    end,
  };
}
