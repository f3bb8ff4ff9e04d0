// The console's exact arithmetic: decimal amounts to minimal units and back (no floating point),
// custom lifetimes, the per-day totals of the statistics chart, and addresses in the forms wallets
// show (checked against @ton/core).
import { describe, expect, it } from 'vitest';
import { formatUnits, parseAmount, minUnits } from '../../web/src/lib/units.js';
import { formatDuration, MAX_LIFETIME_SECONDS, parseCustomLifetime } from '../../web/src/lib/lifetime.js';
import { dailyTotals } from '../../web/src/lib/daily.js';
import { Address } from '@ton/core';
import { friendlyAddress, isTestOnly, linkAddress } from '../../web/src/lib/address.js';

describe('parseAmount', () => {
  it('converts decimals to units exactly, where floating point would not', () => {
    expect(parseAmount('0.1', 'TON')).toEqual({ ok: true, units: '100000000' });
    expect(parseAmount('1.15', 'TON')).toEqual({ ok: true, units: '1150000000' }); // 1.15 * 1e9 = 1149999999.9999998
    expect(parseAmount('0.29', 'USDT')).toEqual({ ok: true, units: '290000' }); // 0.29 * 1e6 = 289999.99999999994
    expect(parseAmount('123456789.123456789', 'TON')).toEqual({ ok: true, units: '123456789123456789' });
    expect(parseAmount('9007199254740993', 'USDT')).toEqual({ ok: true, units: '9007199254740993000000' });
  });

  it('accepts a comma, leading/trailing zeros and surrounding spaces', () => {
    expect(parseAmount(' 2,5 ', 'USDT')).toEqual({ ok: true, units: '2500000' });
    expect(parseAmount('007.500', 'TON')).toEqual({ ok: true, units: '7500000000' });
    expect(parseAmount('1.0000000010', 'TON')).toEqual({ ok: true, units: '1000000001' });
    expect(parseAmount('.5', 'TON')).toEqual({ ok: true, units: '500000000' });
    expect(parseAmount('5.', 'TON')).toEqual({ ok: true, units: '5000000000' });
  });

  it('enforces the minimum of 0.001 and the decimals of the currency', () => {
    expect(parseAmount('0.001', 'TON')).toEqual({ ok: true, units: minUnits('TON') });
    expect(parseAmount('0.001', 'USDT')).toEqual({ ok: true, units: '1000' });
    expect(parseAmount('0.0009', 'TON')).toMatchObject({ ok: false, error: expect.stringContaining('0.001 TON') });
    expect(parseAmount('1.0000001', 'USDT')).toMatchObject({ ok: false, error: expect.stringContaining('6 decimal places') });
    expect(parseAmount('1.0000000001', 'TON')).toMatchObject({ ok: false, error: expect.stringContaining('9 decimal places') });
  });

  it('refuses what is not a positive decimal number', () => {
    for (const bad of ['', ' ', '.', 'abc', '1e9', '-1', '+1', '1.2.3', '1 000', '0x10', '１']) {
      expect(parseAmount(bad, 'TON').ok, bad).toBe(false);
    }
    expect(parseAmount('0', 'TON')).toMatchObject({ ok: false, error: expect.stringContaining('more than zero') });
    expect(parseAmount('0.000', 'TON').ok).toBe(false);
  });

  it('round-trips through formatUnits', () => {
    for (const [text, cur] of [['1.5', 'TON'], ['0.001', 'USDT'], ['42', 'TON'], ['1000000.000001', 'USDT']] as const) {
      const parsed = parseAmount(text, cur);
      expect(parsed.ok).toBe(true);
      if (parsed.ok) expect(formatUnits(parsed.units, cur)).toBe(text);
    }
    expect(formatUnits('1', 'TON')).toBe('0.000000001');
    expect(formatUnits('0', 'USDT')).toBe('0');
  });
});

describe('custom lifetime', () => {
  it('accepts whole minutes, hours, days up to 90 days', () => {
    expect(parseCustomLifetime('90', 'days')).toEqual({ ok: true, seconds: MAX_LIFETIME_SECONDS });
    expect(parseCustomLifetime('2160', 'hours')).toEqual({ ok: true, seconds: MAX_LIFETIME_SECONDS });
    expect(parseCustomLifetime('15', 'minutes')).toEqual({ ok: true, seconds: 900 });
  });
  it('refuses more than 90 days, zero and non-integers with a message', () => {
    expect(parseCustomLifetime('91', 'days')).toMatchObject({ ok: false, error: expect.stringContaining('90 days') });
    expect(parseCustomLifetime('129601', 'minutes').ok).toBe(false);
    expect(parseCustomLifetime('0', 'hours').ok).toBe(false);
    expect(parseCustomLifetime('1.5', 'hours').ok).toBe(false);
    expect(parseCustomLifetime('', 'days').ok).toBe(false);
  });
  it('formats what is left', () => {
    expect(formatDuration(93784)).toBe('1 d 2 h 3 min');
    expect(formatDuration(3599)).toBe('59 min 59 s');
    expect(formatDuration(-5)).toBe('0 s');
  });
});

describe('dailyTotals', () => {
  it('spreads the API\'s paid_per_day over every UTC day of the window, summing exactly', () => {
    const now = Date.UTC(2024, 4, 20, 15) / 1000;
    const midnight = (d: number) => Date.UTC(2024, 4, d) / 1000;
    const totals = dailyTotals(
      [
        { day: midnight(20), amount: '9007199254740993', count: 1 },
        { day: midnight(18), amount: '1000', count: 2 },
        { day: midnight(10), amount: '5', count: 1 }, // before the window
      ],
      3,
      now,
    );
    expect(totals.map((t) => [t.day, t.units.toString(), t.count])).toEqual([
      ['2024-05-18', '1000', 2],
      ['2024-05-19', '0', 0],
      ['2024-05-20', '9007199254740993', 1],
    ]);
  });
});

describe('friendlyAddress', () => {
  it('gives the user-friendly form @ton/core gives, for every flag and workchain', () => {
    for (const raw of ['0:6f5bc67986e06430961d9df00433926a4cd92e597ddd8aa6043645ac20bd1782', '-1:' + '33'.repeat(32), '0:' + 'ff'.repeat(32)]) {
      for (const bounceable of [true, false]) {
        for (const testOnly of [true, false]) {
          const theirs = Address.parseRaw(raw).toString({ bounceable, testOnly, urlSafe: true });
          expect(friendlyAddress(raw, { bounceable, testOnly })).toBe(theirs);
          expect(isTestOnly(theirs)).toBe(testOnly);
        }
      }
    }
    expect(friendlyAddress('0:6f5bc67986e06430961d9df00433926a4cd92e597ddd8aa6043645ac20bd1782')).toMatch(/^UQ/);
    expect(friendlyAddress('not an address')).toBe('not an address');
  });

  it('reads the address of a payment link', () => {
    const testnet = Address.parseRaw('0:' + 'ab'.repeat(32)).toString({ bounceable: false, testOnly: true });
    expect(linkAddress(`ton://transfer/${testnet}?amount=1&bin=x`)).toBe(testnet);
    expect(isTestOnly(linkAddress(`ton://transfer/${testnet}?amount=1`))).toBe(true);
    expect(linkAddress('https://example.com')).toBe('');
  });
});
