// A payment detected before it is final, on the devnet with real transactions: manual blocks, each shown
// non-final for a while before its masterchain block commits it, so every level is observable. The
// invoice shows `detected` at pending, then confirmed, and becomes `paid` only when finalized (then
// `detected` is gone), with the one webhook it always had; the optional invoice.detected webhook, when on,
// comes first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test/support/service.js';
import { Receiver, until } from '../../test/support/webhooks.js';
import { createApp, devnetAndInvoices, getInvoice, pay, settleInvoices, walletAddress } from '../../test/support/invoices.js';
import type { InvoiceJson } from './model.js';

describe('payments detected before they are final (devnet)', () => {
  let svc: TestService;
  let receiver: Receiver;
  let token: string;
  let merchant: string;

  beforeAll(async () => {
    svc = await startTestService({ components: devnetAndInvoices, env: { TONWATCH_DEVNET_CONFIRMATION_LAG_MS: '1500' } });
    receiver = await new Receiver().listen(0);
    merchant = await walletAddress(svc, 'merchant');
    const created = await createApp(svc, { name: 'Shop', recipient_address: merchant, webhooks: [receiver.url] });
    token = created.token;
  });

  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  const invoice = async (amount: string): Promise<InvoiceJson> => {
    const res = await svc.api('/api/v1/services/invoices/invoice', { method: 'POST', auth: token, json: { amount, life_time: 600, currency: 'TON' } });
    expect(res.status).toBe(201);
    return (await res.json()) as InvoiceJson;
  };

  it('shows the payment pending, then confirmed, and paid only when finalized', async () => {
    const inv = await invoice('1500000000');
    expect(inv.detected).toBeUndefined();
    await pay(svc, 'alice', inv.payment_link);

    // in the mempool: seen, not paid
    let got = await getInvoice(svc, token, inv.id);
    expect(got.status).toBe('pending');
    expect(got.detected).toMatchObject({ amount: '1500000000', finality: 'pending', trace: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const list = (await (await svc.api('/api/v1/services/invoices?limit=10', { auth: token })).json()) as { items: InvoiceJson[] };
    expect(list.items.find((i) => i.id === inv.id)?.detected?.finality).toBe('pending');

    // its block made and shown non-final: confirmed, still not paid
    const block = svc.produceBlock();
    await until(async () => (await getInvoice(svc, token, inv.id)).detected?.finality === 'confirmed', 5000, 'detected at confirmed');
    got = await getInvoice(svc, token, inv.id);
    expect(got.status).toBe('pending');
    expect(got.payments).toEqual([]);
    expect(receiver.requests).toHaveLength(0);

    // committed: paid exactly as before, one webhook, and `detected` no longer shown
    await block;
    await settleInvoices(svc);
    got = await getInvoice(svc, token, inv.id);
    expect(got.status).toBe('paid');
    expect(got.detected).toBeUndefined();
    await until(() => receiver.requests.length === 1, 10_000, 'the paid webhook');
    expect(receiver.requests[0]!.headers['webhook-event-type']).toBe('invoice.paid');
    expect((JSON.parse(receiver.requests[0]!.body) as InvoiceJson).detected).toBeUndefined();
  });
});

describe('the invoice.detected webhook (TONWATCH_INVOICE_DETECTED_WEBHOOK=true)', () => {
  let svc: TestService;
  let receiver: Receiver;

  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  it('is sent once when the payment is first seen, before invoice.paid, with the invoice still pending', async () => {
    svc = await startTestService({ components: devnetAndInvoices, env: { TONWATCH_INVOICE_DETECTED_WEBHOOK: 'true' } });
    receiver = await new Receiver().listen(0);
    const { token } = await createApp(svc, { name: 'Shop', recipient_address: await walletAddress(svc, 'merchant'), webhooks: [receiver.url] });
    const res = await svc.api('/api/v1/services/invoices/invoice', { method: 'POST', auth: token, json: { amount: '900000000', life_time: 600, currency: 'TON' } });
    const inv = (await res.json()) as InvoiceJson;
    await pay(svc, 'alice', inv.payment_link);
    await until(() => receiver.requests.length === 1, 10_000, 'the detected webhook');
    const detected = JSON.parse(receiver.requests[0]!.body) as InvoiceJson;
    expect(receiver.requests[0]!.headers['webhook-event-type']).toBe('invoice.detected');
    expect(detected).toMatchObject({ id: inv.id, status: 'pending', payments: [], detected: { amount: '900000000', finality: 'pending' } });

    await settleInvoices(svc);
    await until(() => receiver.requests.length === 2, 10_000, 'the paid webhook');
    expect(receiver.requests.map((r) => r.headers['webhook-event-type'])).toEqual(['invoice.detected', 'invoice.paid']);
    expect((JSON.parse(receiver.requests[1]!.body) as InvoiceJson).status).toBe('paid');
  });
});
