// Amounts: the API speaks integer strings of minimal units (nanoton, USDT micro-units); people type
// decimals. Conversion is string arithmetic on digits — never floating point, which cannot hold
// 0.1 TON exactly.

export type Currency = 'TON' | 'USDT';
export const CURRENCIES: readonly Currency[] = ['TON', 'USDT'];

/** Decimal places of one unit of each currency (TON 10^-9, USDT 10^-6). */
export const DECIMALS: Record<Currency, number> = { TON: 9, USDT: 6 };

/** Smallest invoice amount in whole-currency terms (compat.md §5): 0.001 of the currency. */
export const MIN_AMOUNT_DECIMAL = '0.001';

export type ParsedAmount = { ok: true; units: string } | { ok: false; error: string };

/** "1.5" TON → "1500000000". Accepts a dot or a comma as the decimal separator. */
export function parseAmount(text: string, currency: Currency): ParsedAmount {
  const decimals = DECIMALS[currency];
  const s = text.trim().replace(',', '.');
  if (s === '') return { ok: false, error: 'enter an amount' };
  const m = /^(\d*)(?:\.(\d*))?$/.exec(s);
  if (!m || (m[1] === '' && (m[2] ?? '') === '')) {
    return { ok: false, error: `"${text.trim()}" is not a number: use digits and one decimal point, e.g. 12.5` };
  }
  const whole = m[1] ?? '';
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) {
    return { ok: false, error: `${currency} has at most ${decimals} decimal places` };
  }
  const units = stripZeros(whole + fraction.padEnd(decimals, '0'));
  if (units === '0') return { ok: false, error: 'the amount must be more than zero' };
  if (compareUnits(units, minUnits(currency)) < 0) {
    return { ok: false, error: `the smallest amount is ${MIN_AMOUNT_DECIMAL} ${currency}` };
  }
  return { ok: true, units };
}

/** Minimal units of the smallest invoice amount: 10^(decimals-3). */
export function minUnits(currency: Currency): string {
  return '1' + '0'.repeat(DECIMALS[currency] - 3);
}

/** "1500000000" TON → "1.5"; trailing zeros trimmed, no grouping. */
export function formatUnits(units: string | undefined | null, currency: Currency): string {
  if (units == null || !/^\d+$/.test(units)) return units ?? '';
  const decimals = DECIMALS[currency];
  const padded = units.padStart(decimals + 1, '0');
  const whole = stripZeros(padded.slice(0, padded.length - decimals));
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** "1500000000", TON → "1.5 TON" */
export function formatAmount(units: string | undefined | null, currency: Currency): string {
  return `${formatUnits(units, currency)} ${currency}`;
}

/** Sum of unit strings, exactly. */
export function addUnits(a: string, b: string): string {
  return (BigInt(a) + BigInt(b)).toString();
}

export function compareUnits(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function stripZeros(digits: string): string {
  return digits.replace(/^0+(?=\d)/, '') || '0';
}

export function isCurrency(value: unknown): value is Currency {
  return value === 'TON' || value === 'USDT';
}
