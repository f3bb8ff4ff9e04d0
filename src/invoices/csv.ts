// CSV export of invoices (RFC 4180): a header line, then one line per invoice. Text that a
// spreadsheet would run as a formula (=, +, -, @ first) is prefixed with a quote.
import { formatUnits } from './validate.js';
import type { Invoice } from './model.js';

export const CSV_COLUMNS = [
  'id',
  'status',
  'currency',
  'amount',
  'amount_decimal',
  'description',
  'date_create',
  'date_expire',
  'date_change',
  'date_paid',
  'pay_to_address',
  'paid_by_address',
  'overpayment',
  'payment_link',
] as const;

export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let s = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvHeader(): string {
  return CSV_COLUMNS.join(',') + '\r\n';
}

export function csvLine(inv: Invoice): string {
  return (
    [
      inv.id,
      inv.status,
      inv.currency,
      inv.amount.toString(),
      formatUnits(inv.amount, inv.currency).split(' ')[0]!,
      inv.description,
      inv.dateCreate,
      inv.dateExpire,
      inv.dateChange,
      inv.datePaid,
      inv.payTo,
      inv.paidBy,
      inv.overpayment.toString(),
      inv.paymentLink,
    ]
      .map(csvField)
      .join(',') + '\r\n'
  );
}
