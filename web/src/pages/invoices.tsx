// The invoice table: every filter of the list API, sorting, paging, CSV export, and rows that change
// status while you watch (polling the list every few seconds while the tab is visible).
import { useEffect, useState } from 'preact/hooks';
import type { PageProps } from '../page-props.js';
import type { ComponentChildren } from 'preact';
import { exportInvoices, listInvoices, STATUSES, type Invoice, type InvoiceFilters, type InvoicePage, type SortField } from '../api/invoices.js';
import { AccountAddress, ErrorNote, Field, PageHeading, StatusBadge, valueOf } from '../components/ui.js';
import { isTestOnly, linkAddress } from '../lib/address.js';
import { saveBlob } from '../lib/download.js';
import { usePolling } from '../lib/poll.js';
import { dateInputToUnix, formatDate, formatTime } from '../lib/time.js';
import { CURRENCIES, formatAmount, isCurrency } from '../lib/units.js';
import { href } from '../router.js';
import { invoiceKey } from '../session.js';

export const LIVE_INTERVAL_MS = 2000;
const PAGE_SIZES = [20, 50, 100];

interface Column {
  label: string;
  sort?: SortField;
  num?: boolean;
  cell(inv: Invoice): ComponentChildren;
}

const COLUMNS: Column[] = [
  { label: 'Invoice', sort: 'id', cell: (i) => <a href={href('invoices', i.id)} class="mono">{i.id}</a> },
  {
    label: 'Status',
    sort: 'status',
    cell: (i) => (
      <>
        <StatusBadge status={i.status} />
        {i.status === 'pending' && i.detected && (
          <span class="payment-seen" data-finality={i.detected.finality}>
            {' '}payment seen, waiting for finality
          </span>
        )}
      </>
    ),
  },
  { label: 'Amount', sort: 'amount', num: true, cell: (i) => formatAmount(i.amount, i.currency) },
  { label: 'Overpayment', num: true, cell: (i) => (i.overpayment ? formatAmount(i.overpayment, i.currency) : '—') },
  { label: 'Description', sort: 'description', cell: (i) => i.description ?? '' },
  { label: 'Created', sort: 'date_create', cell: (i) => formatTime(i.date_create) },
  { label: 'Expires', sort: 'life_time', cell: (i) => formatTime(i.date_expire) },
  { label: 'Paid', sort: 'date_paid', cell: (i) => formatTime(i.date_paid) },
  { label: 'Paid by', sort: 'paid_by_address', cell: (i) => <AccountAddress raw={i.paid_by_address} testOnly={isTestOnly(linkAddress(i.payment_link))} /> },
];

interface FilterForm {
  search: string;
  statuses: string[];
  currency: string;
  overpayment: boolean;
  from: string;
  to: string;
}

export function InvoicesPage({ session }: PageProps) {
  const key = invoiceKey(session)!;
  const [form, setForm] = useState<FilterForm>({ search: '', statuses: [], currency: '', overpayment: false, from: '', to: '' });
  const [search, setSearch] = useState('');
  const [sort, setSort] = useState<{ field: SortField; dir: 'asc' | 'desc' }>({ field: 'date_create', dir: 'desc' });
  const [limit, setLimit] = useState(20);
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<InvoicePage | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [updatedAt, setUpdatedAt] = useState<number | null>(null);
  const [exporting, setExporting] = useState(false);

  // Typing in the id search waits for a pause before asking the API.
  useEffect(() => {
    const t = setTimeout(() => setSearch(form.search), 300);
    return () => clearTimeout(t);
  }, [form.search]);

  const filters: InvoiceFilters = {
    search_id: search,
    filter_status: form.statuses as InvoiceFilters['filter_status'],
    currency: isCurrency(form.currency) ? form.currency : '',
    overpayment: form.overpayment,
    start: dateInputToUnix(form.from),
    end: dateInputToUnix(form.to, true),
    field_order: sort.field,
    type_order: sort.dir,
  };
  const filterKey = JSON.stringify(filters);
  useEffect(() => setOffset(0), [filterKey]);

  usePolling(
    async (signal) => {
      try {
        const result = await listInvoices(key, filters, { limit, offset }, signal);
        setPage(result);
        setError(null);
        setUpdatedAt(Date.now());
      } catch (err) {
        if ((err as Error).name !== 'AbortError') setError(err);
      }
    },
    LIVE_INTERVAL_MS,
    [key, filterKey, limit, offset],
  );

  const set = (change: Partial<FilterForm>) => setForm({ ...form, ...change });
  const toggleStatus = (s: string) => set({ statuses: form.statuses.includes(s) ? form.statuses.filter((x) => x !== s) : [...form.statuses, s] });
  const sortBy = (field: SortField) => setSort(sort.field === field ? { field, dir: sort.dir === 'asc' ? 'desc' : 'asc' } : { field, dir: 'asc' });
  const exportCsv = async () => {
    setExporting(true);
    try {
      const { blob } = await exportInvoices(key, filters);
      saveBlob(blob, `invoices-${new Date().toISOString().slice(0, 10)}.csv`);
    } catch (err) {
      setError(err);
    } finally {
      setExporting(false);
    }
  };

  const count = page?.count ?? 0;
  const pages = Math.max(1, Math.ceil(count / limit));
  const pageNo = Math.floor(offset / limit) + 1;

  return (
    <>
      <div class="card-head">
        <PageHeading>Invoices</PageHeading>
        <div class="card-actions">
          <a class="button" href={href('invoices', 'new')}>
            New invoice
          </a>
          <button type="button" class="secondary" onClick={exportCsv} disabled={exporting}>
            {exporting ? 'Exporting…' : 'Export CSV'}
          </button>
        </div>
      </div>

      <form class="card filters" role="search" aria-label="Invoice filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Invoice id">
          {({ id }) => <input id={id} type="search" value={form.search} onInput={(e) => set({ search: valueOf(e) })} placeholder="id or part of it" />}
        </Field>
        <fieldset>
          <legend>Status</legend>
          <div class="options">
            {STATUSES.map((s) => (
              <label key={s}>
                <input type="checkbox" checked={form.statuses.includes(s)} onChange={() => toggleStatus(s)} /> {s}
              </label>
            ))}
          </div>
        </fieldset>
        <Field label="Currency">
          {({ id }) => (
            <select id={id} value={form.currency} onChange={(e) => set({ currency: valueOf(e) })}>
              <option value="">Any</option>
              {CURRENCIES.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Created from">{({ id }) => <input id={id} type="date" value={form.from} onInput={(e) => set({ from: valueOf(e) })} />}</Field>
        <Field label="Created to">{({ id }) => <input id={id} type="date" value={form.to} onInput={(e) => set({ to: valueOf(e) })} />}</Field>
        <label class="check">
          <input type="checkbox" checked={form.overpayment} onChange={(e) => set({ overpayment: e.currentTarget.checked })} /> Overpaid only
        </label>
      </form>

      <ErrorNote error={error} />
      <section class="card" aria-label="Invoice list">
        <p class="hint" aria-live="polite">
          {page ? `${count} invoice${count === 1 ? '' : 's'}` : 'Loading…'}
          {updatedAt ? ` · live, updated ${formatDate(new Date(updatedAt))}` : ''}
        </p>
        <div class="table-wrap">
          <table class="stack-sm" id="invoice-table">
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <th
                    key={c.label}
                    class={c.num ? 'num' : undefined}
                    aria-sort={c.sort && sort.field === c.sort ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}
                  >
                    {c.sort ? (
                      <button type="button" class="sort" onClick={() => sortBy(c.sort!)}>
                        {c.label} {sort.field === c.sort ? (sort.dir === 'asc' ? '▲' : '▼') : ''}
                      </button>
                    ) : (
                      c.label
                    )}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {page?.items.map((inv) => (
                <tr key={inv.id} data-invoice-id={inv.id} data-status={inv.status}>
                  {COLUMNS.map((c) => (
                    <td key={c.label} data-label={c.label} class={c.num ? 'num' : undefined}>
                      {c.cell(inv)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {page && page.items.length === 0 && <p class="empty">No invoices match these filters.</p>}
        <nav class="pager" aria-label="Pages">
          <button type="button" class="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - limit))}>
            Previous
          </button>
          <span>
            Page {pageNo} of {pages}
          </span>
          <button type="button" class="secondary" disabled={offset + limit >= count} onClick={() => setOffset(offset + limit)}>
            Next
          </button>
          <Field label="Per page">
            {({ id }) => (
              <select id={id} value={String(limit)} onChange={(e) => (setLimit(Number(valueOf(e))), setOffset(0))}>
                {PAGE_SIZES.map((n) => (
                  <option key={n} value={String(n)}>
                    {n}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </nav>
      </section>
    </>
  );
}
