// Invoicing end to end on the devnet with real transactions: an application on the merchant
// wallet with a real local webhook receiver; invoices paid by following their payment links
// (TON and USDT), by comment, partially, twice, late, after cancel; fakes and bounces ignored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { startTestService, type TestService } from '../../test/support/service.js';
import { Receiver, until } from '../../test/support/webhooks.js';
import type { InvoiceJson } from './model.js';
import {
  createApp,
  createInvoice,
  devnet,
  devnetAndInvoices,
  getInvoice,
  invoicesOf,
  pay,
  settleInvoices,
  walletAddress,
  withAmount,
} from '../../test/support/invoices.js';

const TON = 1_000_000_000n;
const USDT = 1_000_000n;

describe('invoices on the devnet', () => {
  let svc: TestService;
  let receiver: Receiver;
  let token: string;
  let secret: string;
  let merchant: string;
  let alice: string;

  beforeAll(async () => {
    svc = await startTestService({ components: devnetAndInvoices });
    receiver = await new Receiver().listen(0);
    merchant = await walletAddress(svc, 'merchant');
    alice = await walletAddress(svc, 'alice');
    const created = await createApp(svc, { name: 'Shop', recipient_address: merchant, webhooks: [receiver.url] });
    token = created.token;
    secret = created.app.webhooks[0]!.signing_secret;
  });

  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  /** Webhooks received for one invoice, verified with the Standard Webhooks library. */
  function hooksOf(id: string): Array<{ type: string; body: InvoiceJson }> {
    const wh = new Webhook(secret);
    return receiver.requests
      .filter((r) => (JSON.parse(r.body) as InvoiceJson).id === id)
      .map((r) => {
        wh.verify(r.body, r.headers as Record<string, string>);
        return { type: String(r.headers['webhook-event-type']), body: JSON.parse(r.body) as InvoiceJson };
      });
  }

  async function hooks(id: string, n: number): Promise<Array<{ type: string; body: InvoiceJson }>> {
    await until(() => hooksOf(id).length >= n, 10_000, `${n} webhooks for ${id}`);
    return hooksOf(id);
  }

  it('creates an invoice whose link pays it in TON: paid, one signed webhook equal to GET', async () => {
    const res = await svc.api('/api/v1/services/invoices/invoice', { method: 'POST', auth: token, json: { amount: String(2n * TON), life_time: 600, currency: 'TON', description: 'order 1' } });
    expect(res.status).toBe(201);
    const created = (await res.json()) as InvoiceJson;
    expect(res.headers.get('location')).toBe(`/api/v1/services/invoices/${created.id}`);
    expect(created).toMatchObject({ status: 'pending', amount: '2000000000', currency: 'TON', description: 'order 1', pay_to_address: merchant });
    expect(created.date_change).toBeUndefined();
    expect(created.overpayment).toBeUndefined();
    expect(created.date_expire - created.date_create).toBe(600);
    expect(created.payment_link).toMatch(/^ton:\/\/transfer\/UQ[A-Za-z0-9_-]{46}\?amount=2000000000&bin=[A-Za-z0-9_-]+&exp=\d+$/);

    await pay(svc, 'alice', created.payment_link);
    await settleInvoices(svc);
    const [hook] = await hooks(created.id, 1);
    const got = await getInvoice(svc, token, created.id);
    expect(got.status).toBe('paid');
    expect(got.paid_by_address).toBe(alice);
    expect(got.date_change).toBeGreaterThanOrEqual(created.date_create);
    expect(got.overpayment).toBeUndefined();
    expect(got.payments).toHaveLength(1);
    expect(got.payments![0]).toMatchObject({ amount: '2000000000', payer: alice, kind: 'payment' });
    expect(hook!.type).toBe('invoice.paid');
    expect(hook!.body).toEqual(got);
    await new Promise((r) => setTimeout(r, 300));
    expect(hooksOf(created.id)).toHaveLength(1);
  });

  it('pays a USDT invoice through the link: a jetton transfer to the derived wallet, payer = sending owner', async () => {
    const inv = await createInvoice(svc, token, { amount: String(15n * USDT), life_time: 600, currency: 'USDT' });
    const info = (await (await svc.api('/devnet/info')).json()) as { jettons: Array<{ key: string; master: string }> };
    const usdtMaster = info.jettons.find((j) => j.key === 'usdt')!.master;
    const linkMaster = new URL(inv.payment_link.replace('ton://', 'http://x/')).searchParams.get('jetton')!;
    const { parseAccountId } = await import('../chain/address.js');
    expect(parseAccountId(linkMaster)).toBe(usdtMaster);
    await pay(svc, 'bob', inv.payment_link);
    await settleInvoices(svc);
    const [hook] = await hooks(inv.id, 1);
    const got = await getInvoice(svc, token, inv.id);
    expect(got).toMatchObject({ status: 'paid', paid_by_address: await walletAddress(svc, 'bob') });
    expect(hook!.body).toEqual(got);
  });

  it('is paid by a text comment equal to the invoice id (a wallet that drops bin)', async () => {
    const inv = await createInvoice(svc, token, { amount: String(TON), life_time: 600, currency: 'TON' });
    await devnet(svc, '/devnet/send', { from: 'carol', to: 'merchant', amount: String(TON), comment: inv.id.toUpperCase() });
    await settleInvoices(svc);
    await hooks(inv.id, 1);
    expect((await getInvoice(svc, token, inv.id)).status).toBe('paid');
  });

  it('records an overpayment as the excess, and a second payment to a paid invoice adds to it', async () => {
    const inv = await createInvoice(svc, token, { amount: String(TON), life_time: 600, currency: 'TON' });
    await pay(svc, 'dave', withAmount(inv.payment_link, (3n * TON) / 2n));
    await settleInvoices(svc);
    const first = await getInvoice(svc, token, inv.id);
    expect(first).toMatchObject({ status: 'paid', overpayment: String(TON / 2n) });
    await pay(svc, 'dave', withAmount(inv.payment_link, TON / 4n));
    await settleInvoices(svc);
    const [paid, overpaid] = await hooks(inv.id, 2);
    const second = await getInvoice(svc, token, inv.id);
    expect(second).toMatchObject({ status: 'paid', overpayment: String((3n * TON) / 4n) });
    expect(second.payments!.map((p) => p.kind)).toEqual(['payment', 'excess']);
    expect(paid!.type).toBe('invoice.paid');
    expect(paid!.body).toEqual(first);
    expect(overpaid!.type).toBe('invoice.overpaid');
    expect(overpaid!.body).toEqual(second);
  });

  it('adds up two partial payments and becomes paid when the sum reaches the amount', async () => {
    const inv = await createInvoice(svc, token, { amount: String(2n * TON), life_time: 600, currency: 'TON' });
    await pay(svc, 'alice', withAmount(inv.payment_link, TON));
    await settleInvoices(svc);
    const half = await getInvoice(svc, token, inv.id);
    expect(half.status).toBe('pending');
    expect(half.payments).toHaveLength(1);
    expect(hooksOf(inv.id)).toHaveLength(0);
    await pay(svc, 'bob', withAmount(inv.payment_link, TON));
    await settleInvoices(svc);
    const [hook] = await hooks(inv.id, 1);
    const got = await getInvoice(svc, token, inv.id);
    expect(got).toMatchObject({ status: 'paid', paid_by_address: await walletAddress(svc, 'bob') });
    expect(got.overpayment).toBeUndefined();
    expect(hook!.body).toEqual(got);
  });

  it('cancels a pending invoice (webhook), then records a payment to it as overpayment', async () => {
    const inv = await createInvoice(svc, token, { amount: String(TON), life_time: 600, currency: 'TON' });
    const res = await svc.api(`/api/v1/services/invoices/${inv.id}/cancel`, { method: 'PATCH', auth: token });
    expect(res.status).toBe(200);
    const cancelled = (await res.json()) as InvoiceJson;
    expect(cancelled.status).toBe('cancelled');
    const again = await svc.api(`/api/v1/services/invoices/${inv.id}/cancel`, { method: 'PATCH', auth: token });
    expect(again.status).toBe(409);
    await pay(svc, 'carol', inv.payment_link);
    await settleInvoices(svc);
    const [c, o] = await hooks(inv.id, 2);
    const got = await getInvoice(svc, token, inv.id);
    expect(got).toMatchObject({ status: 'cancelled', overpayment: String(TON) });
    expect(got.paid_by_address).toBeUndefined();
    expect(got.payments![0]!.kind).toBe('late');
    expect([c!.type, o!.type]).toEqual(['invoice.cancelled', 'invoice.overpaid']);
    expect(c!.body).toEqual(cancelled);
    expect(o!.body).toEqual(got);
  });

  it('expires at date_expire (webhook) and a later payment stays expired with overpayment = full amount', async () => {
    const inv = await createInvoice(svc, token, { amount: String(TON), life_time: 1, currency: 'TON' });
    const [expired] = await hooks(inv.id, 1);
    expect(expired!.type).toBe('invoice.expired');
    expect(expired!.body.status).toBe('expired');
    expect(expired!.body.date_change).toBeGreaterThanOrEqual(inv.date_expire);
    await pay(svc, 'alice', inv.payment_link, { ignore_expiry: true });
    await settleInvoices(svc);
    const [, late] = await hooks(inv.id, 2);
    const got = await getInvoice(svc, token, inv.id);
    expect(got).toMatchObject({ status: 'expired', overpayment: String(TON) });
    expect(late!.type).toBe('invoice.overpaid');
    expect(late!.body).toEqual(got);
  });

  it('ignores a look-alike USDT, a forged notification and a forged (bounced) internal_transfer', async () => {
    const inv = await createInvoice(svc, token, { amount: String(5n * USDT), life_time: 600, currency: 'USDT' });
    const metrics = async () => (await (await svc.api('/metrics')).text()).match(/tonwatch_invoice_payments_ignored_total\{reason="[a-z_]+"\} \d+/g) ?? [];
    await devnet(svc, '/devnet/jetton/send', { from: 'mallory', jetton: 'fake-usdt', to: 'merchant', amount: String(5n * USDT), comment: inv.id });
    await devnet(svc, '/devnet/scenarios/forged-notification', { from: 'mallory', to: 'merchant', amount: String(5n * USDT), comment: inv.id });
    await devnet(svc, '/devnet/scenarios/forged-internal-transfer', { from: 'mallory', jetton: 'usdt', to: 'merchant', amount: String(5n * USDT), comment: inv.id });
    await settleInvoices(svc);
    const got = await getInvoice(svc, token, inv.id);
    expect(got.status).toBe('pending');
    expect(got.payments).toEqual([]);
    const counted = (await metrics()).join('\n');
    expect(counted).toMatch(/reason="untrusted_notification"\} [2-9]/);
    expect(counted).toMatch(/reason="bounced"\} [1-9]/);
    expect(hooksOf(inv.id)).toHaveLength(0);
  });

  it('ignores a USDT payment to a TON invoice and a TON payment naming an unknown invoice', async () => {
    const inv = await createInvoice(svc, token, { amount: String(TON), life_time: 600, currency: 'TON' });
    await devnet(svc, '/devnet/jetton/send', { from: 'alice', jetton: 'usdt', to: 'merchant', amount: String(USDT), comment: inv.id });
    await devnet(svc, '/devnet/send', { from: 'alice', to: 'merchant', amount: String(TON), comment: '6f1c1f56-0000-4000-8000-000000000000' });
    await settleInvoices(svc);
    expect((await getInvoice(svc, token, inv.id)).status).toBe('pending');
    const text = await (await svc.api('/metrics')).text();
    expect(text).toMatch(/reason="currency_mismatch"\} 1/);
    expect(text).toMatch(/reason="unknown_invoice"\} 1/);
  });

  it('keeps tenants apart: another application cannot read, list, cancel or export these invoices', async () => {
    const other = await createApp(svc, { name: 'Other shop', recipient_address: alice });
    const inv = await createInvoice(svc, token, { amount: String(TON), life_time: 600, currency: 'TON', description: 'secret' });
    const t = other.token;
    expect((await svc.api(`/api/v1/services/invoices/${inv.id}`, { auth: t })).status).toBe(404);
    expect((await svc.api(`/api/v1/services/invoices/${inv.id}?api_key=${t}`, { auth: null })).status).toBe(404);
    expect((await svc.api(`/api/v1/services/invoices/${inv.id}/cancel`, { method: 'PATCH', auth: t })).status).toBe(404);
    expect((await svc.api(`/api/v1/services/invoices/${inv.id}/qr`, { auth: t })).status).toBe(404);
    const list = (await (await svc.api('/api/v1/services/invoices', { auth: t })).json()) as { items: unknown[]; count: number };
    expect(list).toEqual({ items: [], count: 0 });
    const csv = await (await svc.api('/api/v1/services/invoices/export', { auth: t })).text();
    expect(csv).not.toContain(inv.id);
    expect(csv.trim().split('\r\n')).toHaveLength(1);
    expect((await svc.api(`/api/v1/services/invoices/app/${(await createdAppId(token))}`, { auth: t })).status).toBe(404);
    // and the owner still sees it
    expect((await svc.api(`/api/v1/services/invoices/${inv.id}`, { auth: token })).status).toBe(200);
  });

  async function createdAppId(appToken: string): Promise<number> {
    const { apps } = (await (await svc.api('/api/v1/services/invoices/app', { auth: appToken })).json()) as { apps: Array<{ id: number }> };
    return apps[0]!.id;
  }

  it('health and metrics report the matcher', async () => {
    const ready = (await (await svc.api('/readyz')).json()) as { checks?: Record<string, unknown> };
    expect(JSON.stringify(ready)).toContain('matcher_position');
    const text = await (await svc.api('/metrics')).text();
    expect(text).toMatch(/tonwatch_invoices_created_total\{currency="TON"\} [1-9]/);
    expect(text).toMatch(/tonwatch_invoices_paid_total\{currency="USDT"\} 1/);
    expect(text).toMatch(/tonwatch_invoice_payments_matched_total\{currency="TON",kind="excess"\} 1/);
    expect(text).toContain('tonwatch_invoice_matcher_lag_seconds');
    expect(invoicesOf(svc).position).toBeGreaterThan(0);
  });
});
