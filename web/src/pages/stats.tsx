// Statistics per currency (the stats API: total, active, earned, earned in 7 days, pending) and a
// chart of paid amounts per day built from the list API's paid invoices.
import { useState } from 'preact/hooks';
import type { PageProps } from '../app.js';
import { invoiceStats, listInvoices, type Invoice, type InvoiceStats } from '../api/invoices.js';
import { DailyChart } from '../components/chart.js';
import { ErrorNote, Field, PageHeading, Section, valueOf } from '../components/ui.js';
import { dailyTotals, windowStart } from '../lib/daily.js';
import { usePolling } from '../lib/poll.js';
import { nowSeconds } from '../lib/time.js';
import { CURRENCIES, formatAmount, type Currency } from '../lib/units.js';
import { invoiceKey } from '../session.js';

const STATS_INTERVAL_MS = 5000;
const CHART_DAYS = [14, 30, 90];
const PAGE = 100;
/** The chart reads at most this many paid invoices (newest first); it says so when there are more. */
const MAX_CHART_INVOICES = 2000;

export function StatsPage({ session }: PageProps) {
  const key = invoiceKey(session)!;
  const [stats, setStats] = useState<Partial<Record<Currency, InvoiceStats>>>({});
  const [error, setError] = useState<unknown>(null);
  const [chartCurrency, setChartCurrency] = useState<Currency>('TON');
  const [days, setDays] = useState(30);
  const [paid, setPaid] = useState<{ items: Invoice[]; truncated: boolean } | null>(null);

  usePolling(
    async (signal) => {
      try {
        const all = await Promise.all(CURRENCIES.map((c) => invoiceStats(key, c, signal)));
        setStats(Object.fromEntries(all.map((s, i) => [CURRENCIES[i]!, s])));
        setPaid(await paidSince(key, chartCurrency, windowStart(days, nowSeconds()), signal));
        setError(null);
      } catch (err) {
        if ((err as Error).name !== 'AbortError') setError(err);
      }
    },
    STATS_INTERVAL_MS,
    [key, chartCurrency, days],
  );

  return (
    <>
      <PageHeading>Statistics</PageHeading>
      <ErrorNote error={error} />
      <div class="grid">
        {CURRENCIES.map((c) => (
          <Section key={c} title={c}>
            <CurrencyStats currency={c} stats={stats[c]} />
          </Section>
        ))}
      </div>
      <Section
        title="Paid per day"
        actions={
          <div class="row">
            <Field label="Currency">
              {({ id }) => (
                <select id={id} value={chartCurrency} onChange={(e) => setChartCurrency(valueOf(e) as Currency)}>
                  {CURRENCIES.map((c) => (
                    <option key={c}>{c}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Days">
              {({ id }) => (
                <select id={id} value={String(days)} onChange={(e) => setDays(Number(valueOf(e)))}>
                  {CHART_DAYS.map((d) => (
                    <option key={d} value={String(d)}>
                      {d}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </div>
        }
      >
        {paid ? <DailyChart totals={dailyTotals(paid.items, days, nowSeconds())} currency={chartCurrency} /> : <p>Loading…</p>}
        {paid?.truncated && <p class="hint">Only the newest {MAX_CHART_INVOICES} paid invoices are charted.</p>}
      </Section>
    </>
  );
}

function CurrencyStats({ currency, stats }: { currency: Currency; stats?: InvoiceStats }) {
  if (!stats) return <p>Loading…</p>;
  const items: Array<[string, string, string]> = [
    ['total', 'Total invoices', String(stats.total)],
    ['active', 'Active (pending)', String(stats.invoices_in_progress)],
    ['earned', 'Earned total', formatAmount(stats.success_total, currency)],
    ['week', 'Earned, last 7 days', formatAmount(stats.success_in_week, currency)],
    ['pending', 'Pending amount', formatAmount(stats.total_amount_pending, currency)],
  ];
  return (
    <div class="stat-grid" data-currency={currency}>
      {items.map(([id, label, value]) => (
        <div class="stat" key={id} data-stat={id}>
          <div class="label">{label}</div>
          <div class="value">{value}</div>
        </div>
      ))}
    </div>
  );
}

/** Paid invoices of one currency paid at or after `since`, newest payment first. */
async function paidSince(key: string, currency: Currency, since: number, signal: AbortSignal): Promise<{ items: Invoice[]; truncated: boolean }> {
  const items: Invoice[] = [];
  for (let offset = 0; offset < MAX_CHART_INVOICES; offset += PAGE) {
    const page = await listInvoices(key, { filter_status: ['paid'], currency, field_order: 'date_paid', type_order: 'desc' }, { limit: PAGE, offset }, signal);
    for (const inv of page.items) {
      if ((inv.date_paid ?? 0) < since) return { items, truncated: false };
      items.push(inv);
    }
    if (offset + PAGE >= page.count) return { items, truncated: false };
  }
  return { items, truncated: true };
}
