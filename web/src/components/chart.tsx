// Paid amounts per day as a plain SVG bar chart, with the same numbers in a table for screen readers.
import type { DayTotal } from '../lib/daily.js';
import { formatUnits, type Currency } from '../lib/units.js';

const W = 640;
const H = 220;
const PAD = { left: 8, right: 8, top: 16, bottom: 28 };

export function DailyChart({ totals, currency }: { totals: DayTotal[]; currency: Currency }) {
  const max = totals.reduce((m, t) => (t.units > m ? t.units : m), 0n);
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const slot = innerW / Math.max(1, totals.length);
  const barW = Math.max(2, slot * 0.7);
  // Heights as a ratio of bigints scaled to 1/1000 of the axis: exact enough for pixels, no overflow.
  const height = (u: bigint) => (max === 0n ? 0 : (Number((u * 1000n) / max) / 1000) * innerH);
  const sum = totals.reduce((s, t) => s + t.units, 0n);
  const label = `Paid ${currency} per day over the last ${totals.length} days: ${formatUnits(sum.toString(), currency)} ${currency} in total`;
  return (
    <div class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label}>
        <line class="axis" x1={PAD.left} x2={W - PAD.right} y1={H - PAD.bottom} y2={H - PAD.bottom} />
        {totals.map((t, i) => {
          const h = height(t.units);
          const x = PAD.left + i * slot + (slot - barW) / 2;
          return (
            <g key={t.day}>
              <rect class="bar" x={x} y={H - PAD.bottom - h} width={barW} height={h} data-day={t.day} data-units={t.units.toString()}>
                <title>{`${t.day}: ${formatUnits(t.units.toString(), currency)} ${currency} (${t.count} invoice${t.count === 1 ? '' : 's'})`}</title>
              </rect>
              {(i % Math.ceil(totals.length / 7) === 0 || i === totals.length - 1) && (
                <text x={x + barW / 2} y={H - 8} text-anchor="middle">
                  {t.day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
        <text x={PAD.left} y={12}>
          max {formatUnits(max.toString(), currency)} {currency}
        </text>
      </svg>
      <details>
        <summary>Numbers by day</summary>
        <table>
          <thead>
            <tr>
              <th>Day</th>
              <th class="num">Paid ({currency})</th>
              <th class="num">Invoices</th>
            </tr>
          </thead>
          <tbody>
            {totals
              .filter((t) => t.count > 0)
              .map((t) => (
                <tr key={t.day}>
                  <td>{t.day}</td>
                  <td class="num">{formatUnits(t.units.toString(), currency)}</td>
                  <td class="num">{t.count}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
