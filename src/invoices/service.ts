// The invoicing operations behind the HTTP routes and the CLI: applications with their token and
// webhook URLs, invoices (create, read, list, cancel, stats, export), all scoped to one application.
import type { ChangeFeed } from '../bus/changes.js';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ApiKeys } from '../auth/keys.js';
import type { AccountId } from '../chain/model.js';
import type { ChainSource } from '../chain/source.js';
import { ApiError, badRequest, conflict, notFound } from '../errors.js';
import type { Store } from '../store/db.js';
import { EndpointRefusedError, type DeliveryEngine, type Endpoint } from '../delivery/index.js';
import { deleteAppRows, insertApp, selectApp, updateApp, upsertRecipient } from './apps.js';
import { ENDPOINT_PRODUCER, type AppDirectory } from './directory.js';
import { checkRecipient } from './eligibility.js';
import type { ExpiryTimer } from './expiry.js';
import { countEvents, queueWebhooks, saveInvoices } from './ledger.js';
import { InvoiceInserts } from './inserts.js';
import { paymentLink, walletAddress } from './links.js';
import type { InvoiceMetrics } from './metrics.js';
import type { PaymentDetector } from './detected.js';
import { appOwnerRef, invoiceJson, type App, type Invoice, type InvoiceJson } from './model.js';
import { cancel } from './state.js';
import { createInvoice, getInvoice, invoicesForUpdate, paymentsOf } from './store.js';
import { deriveJettonWallet } from './usdt.js';
import { appNameInput, recipientInput, textInput, type NewInvoiceInput } from './validate.js';

export const MAX_WEBHOOKS_PER_APP = 10;
/** The topic of announced new invoices (key: their date_expire, unix seconds). */
export const EXPIRY_TOPIC = 'invoices';

export interface InvoicesServiceDeps {
  store: Store;
  source: ChainSource;
  keys: ApiKeys;
  engine: DeliveryEngine;
  directory: AppDirectory;
  metrics?: InvoiceMetrics;
  logger?: Logger;
  expiry?: ExpiryTimer;
  /** Tells the other processes of a cluster (the leader's expiry timer) about new invoices. */
  changes?: ChangeFeed;
  usdtMaster: AccountId | null;
  testOnly: boolean;
  /** Payments seen before they are final (`detected`); absent when finality levels are off. */
  detector?: PaymentDetector;
  /** Wall clock in ms. */
  now(): number;
}

export interface AppJson {
  id: number;
  name: string;
  description?: string;
  recipient_address: string;
  /** The recipient as wallet apps show it: non-bounceable, test-only on testnet (ours, for display). */
  recipient_friendly: string;
  /** The recipient's USDT jetton wallet, when the USDT master is known. */
  usdt_jetton_wallet?: string;
  webhooks: WebhookJson[];
  created_at: number;
  updated_at: number;
}

export interface WebhookJson {
  id: number;
  url: string;
  status: string;
  status_updated_at: number;
  last_online_at: number;
  failed_attempts: number;
  /** Standard Webhooks signing secret (`whsec_…`): verify each delivery's `webhook-signature` with it. */
  signing_secret: string;
  /** Sent as `Authorization: Bearer <token>` with each delivery. */
  token: string;
}

export interface TokenInfo {
  id: string;
  /** The first characters of the token, then `…`. */
  prefix: string;
  created_at: number;
  last_used_at?: number;
}

export function webhookJson(e: Endpoint): WebhookJson {
  return {
    id: e.id,
    url: e.url,
    status: e.status,
    status_updated_at: Math.floor(e.statusUpdatedAt / 1000),
    last_online_at: Math.floor(e.lastOnlineAt / 1000),
    failed_attempts: e.failedAttempts,
    signing_secret: e.secret,
    token: e.token,
  };
}

export class InvoicesService {
  private readonly inserts: InvoiceInserts;

  constructor(readonly deps: InvoicesServiceDeps) {
    this.inserts = new InvoiceInserts(deps.store.db);
  }

  private get db(): Kysely<any> {
    return this.deps.store.db;
  }

  private nowSec(): number {
    return Math.floor(this.deps.now() / 1000);
  }

  // ---- applications ------------------------------------------------------------------------

  async requireApp(id: number): Promise<App> {
    const app = this.deps.directory.app(id) ?? (await selectApp(this.db, id));
    if (!app) throw notFound(`no application ${id}`);
    return app;
  }

  async appJson(app: App): Promise<AppJson> {
    const endpoints = await this.deps.engine.listEndpoints({ producer: ENDPOINT_PRODUCER, owner: appOwnerRef(app.id) });
    const wallet = this.deps.directory.usdtWalletOf(app.recipient);
    const out: AppJson = {
      id: app.id,
      name: app.name,
      recipient_address: app.recipient,
      recipient_friendly: walletAddress(app.recipient, this.deps.testOnly),
      webhooks: endpoints.map(webhookJson),
      created_at: app.createdAt,
      updated_at: app.updatedAt,
    };
    if (app.description !== null) out.description = app.description;
    if (wallet) out.usdt_jetton_wallet = wallet;
    return out;
  }

  private async webhookUrls(value: unknown): Promise<string[]> {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw badRequest('webhooks must be a list of URLs', 'webhooks');
    if (value.length > MAX_WEBHOOKS_PER_APP) throw badRequest(`webhooks: at most ${MAX_WEBHOOKS_PER_APP} URLs per application`, 'webhooks');
    const out: string[] = [];
    for (const [i, url] of value.entries()) out.push(await this.checkUrl(url, `webhooks[${i}]`));
    return out;
  }

  private async checkUrl(url: unknown, field: string): Promise<string> {
    if (typeof url !== 'string' || url.length === 0 || url.length > 2048) throw badRequest(`${field} must be an http(s) URL of at most 2048 characters`, field);
    try {
      return await this.deps.engine.checkUrl(url);
    } catch (err) {
      if (err instanceof EndpointRefusedError) throw badRequest(err.reason.startsWith('endpoint ') ? field + err.reason.slice('endpoint'.length) : `${field}: ${err.reason}`, field);
      throw err;
    }
  }

  /** The USDT jetton wallet of a recipient, derived from the configured master. */
  private async recipientRow(appId: number, account: AccountId) {
    const master = this.deps.usdtMaster;
    const wallet = master ? await deriveJettonWallet(this.deps.source, master, account) : null;
    return { appId, account, usdtMaster: master, usdtWallet: wallet };
  }

  async createApp(body: Record<string, unknown>): Promise<{ app: AppJson; token: string }> {
    const name = appNameInput(body.name);
    const description = textInput(body.description, 'description', 255);
    const recipient = recipientInput(body.recipient_address);
    const urls = await this.webhookUrls(body.webhooks);
    await checkRecipient(this.deps.source, recipient);
    const now = this.nowSec();
    const derived = await this.recipientRow(0, recipient);
    const { app, recipientRow, endpoints } = await this.db.transaction().execute(async (trx) => {
      const app = await insertApp(trx, { name, description, recipient, now });
      const recipientRow = { ...derived, appId: app.id };
      await upsertRecipient(trx, recipientRow, now);
      const endpoints: Endpoint[] = [];
      for (const url of urls) endpoints.push(await this.deps.engine.createEndpoint({ producer: ENDPOINT_PRODUCER, owner: appOwnerRef(app.id), url }, trx));
      return { app, recipientRow, endpoints };
    });
    const token = await this.deps.keys.createKey({ name: `invoices: ${name}`.slice(0, 100), scopes: ['invoices'], ownerRef: appOwnerRef(app.id), origin: 'api' });
    await updateApp(this.db, app.id, { tokenKeyId: token.id }, now);
    const withToken = { ...app, tokenKeyId: token.id };
    this.deps.directory.setApp(withToken);
    this.deps.directory.addRecipient(recipientRow);
    for (const e of endpoints) this.deps.directory.addEndpoint(app.id, e.id);
    this.deps.logger?.info({ app: app.id, recipient }, 'invoicing application created');
    return { app: await this.appJson(withToken), token: token.key };
  }

  async updateApp(id: number, body: Record<string, unknown>): Promise<AppJson> {
    const app = await this.requireApp(id);
    const patch: { name?: string; description?: string | null; recipient?: AccountId } = {};
    if (body.name !== undefined) patch.name = appNameInput(body.name);
    if (body.description !== undefined) patch.description = textInput(body.description, 'description', 255);
    if (body.recipient_address !== undefined) {
      const recipient = recipientInput(body.recipient_address);
      if (recipient !== app.recipient) {
        await checkRecipient(this.deps.source, recipient);
        patch.recipient = recipient;
      }
    }
    const now = this.nowSec();
    const row = patch.recipient ? await this.recipientRow(id, patch.recipient) : null;
    await this.db.transaction().execute(async (trx) => {
      await updateApp(trx, id, patch, now);
      // earlier recipients stay watched: invoices created for them can still be paid there
      if (row) await upsertRecipient(trx, row, now);
    });
    if (row) this.deps.directory.addRecipient(row);
    const updated = (await selectApp(this.db, id))!;
    this.deps.directory.setApp(updated);
    return this.appJson(updated);
  }

  async deleteApp(id: number): Promise<void> {
    const app = await this.requireApp(id);
    const endpoints = await this.deps.engine.listEndpoints({ producer: ENDPOINT_PRODUCER, owner: appOwnerRef(id) });
    await this.db.transaction().execute(async (trx) => {
      for (const e of endpoints) await this.deps.engine.deleteEndpoint(e.id, trx);
      await deleteAppRows(trx, id);
    });
    for (const key of await this.deps.keys.listKeys({ ownerRef: appOwnerRef(id), includeRevoked: false })) await this.deps.keys.revokeKey(key.id);
    this.deps.directory.removeApp(app.id);
  }

  async tokenInfo(id: number): Promise<TokenInfo | null> {
    const app = await this.requireApp(id);
    const key = app.tokenKeyId ? await this.deps.keys.getKey(app.tokenKeyId) : null;
    if (!key || key.revokedAt !== null) return null;
    const out: TokenInfo = { id: key.id, prefix: `${key.hint}…`, created_at: Math.floor(key.createdAt / 1000) };
    if (key.lastUsedAt !== null) out.last_used_at = Math.floor(key.lastUsedAt / 1000);
    return out;
  }

  /** A new token (returned once); the previous one stops working at once. */
  async regenerateToken(id: number): Promise<{ token: string; info: TokenInfo }> {
    const app = await this.requireApp(id);
    const created = await this.deps.keys.createKey({ name: `invoices: ${app.name}`.slice(0, 100), scopes: ['invoices'], ownerRef: appOwnerRef(id), origin: 'api' });
    await updateApp(this.db, id, { tokenKeyId: created.id }, this.nowSec());
    this.deps.directory.setApp({ ...app, tokenKeyId: created.id });
    for (const key of await this.deps.keys.listKeys({ ownerRef: appOwnerRef(id), includeRevoked: false })) {
      if (key.id !== created.id) await this.deps.keys.revokeKey(key.id);
    }
    return { token: created.key, info: { id: created.id, prefix: `${created.hint}…`, created_at: Math.floor(created.createdAt / 1000) } };
  }

  // ---- webhook URLs ------------------------------------------------------------------------

  async requireWebhook(appId: number, webhookId: number): Promise<Endpoint> {
    const e = Number.isSafeInteger(webhookId) ? await this.deps.engine.getEndpoint(webhookId) : null;
    if (!e || e.producer !== ENDPOINT_PRODUCER || e.owner !== appOwnerRef(appId)) throw notFound(`application ${appId} has no webhook ${webhookId}`);
    return e;
  }

  async addWebhook(appId: number, url: unknown): Promise<WebhookJson> {
    await this.requireApp(appId);
    const checked = await this.checkUrl(url, 'url');
    const existing = await this.deps.engine.listEndpoints({ producer: ENDPOINT_PRODUCER, owner: appOwnerRef(appId) });
    if (existing.length >= MAX_WEBHOOKS_PER_APP) throw new ApiError(409, `an application has at most ${MAX_WEBHOOKS_PER_APP} webhook URLs`, { field: 'url' });
    if (existing.some((e) => e.url === checked)) throw conflict('this URL is already registered for the application');
    const e = await this.deps.engine.createEndpoint({ producer: ENDPOINT_PRODUCER, owner: appOwnerRef(appId), url: checked });
    this.deps.directory.addEndpoint(appId, e.id);
    return webhookJson(e);
  }

  async updateWebhook(appId: number, webhookId: number, url: unknown): Promise<WebhookJson> {
    await this.requireWebhook(appId, webhookId);
    const checked = await this.checkUrl(url, 'url');
    await this.deps.engine.updateEndpointUrl(webhookId, checked);
    return webhookJson((await this.deps.engine.getEndpoint(webhookId))!);
  }

  async removeWebhook(appId: number, webhookId: number): Promise<void> {
    await this.requireWebhook(appId, webhookId);
    await this.deps.engine.deleteEndpoint(webhookId);
    this.deps.directory.removeEndpoint(appId, webhookId);
  }

  // ---- invoices ----------------------------------------------------------------------------

  async createInvoice(app: App, input: NewInvoiceInput, idempotencyKey: string | null): Promise<{ invoice: Invoice; replayed: boolean }> {
    const master = this.deps.usdtMaster;
    if (input.currency === 'USDT' && !master) {
      throw badRequest('currency USDT is not available: no USDT master is configured for this network (set TONWATCH_USDT_MASTER)', 'currency');
    }
    const result = await createInvoice(this.db, {
      appId: app.id,
      payTo: app.recipient,
      input,
      idempotencyKey,
      now: this.nowSec(),
      link: (id, dateExpire) =>
        paymentLink({ invoiceId: id, payTo: app.recipient, amount: input.amount, dateExpire, currency: input.currency, usdtMaster: master, testOnly: this.deps.testOnly }),
      insert: (row) => this.inserts.insert(row),
    });
    if (!result.replayed) {
      this.deps.metrics?.created.inc({ currency: input.currency });
      this.deps.expiry?.invoiceCreated(result.invoice.dateExpire);
      await this.deps.changes?.announce(EXPIRY_TOPIC, String(result.invoice.dateExpire));
    }
    return result;
  }

  /** The full invoice JSON (with payments), or 404 when it is not this application's. */
  async invoiceView(appId: number, id: string): Promise<InvoiceJson> {
    const inv = await getInvoice(this.db, appId, id);
    if (!inv) throw notFound(`no invoice ${id}`);
    return this.withDetected(invoiceJson(inv, (await paymentsOf(this.db, [id])).get(id)));
  }

  /** Adds the payment seen before it is final, while the invoice is pending (GET and lists, never webhook bodies). */
  withDetected(view: InvoiceJson): InvoiceJson {
    const detected = view.status === 'pending' ? this.deps.detector?.detected(view.id) : undefined;
    if (detected) view.detected = detected;
    return view;
  }

  async cancelInvoice(appId: number, id: string): Promise<InvoiceJson> {
    const nowSec = this.nowSec();
    const view = await this.db.transaction().execute(async (trx) => {
      const inv = (await invoicesForUpdate(trx, [id])).get(id);
      if (!inv || inv.appId !== appId) throw notFound(`no invoice ${id}`);
      // past date_expire it is expired even if the expiry timer has not run yet
      const status = inv.status === 'pending' && nowSec >= inv.dateExpire ? 'expired' : inv.status;
      if (status !== 'pending') throw new ApiError(409, `invoice ${id} is ${status}: only a pending invoice can be cancelled`, { status });
      const payments = (await paymentsOf(trx, [id])).get(id)!;
      const step = cancel(inv, nowSec);
      await saveInvoices(trx, [step.invoice]);
      const events = step.events.map((e) => ({ ...e, payments }));
      await queueWebhooks(trx, this.deps, events);
      countEvents(this.deps.metrics, events);
      return invoiceJson(step.invoice, payments);
    });
    this.deps.engine.notify();
    return view;
  }
}
