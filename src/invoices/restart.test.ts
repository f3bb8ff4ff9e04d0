// Expiry happens at date_expire even across a restart: the timer is rebuilt from the store at start,
// and the webhook of an invoice that expired while tonwatch was down is still delivered.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../test/support/service.js';
import { Receiver } from '../../test/support/webhooks.js';
import type { InvoiceJson } from './model.js';
import { createApp, createInvoice, devnetAndInvoices, getInvoice, walletAddress } from '../../test/support/invoices.js';

describe('expiry across a restart', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-invoices-restart-'));
  let svc: TestService | null = null;
  let receiver: Receiver | null = null;

  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('expires invoices whose date_expire passed while the service was stopped, and the one due later on time', async () => {
    receiver = await new Receiver().listen(0);
    svc = await startTestService({ components: devnetAndInvoices, dataDir });
    const { token } = await createApp(svc, { name: 'Restart shop', recipient_address: await walletAddress(svc, 'merchant'), webhooks: [receiver.url] });
    const soon = await createInvoice(svc, token, { amount: '1000000', life_time: 1, currency: 'TON' });
    const later = await createInvoice(svc, token, { amount: '1000000', life_time: 8, currency: 'TON' });
    const kept = await createInvoice(svc, token, { amount: '1000000', life_time: 3600, currency: 'TON' });
    await svc.close({ keepData: true });
    svc = null;
    await new Promise((r) => setTimeout(r, 1500));

    svc = await startTestService({ components: devnetAndInvoices, dataDir });
    await receiver.waitFor(1, 10_000);
    expect((await getInvoice(svc, token, soon.id)).status).toBe('expired');
    expect((await getInvoice(svc, token, later.id)).status).toBe('pending');
    await receiver.waitFor(2, 15_000);
    const expiredLater = await getInvoice(svc, token, later.id);
    expect(expiredLater.status).toBe('expired');
    expect(expiredLater.date_change).toBeGreaterThanOrEqual(later.date_expire);
    const bodies = receiver.bodies() as InvoiceJson[];
    expect(bodies.map((b) => b.id)).toEqual([soon.id, later.id]);
    expect(receiver.requests.map((r) => r.headers['webhook-event-type'])).toEqual(['invoice.expired', 'invoice.expired']);
    expect((await getInvoice(svc, token, kept.id)).status).toBe('pending');
  });
});
