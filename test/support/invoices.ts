// Helpers for invoicing tests and the benchmark: a service with the devnet and invoicing, an
// application on the devnet merchant, invoices, payments following payment links, and waiting
// until the matcher has applied everything the chain produced.
import { invoicesMigrations } from '../../src/invoices/migrations.js';
import type { EventLog } from '../../src/bus/types.js';
import type { Component } from '../../src/service/component.js';
import type { InvoicesComponent } from '../../src/invoices/index.js';
import type { InvoiceJson } from '../../src/invoices/model.js';
import type { AppJson } from '../../src/invoices/service.js';

/** What these helpers need of test/support/service.ts's TestService (kept structural: src must not import test/). */
export interface TestService {
  api(pathname: string, init?: RequestInit & { json?: unknown; auth?: string | null }): Promise<Response>;
  settle(maxBlocks?: number): Promise<void>;
  components: Component[];
  events: EventLog;
}

export const devnetAndInvoices = [
  { name: 'devnet', load: async () => (await import('../../src/service/devnet.js')).devnetComponent },
  { name: 'invoices', migrations: invoicesMigrations, load: async () => (await import('../../src/invoices/index.js')).invoicesComponent },
];

export function invoicesOf(svc: TestService): InvoicesComponent {
  return svc.components.find((c) => c.name === 'invoices') as InvoicesComponent;
}

export async function json<T = any>(res: Response, status?: number): Promise<T> {
  const text = await res.text();
  if (status !== undefined && res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

export async function walletAddress(svc: TestService, name: string): Promise<string> {
  const wallets = await json<Array<{ name: string; address: string }>>(await svc.api('/devnet/wallets'), 200);
  return wallets.find((w) => w.name === name)!.address;
}

export async function createApp(svc: TestService, body: Record<string, unknown>): Promise<{ app: AppJson; token: string }> {
  return json(await svc.api('/api/v1/services/invoices/app', { method: 'POST', json: body }), 201);
}

export async function createInvoice(svc: TestService, token: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<InvoiceJson> {
  return json(await svc.api('/api/v1/services/invoices/invoice', { method: 'POST', json: body, auth: token, headers }), 201);
}

export async function getInvoice(svc: TestService, token: string, id: string): Promise<InvoiceJson> {
  return json(await svc.api(`/api/v1/services/invoices/${id}`, { auth: token }), 200);
}

/** Pays a ton:// link from a devnet wallet, as a wallet app would. */
export async function pay(svc: TestService, from: string, link: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await svc.api('/devnet/pay', { method: 'POST', json: { from, link, ...extra } });
  return (await json<{ message_hash: string }>(res, 200)).message_hash;
}

export async function devnet(svc: TestService, path: string, body: Record<string, unknown>): Promise<unknown> {
  return json(await svc.api(path, { method: 'POST', json: body }), 200);
}

/** Produces blocks until the devnet is idle, then waits until the matcher applied every event. */
export async function settleInvoices(svc: TestService, maxBlocks = 20): Promise<void> {
  await svc.settle(maxBlocks);
  await matcherCaughtUp(svc);
}

export async function matcherCaughtUp(svc: TestService, ms = 15_000): Promise<void> {
  const component = invoicesOf(svc);
  const end = Date.now() + ms;
  while ((component.position ?? -1) < (svc.events.headPosition() ?? -1)) {
    if (Date.now() > end) throw new Error(`invoice matcher at ${component.position}, log head ${svc.events.headPosition()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A link with another amount (partial and over-payments). */
export function withAmount(link: string, amount: bigint | string): string {
  return link.replace(/amount=[0-9]+/, `amount=${amount}`);
}
