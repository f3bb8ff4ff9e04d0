// The pure parts: payment links read back by a wallet-style parser and the chain decoder, the state
// machine's transitions and overpayment rules, CSV escaping, unit formatting and list filters.
import { describe, expect, it } from 'vitest';
import { parseAccountId, parseAddressInfo } from '../chain/address.js';
import { decodeBody } from '../chain/decode/index.js';
import { parseTransferLink } from '../chain/devnet/links.js';
import { csvField } from './csv.js';
import { paymentLink, invoicePayloadBase64, walletAddress } from './links.js';
import type { Invoice } from './model.js';
import { MAINNET_USDT_MASTER } from '../chain/profile.js';
import { applyPayment, cancel, expire } from './state.js';
import { formatUnits, listFilterInput } from './validate.js';

const ID = '3f2b8c1e-9a4d-4e6f-8b7a-1c2d3e4f5a6b';
const MERCHANT = '0:' + 'ab'.repeat(32);

describe('payment links', () => {
  it('carry the amount, the invoice payload, the expiry and for USDT the master', () => {
    const ton = parseTransferLink(paymentLink({ invoiceId: ID, payTo: MERCHANT, amount: 2_500_000_000n, dateExpire: 1_900_000_000, currency: 'TON', usdtMaster: null, testOnly: false }));
    expect(ton).toMatchObject({ destination: MERCHANT, bounceable: false, amount: 2_500_000_000n, expiresAt: 1_900_000_000, jetton: null });
    const decoded = decodeBody(ton.payload!);
    expect(decoded).toMatchObject({ kind: 'invoice_payload', invoiceId: ID, url: null });
    const usdt = parseTransferLink(paymentLink({ invoiceId: ID, payTo: MERCHANT, amount: 5_000_000n, dateExpire: 1_900_000_000, currency: 'USDT', usdtMaster: MAINNET_USDT_MASTER, testOnly: false }));
    expect(usdt.jetton).toBe(MAINNET_USDT_MASTER);
    expect(MAINNET_USDT_MASTER).toBe(parseAccountId('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs'));
    expect(invoicePayloadBase64(ID)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('name the wallet as wallet apps show it, with the test-only flag on a test network (the console reads it there)', () => {
    for (const testOnly of [false, true]) {
      const wallet = walletAddress(MERCHANT, testOnly);
      expect(wallet.slice(0, 2)).toBe(testOnly ? '0Q' : 'UQ');
      expect(parseAddressInfo(wallet)).toEqual({ account: MERCHANT, bounceable: false, testOnly });
      const link = paymentLink({ invoiceId: ID, payTo: MERCHANT, amount: 1_000_000n, dateExpire: 1_900_000_000, currency: 'TON', usdtMaster: null, testOnly });
      expect(link.startsWith(`ton://transfer/${wallet}?`)).toBe(true);
    }
  });
});

function invoice(over: Partial<Invoice> = {}): Invoice {
  return {
    id: ID, appId: 1, status: 'pending', currency: 'TON', amount: 100n, description: null, dateCreate: 1000, dateExpire: 2000,
    dateChange: null, datePaid: null, payTo: MERCHANT, paymentLink: 'ton://transfer/x', paidBy: null, paidTotal: 0n, overpayment: 0n, ...over,
  };
}

describe('state machine', () => {
  const payer = '0:' + 'cd'.repeat(32);
  it('pays exactly, pays over (excess), adds partial payments, and counts payments to a paid invoice as excess', () => {
    expect(applyPayment(invoice(), { amount: 100n, payer, utime: 1500 }, 1501)).toMatchObject({ kind: 'payment', invoice: { status: 'paid', overpayment: 0n, paidBy: payer, datePaid: 1500, dateChange: 1501 } });
    const over = applyPayment(invoice(), { amount: 130n, payer, utime: 1500 }, 1501);
    expect(over.invoice.overpayment).toBe(30n);
    expect(over.events.map((e) => e.type)).toEqual(['invoice.paid']);
    const half = applyPayment(invoice(), { amount: 60n, payer, utime: 1500 }, 1501);
    expect(half).toMatchObject({ kind: 'payment', events: [], invoice: { status: 'pending', paidTotal: 60n } });
    const full = applyPayment(half.invoice, { amount: 60n, payer, utime: 1600 }, 1601);
    expect(full.invoice).toMatchObject({ status: 'paid', paidTotal: 120n, overpayment: 20n });
    const extra = applyPayment(full.invoice, { amount: 7n, payer, utime: 1700 }, 1701);
    expect(extra).toMatchObject({ kind: 'excess', invoice: { status: 'paid', overpayment: 27n } });
    expect(extra.events.map((e) => e.type)).toEqual(['invoice.overpaid']);
  });

  it('expires first when the payment comes at or after date_expire, then records it in full as overpayment', () => {
    const late = applyPayment(invoice({ paidTotal: 40n }), { amount: 100n, payer, utime: 2000 }, 2005);
    expect(late.kind).toBe('late');
    expect(late.events.map((e) => [e.type, e.invoice.overpayment])).toEqual([['invoice.expired', 40n], ['invoice.overpaid', 140n]]);
    expect(late.invoice).toMatchObject({ status: 'expired', paidBy: null });
  });

  it('cancels and expires only pending invoices; a partial sum becomes overpayment', () => {
    expect(cancel(invoice({ paidTotal: 10n }), 1200)).toMatchObject({ invoice: { status: 'cancelled', overpayment: 10n, dateChange: 1200 } });
    expect(cancel(invoice({ status: 'paid' }), 1200).events).toEqual([]);
    expect(expire(invoice(), 2000).events.map((e) => e.type)).toEqual(['invoice.expired']);
    expect(expire(invoice({ status: 'cancelled' }), 2000).events).toEqual([]);
    const paidLate = applyPayment(invoice({ status: 'cancelled' }), { amount: 5n, payer, utime: 1100 }, 1101);
    expect(paidLate).toMatchObject({ kind: 'late', invoice: { status: 'cancelled', overpayment: 5n } });
  });

  it('never lets a sum leave the 64-bit range of the store', () => {
    const huge = applyPayment(invoice({ status: 'paid', overpayment: 2n ** 63n - 10n }), { amount: 100n, payer, utime: 1 }, 1);
    expect(huge.invoice.overpayment).toBe(2n ** 63n - 1n);
  });
});

describe('formatting and filters', () => {
  it('formats units and escapes CSV fields, defusing spreadsheet formulas', () => {
    expect(formatUnits(1_000_000n, 'TON')).toBe('0.001 TON');
    expect(formatUnits(12_500_000n, 'USDT')).toBe('12.5 USDT');
    expect(formatUnits(10n ** 18n, 'TON')).toBe('1000000000 TON');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField(null)).toBe('');
    expect(csvField(-5)).toBe('-5');
  });

  it('reads the list query in every accepted form', () => {
    expect(listFilterInput({})).toMatchObject({ limit: 100, offset: 0, fieldOrder: 'date_create', typeOrder: 'desc', statuses: [], currency: null, overpayment: null });
    expect(listFilterInput({ 'filter_status[]': ['paid', 'expired'] }).statuses).toEqual(['paid', 'expired']);
    expect(listFilterInput({ filter_status: 'paid,cancelled' }).statuses).toEqual(['paid', 'cancelled']);
    expect(listFilterInput({ currency: 'usdt', overpayment: 'true', type_order: 'ASC' })).toMatchObject({ currency: 'USDT', overpayment: true, typeOrder: 'asc' });
    expect(() => listFilterInput({ search_id: "x' or 1=1" })).toThrow(/search_id/);
    expect(() => listFilterInput({ offset: '-1' })).toThrow(/offset/);
  });
});
