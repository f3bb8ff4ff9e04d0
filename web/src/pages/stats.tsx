// Statistics per currency from the stats API — total, active, earned, earned in the last 7 days,
// pending — and a chart of the paid amounts per day (its `paid_per_day`), refreshed live.
import { useState } from 'preact/hooks';
import type { PageProps } from '../page-props.js';
import { invoiceStats, type InvoiceStats } from '../api/invoices.js';
import { DailyChart } from '../components/chart.js';
import { ErrorNote, Field, PageHeading, Section, valueOf } from '../components/ui.js';
import { dailyTotals } from '../lib/daily.js';
import { usePolling } from '../lib/poll.js';
import { nowSeconds } from '../lib/time.js';
import { CURRENCIES, formatAmount, type Currency } from '../lib/units.js';
import { reportUnlessAborted } from '../lib/use-action.js';
import { invoiceKey } from '../session.js';

const STATS_INTERVAL_MS = 3000;
/** The stats API reports the paid amounts of the last 30 days. */
const CHART_DAYS = 30;

export function StatsPage({ session }: PageProps) {
  const key = invoiceKey(session)!;
  const [stats, setStats] = useState<Partial<Record<Currency, InvoiceStats>>>({});
  const [error, setError] = useState<unknown>(null);
  const [chartCurrency, setChartCurrency] = useState<Currency>('TON');

  usePolling(
    async (signal) => {
      try {
        const all = await Promise.all(CURRENCIES.map((c) => invoiceStats(key, c, signal)));
        setStats(Object.fromEntries(all.map((s, i) => [CURRENCIES[i]!, s])));
        setError(null);
      } catch (err) {
        reportUnlessAborted(err, setError);
      }
    },
    STATS_INTERVAL_MS,
    [key],
  );

  const chartStats = stats[chartCurrency];
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
        title={`Paid per day, last ${CHART_DAYS} days (UTC)`}
        actions={
          <Field label="Currency">
            {({ id }) => (
              <select id={id} value={chartCurrency} onChange={(e) => setChartCurrency(valueOf(e) as Currency)}>
                {CURRENCIES.map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </select>
            )}
          </Field>
        }
      >
        {chartStats ? <DailyChart totals={dailyTotals(chartStats.paid_per_day ?? [], CHART_DAYS, nowSeconds())} currency={chartCurrency} /> : <p>Loading…</p>}
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
