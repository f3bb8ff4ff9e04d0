// The console end to end in headless Chromium against the real service on the devnet: sign in,
// onboarding (an ineligible wallet, then the merchant's), webhook URLs with a test delivery, the
// failure log and redelivery, an invoice from the form (field errors first), paid on the devnet
// while the table watches, statistics, CSV export, account webhooks, phone width — and every request
// the browser made is a documented public API call with no secret in its URL. Along the way: addresses
// in the form wallets show (raw on hover), a mistyped one named as a checksum failure, no QR code or
// wallet button once paid, and every time in one format naming the zone (the browser is in Tokyo).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleComponentFor } from '../../src/console/index.js';
import { componentFactories } from '../../src/components.js';
import { startTestService, type TestService } from '../support/service.js';
import { buildConsole, launchChromium, recordRequests, screenshot, undocumentedCalls, type RecordedRequest } from './browser.js';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on a free port answering `status` (changeable), keeping what it got. */
async function startReceiver(): Promise<{ url: string; got: Received[]; status: { code: number }; server: Server }> {
  const got: Received[] = [];
  const status = { code: 500 };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(status.code, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got, status, server };
}

/** The browser's zone in these tests: no daylight saving, and not the machine's (UTC), so a missing zone shows. */
const TOKYO = { zone: 'Asia/Tokyo', name: 'GMT+9', offsetSeconds: 9 * 3600 };
/** Unix seconds as the console must show them in Tokyo: "2026-11-28 05:15:03 GMT+9". */
const tokyoTime = (unix: number) => `${new Date((unix + TOKYO.offsetSeconds) * 1000).toISOString().slice(0, 19).replace('T', ' ')} ${TOKYO.name}`;
/** The value next to a label in a facts list. */
const fact = (page: Page, label: string) => page.locator('.facts > div', { has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');

async function until<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('console in Chromium', () => {
  let svc: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let requests: RecordedRequest[];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let consoleDir: string;
  let appToken = '';
  let invoiceId = '';
  let paymentLink = '';
  const secrets: string[] = [];

  beforeAll(async () => {
    [consoleDir, receiver] = await Promise.all([buildConsole(), startReceiver()]);
    const components = componentFactories.map((c) => (c.name === 'console' ? { name: 'console', load: async () => consoleComponentFor({ dir: consoleDir }) } : c));
    [svc, browser] = await Promise.all([startTestService({ components }), launchChromium()]);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, timezoneId: TOKYO.zone });
    page = await context.newPage();
    requests = recordRequests(page);
    page.setDefaultTimeout(15_000);
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await svc?.close();
    await new Promise((r) => receiver?.server.close(r));
    if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
  });

  it('signs in with the admin key', async () => {
    await page.goto(`${svc.url}/console`);
    await page.getByLabel('Admin key or application API token').fill('tw_not_a_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('not valid');
    await screenshot(page, 'sign-in');
    await page.getByLabel('Admin key or application API token').fill(svc.adminKeySecret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Applications', level: 1 }).waitFor();
  });

  it('explains an ineligible recipient wallet next to its field, then onboards the merchant and shows the token once', async () => {
    const fresh = `0:${randomBytes(32).toString('hex')}`;
    await page.getByLabel('Name', { exact: true }).fill('Coffee shop');
    await page.getByLabel('Recipient wallet').fill(fresh);
    await page.getByLabel('Webhook URL (optional)').fill(receiver.url);
    await page.getByRole('button', { name: 'Create application' }).click();
    const fieldError = page.locator('.field--invalid', { has: page.getByLabel('Recipient wallet') }).locator('.field-error');
    await expect.poll(() => fieldError.textContent()).toMatch(/nonexist|active/);
    expect(await page.locator('#activation-help').textContent()).toContain('send any small amount');
    await screenshot(page, 'onboarding-not-eligible');

    const wallets = (await (await svc.api('/devnet/wallets')).json()) as Array<{ name: string; friendly: string; address: string }>;
    const merchant = wallets.find((w) => w.name === 'merchant')!;
    // A mistyped address (two characters swapped) is named as what it is: a checksum that does not match.
    const typo = merchant.friendly.slice(0, 20) + merchant.friendly[21] + merchant.friendly[20] + merchant.friendly.slice(22);
    await page.getByLabel('Recipient wallet').fill(typo);
    await page.getByRole('button', { name: 'Create application' }).click();
    await expect.poll(() => fieldError.textContent()).toMatch(/checksum mismatch: a character is mistyped/);
    expect(await fieldError.textContent()).not.toMatch(/48-character/);
    await page.getByLabel('Recipient wallet').fill(merchant.friendly.slice(0, 47));
    await page.getByRole('button', { name: 'Create application' }).click();
    await expect.poll(() => fieldError.textContent()).toMatch(/has 47 characters where a user-friendly address has 48: 1 missing/);
    await page.getByLabel('Recipient wallet').fill(merchant.friendly);
    await page.getByRole('button', { name: 'Create application' }).click();
    appToken = (await page.locator('[data-token]').textContent({ timeout: 15_000 }))!.trim();
    expect(appToken).toMatch(/^tw_/);
    await screenshot(page, 'onboarding-token');
    // The token works for the invoice API, and only the console's session holds it.
    expect((await svc.api('/api/v1/services/invoices', { auth: appToken })).status).toBe(200);
    await page.getByRole('button', { name: 'Continue to its overview' }).click();
    await page.getByRole('heading', { name: 'Coffee shop', level: 1 }).waitFor();
    // The recipient as the merchant typed it (UQ…, the devnet is no test network), the raw form on hover.
    const recipient = fact(page, 'Recipient wallet').locator('.address');
    expect(merchant.friendly).toMatch(/^UQ/);
    expect(await recipient.textContent()).toBe(merchant.friendly);
    expect(await recipient.getAttribute('title')).toBe(merchant.address);
    expect(await fact(page, 'Created').first().textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} GMT\+9$/);
  });

  it('sends a test delivery, shows the failure with its status code, and redelivers it', async () => {
    const hook = page.locator('article[data-webhook-id]');
    await hook.getByRole('button', { name: 'Send test' }).click();
    await until('the test delivery', () => receiver.got.length >= 1);
    expect(receiver.got[0]!.headers['webhook-event-type']).toBe('invoice.test');
    const row = hook.locator('table.delivery-log tbody tr').first();
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain('500');
    const firstId = receiver.got[0]!.headers['webhook-id'];
    receiver.status.code = 200;
    const before = receiver.got.length;
    await row.getByRole('button', { name: 'Redeliver' }).click();
    await until('the redelivery', () => receiver.got.slice(before).some((r) => r.headers['webhook-id'] === firstId));
    await screenshot(page, 'overview');
  });

  it('creates an invoice from the form, after showing a wrong amount next to the field', async () => {
    await page.getByRole('link', { name: 'Invoices', exact: true }).click();
    await page.getByRole('link', { name: 'New invoice' }).click();
    const amount = page.getByLabel('Amount');
    const amountError = page.locator('.field', { has: amount }).locator('.field-error');
    await amount.fill('0.0001');
    await page.getByRole('button', { name: 'Create invoice' }).click();
    expect(await amountError.textContent()).toContain('0.001 TON');
    await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.getAttribute("name")')).toBe('amount');
    // Above the API's maximum: the API's 400 names the field and the form shows it there.
    await amount.fill('2000000000');
    await page.getByRole('button', { name: 'Create invoice' }).click();
    await expect.poll(() => amountError.textContent()).toContain('at most');
    await screenshot(page, 'new-invoice-error');

    await amount.fill('1.15');
    expect(await page.locator('.field', { has: amount }).locator('.hint').textContent()).toContain('1150000000 nanoton');
    await page.getByLabel('1 hour').check();
    await page.getByLabel('Description (optional)').fill('Order 17: two flat whites');
    await page.getByRole('button', { name: 'Create invoice' }).click();
    await page.waitForURL(/#\/invoices\/[0-9a-f-]{36}$/);
    invoiceId = decodeURIComponent(page.url().split('/').pop()!);
    const invoice = (await (await svc.api(`/api/v1/services/invoices/${invoiceId}`, { auth: appToken })).json()) as {
      amount: string;
      payment_link: string;
      date_expire: number;
      date_create: number;
      description: string;
    };
    expect(invoice.amount).toBe('1150000000');
    expect(invoice.date_expire - invoice.date_create).toBe(3600);
    expect(invoice.description).toBe('Order 17: two flat whites');
    paymentLink = invoice.payment_link;
    expect(await page.locator('#payment-link').textContent()).toBe(paymentLink);
    await expect.poll(() => page.locator('img.qr').evaluate((img: { complete: boolean; naturalWidth: number }) => (img.complete ? img.naturalWidth : 0))).toBeGreaterThan(100);
    expect(await page.locator('.countdown').textContent()).toMatch(/59 min|1 h/);
    expect(await page.getByRole('link', { name: 'Open in a wallet' }).count()).toBe(1);
    // Times in one format with the browser's zone named; the pay-to wallet as the payment link names it.
    expect(await fact(page, 'Created').textContent()).toBe(tokyoTime(invoice.date_create));
    expect(await fact(page, 'Expires').textContent()).toBe(tokyoTime(invoice.date_expire));
    expect(await fact(page, 'Pay to').textContent()).toBe(paymentLink.split('?')[0]!.replace('ton://transfer/', ''));
    await screenshot(page, 'invoice-pending');
  });

  it('turns the row paid without a reload when the invoice is paid on the devnet, and the statistics change', async () => {
    await page.getByRole('link', { name: 'Statistics' }).click();
    const earned = page.locator('[data-currency="TON"] [data-stat="earned"] .value');
    await expect.poll(() => earned.textContent()).toBe('0 TON');
    expect(await page.locator('[data-currency="TON"] [data-stat="active"] .value').textContent()).toBe('1');

    await page.getByRole('link', { name: 'Invoices', exact: true }).click();
    const row = page.locator(`tr[data-invoice-id="${invoiceId}"]`);
    await expect.poll(() => row.getAttribute('data-status')).toBe('pending');
    await page.evaluate('window.notReloaded = true');

    const paid = await svc.api('/devnet/pay', { method: 'POST', json: { from: 'alice', link: paymentLink } });
    expect(paid.status, await paid.clone().text()).toBeLessThan(300);
    await svc.settle();
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 15_000 }).toBe('paid');
    expect(await page.evaluate('window.notReloaded')).toBe(true);
    expect(await row.textContent()).toContain('1.15 TON');
    await screenshot(page, 'invoices');

    await page.getByRole('link', { name: 'Statistics' }).click();
    await expect.poll(() => earned.textContent()).toBe('1.15 TON');
    expect(await page.locator('[data-currency="TON"] [data-stat="week"] .value').textContent()).toBe('1.15 TON');
    expect(await page.locator('[data-currency="TON"] [data-stat="active"] .value').textContent()).toBe('0');
    const todayBar = page.locator(`rect.bar[data-day="${new Date().toISOString().slice(0, 10)}"]`);
    expect(await todayBar.getAttribute('data-units')).toBe('1150000000');
    await screenshot(page, 'stats');
  });

  it('shows the payment and exports the filtered list as CSV', async () => {
    await page.goto(`${svc.url}/console/#/invoices/${invoiceId}`);
    await expect.poll(() => page.locator('#payments tbody tr').count()).toBe(1);
    expect(await page.locator('#payments').textContent()).toContain('1.15 TON');
    // Paid: no QR code and no wallet button, and the page says why.
    expect(await page.locator('.payment-closed').textContent()).toBe('Paid — no payment needed.');
    expect(await page.locator('img.qr, .qr').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Open in a wallet' }).count()).toBe(0);
    // Pay to, paid by and the payer in the form wallets show, raw on hover; times with their zone.
    const wallets = (await (await svc.api('/devnet/wallets')).json()) as Array<{ name: string; friendly: string; address: string }>;
    const [alice, merchant] = ['alice', 'merchant'].map((n) => wallets.find((w) => w.name === n)!);
    const api = (await (await svc.api(`/api/v1/services/invoices/${invoiceId}`, { auth: appToken })).json()) as { paid_by_address: string; date_paid: number; pay_to_address: string };
    expect(api.paid_by_address).toBe(alice!.address);
    for (const [where, wallet] of [[fact(page, 'Pay to'), merchant], [fact(page, 'Paid by'), alice], [page.locator('#payments tbody td[data-label="Payer"]'), alice]] as const) {
      expect(await where.textContent()).toBe(wallet!.friendly);
      expect(await where.locator('.address').getAttribute('title')).toBe(wallet!.address);
    }
    expect(await fact(page, 'Paid').textContent()).toBe(tokyoTime(api.date_paid));
    expect(await page.locator('#payments tbody td[data-label="Time"]').textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} GMT\+9$/);
    await screenshot(page, 'invoice-paid');

    await page.getByRole('link', { name: 'Invoices', exact: true }).click();
    await page.getByLabel('paid', { exact: true }).check();
    await page.getByLabel('Currency').selectOption('TON');
    await expect.poll(() => page.locator('#invoice-table tbody tr').count()).toBe(1);
    const paidRow = page.locator(`tr[data-invoice-id="${invoiceId}"]`);
    expect(await paidRow.locator('td[data-label="Paid by"]').textContent()).toBe(alice!.friendly);
    expect(await paidRow.locator('td[data-label="Paid"]').textContent()).toBe(tokyoTime(api.date_paid));
    expect(await page.locator('[aria-live="polite"]', { hasText: 'live, updated' }).textContent()).toMatch(/updated \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} GMT\+9$/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\n')[0]).toMatch(/id/);
    expect(csv).toContain(invoiceId);
    expect(csv).toContain('paid');
    // The other filters reach the API too: no cancelled invoice exists.
    await page.getByLabel('paid', { exact: true }).uncheck();
    await page.getByLabel('cancelled', { exact: true }).check();
    await expect.poll(() => page.locator('#invoice-table tbody tr').count()).toBe(0);
    await page.getByLabel('cancelled', { exact: true }).uncheck();
  });

  it('manages account webhooks of component C', async () => {
    await page.getByRole('link', { name: 'Account webhooks' }).click();
    // The month's start in the same format as every other time (it was "11/1/2026" beside ISO dates).
    await expect.poll(() => fact(page, 'Since').textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} GMT\+9$/);
    await page.getByLabel('Receiver URL').fill('not a url');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect.poll(() => page.locator('.field-error').first().textContent()).toBeTruthy();
    await page.getByLabel('Receiver URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.locator('tr[data-webhook-id]').first().waitFor();
    await page.getByRole('link', { name: 'Details' }).first().click();
    await page.getByLabel('Accounts to follow').fill(paymentLink.split('?')[0]!.replace('ton://transfer/', ''));
    await page.getByRole('button', { name: 'Follow' }).click();
    await expect.poll(() => page.locator('table.stack-sm tbody tr').count()).toBe(1);
    await screenshot(page, 'webhooks');
  });

  it('cancels an invoice from its page: the QR code and the wallet button go, and the page says not to pay', async () => {
    const created = await svc.api('/api/v1/services/invoices/invoice', { method: 'POST', auth: appToken, json: { amount: '2000000000', life_time: 600, currency: 'TON' } });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await page.goto(`${svc.url}/console/#/invoices/${id}`);
    await expect.poll(() => page.locator('img.qr').count()).toBe(1);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Cancel invoice' }).click();
    await expect.poll(() => page.locator('.payment-closed').textContent()).toBe('Cancelled — do not pay: a payment sent now counts as overpayment.');
    expect(await page.locator('img.qr, .qr').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Open in a wallet' }).count()).toBe(0);
    expect(await page.locator('.countdown').count()).toBe(0);
    await screenshot(page, 'invoice-cancelled');
  });

  it('fits a phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [name, hash] of [
      ['phone-invoices', 'invoices'],
      ['phone-invoice', `invoices/${invoiceId}`],
      ['phone-stats', 'stats'],
      ['phone-overview', 'overview'],
      ['phone-new-invoice', 'invoices/new'],
    ] as const) {
      await page.goto(`${svc.url}/console/#/${hash}`);
      await page.locator('h1').waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(0);
      await screenshot(page, name);
    }
  });

  it('works with an application token, by keyboard alone, and regenerates the token in place', async () => {
    const tokenContext = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    try {
      const tab = await tokenContext.newPage();
      const seen = recordRequests(tab);
      tab.setDefaultTimeout(15_000);
      await tab.goto(`${svc.url}/console/`);
      // Keyboard only: the key field has focus, Enter submits.
      await expect.poll(() => tab.evaluate('document.activeElement && document.activeElement.getAttribute("name")')).toBe('key');
      await tab.keyboard.type(appToken);
      await tab.keyboard.press('Enter');
      await tab.getByRole('heading', { name: 'Invoices', level: 1 }).waitFor();
      await tab.locator(`tr[data-invoice-id="${invoiceId}"]`).waitFor();
      // An application token sees neither the applications list nor the account webhooks.
      expect(await tab.getByRole('link', { name: 'Applications' }).count()).toBe(0);
      expect(await tab.getByRole('link', { name: 'Account webhooks' }).count()).toBe(0);
      // The skip link comes first; the page heading holds focus after navigation, and the
      // navigation is reached backwards from it in order.
      expect(await tab.evaluate('document.querySelector("a, button, input, select, textarea").textContent')).toBe('Skip to content');
      expect(await tab.evaluate('document.activeElement.tagName')).toBe('H1');
      const back = [];
      for (let i = 0; i < 4; i++) {
        await tab.keyboard.press('Shift+Tab');
        back.push(await tab.evaluate('document.activeElement.textContent'));
      }
      expect(back).toEqual(['Sign out', 'Statistics', 'Invoices', 'Overview']);
      await tab.keyboard.press('Enter');
      await tab.getByRole('heading', { name: 'Coffee shop', level: 1 }).waitFor();

      tab.once('dialog', (d) => void d.accept());
      await tab.getByRole('button', { name: 'Regenerate' }).click();
      const fresh = (await tab.locator('[data-token]').textContent())!.trim();
      expect(fresh).toMatch(/^tw_/);
      expect(fresh).not.toBe(appToken);
      expect((await svc.api('/api/v1/services/invoices', { auth: appToken })).status).toBe(401);
      await screenshot(tab, 'token-regenerated');
      // The session moved to the new token: the invoice list still loads.
      await tab.getByRole('link', { name: 'Invoices', exact: true }).click();
      await tab.locator(`tr[data-invoice-id="${invoiceId}"]`).waitFor();
      expect(await tab.getByRole('heading', { name: 'Invoices', level: 1 }).count()).toBe(1);
      requests.push(...seen);
      secrets.push(fresh);
    } finally {
      await tokenContext.close();
    }
  });

  it('made only documented public API calls, with no key in any URL', async () => {
    const openapi = (await (await svc.api('/docs/json')).json()) as { paths: Record<string, Record<string, unknown>> };
    const apiCalls = requests.filter((r) => !new URL(r.url).pathname.startsWith('/console'));
    expect(apiCalls.length).toBeGreaterThan(20);
    expect(undocumentedCalls(requests, svc.url, openapi)).toEqual([]);
    for (const secret of [svc.adminKeySecret, appToken, ...secrets]) expect(requests.filter((r) => r.url.includes(secret))).toEqual([]);
  });
});
