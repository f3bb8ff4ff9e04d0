// The console in headless Chromium shows a payment seen before it is final: an invoice paid on a devnet
// whose blocks are made on demand and shown non-final for a while reads "payment seen, waiting for
// finality" (pending, then confirmed) on its page and in the list, still pending, and turns paid without
// a reload only once the block is committed.
import { rmSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleComponentFor } from '../../src/console/index.js';
import { componentFactories } from '../../src/components.js';
import { createApp, createInvoice, pay, settleInvoices, walletAddress } from '../support/invoices.js';
import { startTestService, type TestService } from '../support/service.js';
import { buildConsole, launchChromium, screenshot } from './browser.js';

describe('console in Chromium: a payment seen before it is final', () => {
  let svc: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let consoleDir: string;

  beforeAll(async () => {
    consoleDir = await buildConsole();
    const components = componentFactories.map((c) => (c.name === 'console' ? { name: 'console', load: async () => consoleComponentFor({ dir: consoleDir }) } : c));
    [svc, browser] = await Promise.all([startTestService({ components, env: { TONWATCH_DEVNET_CONFIRMATION_LAG_MS: '4000' } }), launchChromium()]);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await svc?.close();
    if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
  });

  it('reads "payment seen, waiting for finality" while pending and confirmed, then paid', async () => {
    const { token } = await createApp(svc, { name: 'Shop', recipient_address: await walletAddress(svc, 'merchant') });
    const invoice = await createInvoice(svc, token, { amount: '1250000000', life_time: 600, currency: 'TON' });
    await page.goto(`${svc.url}/console`);
    await page.getByLabel('Admin key or application API token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.goto(`${svc.url}/console/#/invoices/${invoice.id}`);
    await expect.poll(() => page.locator('.badge').first().textContent()).toBe('pending');
    expect(await page.locator('.payment-seen').count()).toBe(0);
    await page.evaluate('window.notReloaded = true');

    await pay(svc, 'alice', invoice.payment_link);
    const seen = page.locator('p.payment-seen');
    await expect.poll(() => seen.getAttribute('data-finality'), { timeout: 10_000 }).toBe('pending');
    expect(await seen.textContent()).toMatch(/^Payment seen, waiting for finality: 1\.25 TON \(pending, since /);
    await screenshot(page, 'invoice-payment-seen');

    // the block made and shown non-final: confirmed, still pending
    const block = svc.produceBlock();
    await expect.poll(() => seen.getAttribute('data-finality'), { timeout: 10_000 }).toBe('confirmed');
    expect(await page.locator('.badge').first().textContent()).toBe('pending');

    // the list says it too
    await page.goto(`${svc.url}/console/#/invoices`);
    const row = page.locator(`tr[data-invoice-id="${invoice.id}"]`);
    await expect.poll(() => row.getAttribute('data-status')).toBe('pending');
    expect(await row.locator('.payment-seen').textContent()).toContain('payment seen, waiting for finality');

    // committed: paid, and the note gone
    await block;
    await settleInvoices(svc);
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 15_000 }).toBe('paid');
    expect(await row.locator('.payment-seen').count()).toBe(0);
    expect(await page.evaluate('window.notReloaded')).toBe(true);
  });
});
