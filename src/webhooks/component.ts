// The webhooks component: its routes and the router (a durable consumer of the event log) over
// the service's delivery engine (`ctx.delivery`, shared with invoices).
import type { Component, ServiceContext } from '../service/component.js';
import { startConsumer, type Consumer } from '../bus/consumer.js';
import { CHANGES_TOPIC, Webhooks } from './manager.js';
import { WebhookRouter } from './router.js';
import { webhookRoutes } from './routes.js';
import { SubscriptionIndex } from './subscription-index.js';

export function createWebhooksComponent(ctx: ServiceContext): Component & { webhooks: Webhooks } {
  const engine = ctx.delivery;
  const index = new SubscriptionIndex();
  const webhooks = new Webhooks(ctx.store, engine, index, { webhooksPerKey: ctx.config.webhookMaxPerKey, accountsPerWebhook: ctx.config.webhookMaxAccounts }, ctx.source, ctx.changes);
  const router = new WebhookRouter({ index, engine, opcodeLimitPerMinute: ctx.config.webhookOpcodeMaxPerMinute, now: () => engine.clock.now(), logger: ctx.logger });
  let consumer: Consumer | null = null;
  let unlisten: (() => void) | null = null;
  return {
    name: 'webhooks',
    webhooks,
    routes: (app) => webhookRoutes(app, webhooks),
    async startLeader() {
      // subscriptions changed through another process's API reach this router's index
      unlisten = ctx.changes?.on(CHANGES_TOPIC, (key) => {
        webhooks.loadIndex(key === null ? undefined : Number(key)).catch((err) => ctx.logger.error({ err, webhook: key }, 'reloading webhook subscriptions failed'));
      }) ?? null;
      await webhooks.loadIndex();
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
    async stopLeader() {
      unlisten?.();
      unlisten = null;
      await consumer?.stop();
      consumer = null;
    },
    async health() {
      return { ...engine.health(), router_position: consumer?.position ?? null, followed_accounts: index.accountCount };
    },
  };
}

export const webhooksComponent = (ctx: ServiceContext) => createWebhooksComponent(ctx);
