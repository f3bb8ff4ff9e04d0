// The webhooks component: its routes, the router (a durable consumer of the event log) and the
// delivery engine's worker, shared with other producers through `deliveryEngineFor`.
import type { Component, ServiceContext } from '../service/component.js';
import { startConsumer, type Consumer } from '../bus/consumer.js';
import { systemClock } from '../delivery/clock.js';
import { DeliveryEngine, deliveryEngineFor } from '../delivery/engine.js';
import type { Clock } from '../delivery/types.js';
import type { HostResolver } from '../delivery/ssrf.js';
import { Webhooks } from './manager.js';
import { WebhookRouter } from './router.js';
import { webhookRoutes } from './routes.js';
import { SubscriptionIndex } from './subscription-index.js';

const DAY_S = 86_400;

export interface WebhooksComponentOptions {
  /** Manual clock for tests of the retry schedule; the context's `now` with real timers otherwise. */
  clock?: Clock;
  resolve?: HostResolver;
}

/** The process's delivery engine for this service (invoices hand their webhooks to it too). */
export function deliveryEngine(ctx: ServiceContext, options: WebhooksComponentOptions = {}): DeliveryEngine {
  const c = ctx.config;
  return deliveryEngineFor(
    ctx.store,
    () =>
      new DeliveryEngine({
        store: ctx.store,
        allowLoopback: c.webhookAllowLoopback,
        timeoutMs: c.webhookTimeoutMs,
        clock: options.clock ?? { now: () => ctx.now(), setTimeout: systemClock.setTimeout },
        logger: ctx.logger.child({ component: 'webhook-delivery' }),
        metrics: ctx.metrics,
        resolve: options.resolve,
        concurrency: c.webhookConcurrency,
        senderThread: c.webhookSenderThread,
        secretOverlapMs: c.webhookSecretOverlapSeconds * 1000,
        historyMs: c.webhookHistoryDays * DAY_S * 1000,
      }),
  );
}

export function createWebhooksComponent(ctx: ServiceContext, options: WebhooksComponentOptions = {}): Component & { webhooks: Webhooks } {
  const engine = deliveryEngine(ctx, options);
  const index = new SubscriptionIndex();
  const webhooks = new Webhooks(ctx.store, engine, index, { webhooksPerKey: ctx.config.webhookMaxPerKey, accountsPerWebhook: ctx.config.webhookMaxAccounts }, ctx.source);
  const router = new WebhookRouter({ index, engine, opcodeLimitPerMinute: ctx.config.webhookOpcodeMaxPerMinute, now: () => engine.clock.now(), logger: ctx.logger });
  let consumer: Consumer | null = null;
  return {
    name: 'webhooks',
    webhooks,
    routes: (app) => webhookRoutes(app, webhooks),
    async start() {
      await webhooks.loadIndex();
      await engine.start();
      consumer = await startConsumer({
        name: 'webhooks',
        log: ctx.events,
        store: ctx.store,
        logger: ctx.logger,
        handle: (batch, trx) => router.handle(batch, trx),
        afterCommit: () => router.afterCommit(),
        onGap: (after, first) => ctx.logger.error({ after, first }, 'webhook router missed events: the event log no longer had them'),
      });
    },
    async stop() {
      await consumer?.stop();
      consumer = null;
      await engine.stop();
    },
    async health() {
      return { ...engine.health(), router_position: consumer?.position ?? null, followed_accounts: index.accountCount };
    },
  };
}

export const webhooksComponent = (ctx: ServiceContext) => createWebhooksComponent(ctx);
