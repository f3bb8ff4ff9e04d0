// Invoicing (component D): applications, invoices in TON and USDT, payment matching from the
// event log, expiry, and status webhooks through the shared delivery engine. Module API and the
// service component.
import { ApiKeys } from '../auth/keys.js';
import { startConsumer, type Consumer } from '../bus/consumer.js';
import type { Component, ServiceContext } from '../service/component.js';
import { selectRecipients, upsertRecipient } from './apps.js';
import { PaymentDetector } from './detected.js';
import { queueWebhooks } from './ledger.js';
import { invoicesForUpdate, paymentsOf } from './store.js';
import type { DetectedJson } from './wire.js';
import { AppDirectory } from './directory.js';
import { ExpiryTimer } from './expiry.js';
import { InvoiceMatcher } from './matcher.js';
import { InvoiceMetrics } from './metrics.js';
import { appRoutes } from './routes/apps.js';
import { invoiceRoutes } from './routes/invoices.js';
import { EXPIRY_TOPIC, InvoicesService } from './service.js';
import { deriveJettonWallet } from './usdt.js';

export { invoicesMigrations } from './migrations.js';
export { InvoicesService } from './service.js';
export { paymentLink, invoicePayloadBase64 } from './links.js';
export type { Invoice, InvoiceJson, App, Payment } from './model.js';

export const CONSUMER_NAME = 'invoices';
/** How often the in-memory directory is reloaded for changes made by other processes. */
const REFRESH_MS = 5000;

export interface InvoicesComponent extends Component {
  service: InvoicesService;
  matcher: InvoiceMatcher;
  expiry: ExpiryTimer;
  directory: AppDirectory;
  /** Position of the last batch the matcher committed, or null before start. */
  readonly position: number | null;
}

export function createInvoicesComponent(ctx: ServiceContext): InvoicesComponent {
  const engine = ctx.delivery;
  const logger = ctx.logger;
  const metrics = new InvoiceMetrics(ctx.metrics);
  const directory = new AppDirectory(ctx.store.db, engine);
  const usdtMaster = ctx.profile.usdtMaster;
  const testOnly = ctx.profile.testOnly;
  let consumer: Consumer | null = null;
  let refresher: NodeJS.Timeout | null = null;
  let unlisten: (() => void) | null = null;
  const matcher = new InvoiceMatcher({ engine, directory, metrics, logger, now: ctx.now });
  const caughtUp = () => consumer !== null && consumer.position >= (ctx.events.headPosition() ?? -1);
  const expiry = new ExpiryTimer({
    store: ctx.store,
    engine,
    directory,
    metrics,
    logger,
    now: ctx.now,
    matcherCaughtUp: caughtUp,
    afterCommit: () => engine.notify(),
    fence: ctx.events.fence?.bind(ctx.events),
  });
  /** The optional `invoice.detected` webhook: sent by the leader only (every node detects), for a pending invoice. */
  async function detectedWebhook(invoiceId: string, detected: DetectedJson): Promise<void> {
    if (ctx.cluster?.leads() === false) return;
    const queued = await ctx.store.db.transaction().execute(async (trx) => {
      const inv = (await invoicesForUpdate(trx, [invoiceId])).get(invoiceId);
      if (!inv || inv.status !== 'pending') return 0;
      const payments = (await paymentsOf(trx, [invoiceId])).get(invoiceId) ?? [];
      return queueWebhooks(trx, { engine, directory, metrics }, [{ type: 'invoice.detected', invoice: inv, payments, detected }]);
    });
    if (queued > 0) engine.notify();
  }
  // every node sees the finality levels (the leader's, mirrored in a cluster): any may show a payment seen
  const onDetected = ctx.config.invoiceDetectedWebhook
    ? (id: string, d: DetectedJson) => void detectedWebhook(id, d).catch((err) => logger.warn({ err, invoice: id }, 'invoice.detected webhook could not be queued'))
    : undefined;
  const detector = ctx.finality ? new PaymentDetector(ctx.finality, directory, ctx.now, onDetected) : undefined;
  const service = new InvoicesService({ store: ctx.store, source: ctx.source, keys: new ApiKeys(ctx.store), engine, directory, metrics, logger, expiry, changes: ctx.changes, usdtMaster, testOnly, now: ctx.now, detector });

  /** Recipients whose USDT wallet was derived from another master (the setting changed): derive again. */
  async function rederiveUsdtWallets(): Promise<void> {
    if (!usdtMaster) return;
    for (const r of await selectRecipients(ctx.store.db)) {
      if (r.usdtMaster === usdtMaster && r.usdtWallet) continue;
      const wallet = await deriveJettonWallet(ctx.source, usdtMaster, r.account);
      await upsertRecipient(ctx.store.db, { ...r, usdtMaster, usdtWallet: wallet }, Math.floor(ctx.now() / 1000));
    }
  }

  return {
    name: 'invoices',
    service,
    matcher,
    expiry,
    directory,
    get position() {
      return consumer?.position ?? null;
    },
    async routes(app) {
      await appRoutes(app, service);
      await invoiceRoutes(app, service);
    },
    // the directory is read by the routes and by the matcher: any process with either refreshes it
    async start() {
      await directory.refresh();
      refresher = setInterval(() => void directory.refresh().catch((err) => logger.warn({ err }, 'invoice directory refresh failed')), REFRESH_MS);
      refresher.unref();
      detector?.start();
    },
    async stop() {
      detector?.stop();
      if (refresher) clearInterval(refresher);
      refresher = null;
    },
    async startLeader() {
      await rederiveUsdtWallets();
      await directory.refresh();
      consumer = await startConsumer({
        name: CONSUMER_NAME,
        log: ctx.events,
        store: ctx.store,
        logger,
        // where the whole history is in the log, payments made while the service was down count
        startAt: ctx.profile.startAt,
        handle: async (batch, trx) => {
          await matcher.handle(batch, trx);
        },
        afterCommit: (batch) => {
          engine.notify();
          if (matcher.lastBlockUtime !== null) metrics.lagSeconds.set(Math.max(0, ctx.now() / 1000 - matcher.lastBlockUtime));
          metrics.lagEvents.set(Math.max(0, (ctx.events.headPosition() ?? batch.lastPosition) - batch.lastPosition));
        },
        onGap: (after, first) => logger.error({ after, first }, 'invoice matcher missed events: the event log no longer had them'),
      });
      await expiry.start();
      // invoices created through another process's API: their expiry may come sooner than the timer's
      unlisten = ctx.changes?.on(EXPIRY_TOPIC, (key) => (key === null ? void expiry.sweepNow() : expiry.invoiceCreated(Number(key)))) ?? null;
    },
    async stopLeader() {
      unlisten?.();
      unlisten = null;
      await expiry.stop();
      await consumer?.stop();
      consumer = null;
    },
    async health() {
      return {
        // a process that does not lead runs no matcher, and is not less ready for it
        ok: consumer !== null || ctx.cluster?.leads() === false,
        matcher_position: consumer?.position ?? null,
        matcher_caught_up: caughtUp(),
        usdt_master: usdtMaster,
        ...directory.size,
      };
    },
  };
}

export const invoicesComponent = (ctx: ServiceContext) => createInvoicesComponent(ctx);
