// Application routes: onboarding with the admin key (create, list, delete), and for the admin or
// the application's own token: read, update, webhook URLs (with failure logs, redelivery,
// back-online and a test delivery) and the API token (metadata, regenerate).
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { badRequest, notFound } from '../../errors.js';
import { selectApps } from '../apps.js';
import type { InvoicesService } from '../service.js';
import { accessibleApp, appIdParam, callerApp, isAdmin, requireAdmin } from './access.js';
import { App, AppIdParams, auth, Empty, errors, PREFIX, TokenInfo, Webhook, WebhookParams } from './schemas.js';

const AppBody = Type.Object({
  name: Type.Optional(Type.String({ description: '3 to 64 characters' })),
  description: Type.Optional(Type.Union([Type.String({ description: 'At most 255 characters' }), Type.Null()])),
  recipient_address: Type.Optional(Type.String({ description: 'Wallet receiving payments: active, with at least one outgoing transaction' })),
  webhooks: Type.Optional(Type.Array(Type.String(), { description: 'Webhook URLs (at most 10); only on create' })),
});
const UrlBody = Type.Object({ url: Type.String() });

export async function appRoutes(parent: FastifyInstance, service: InvoicesService): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['invoices: applications'];

  app.post(
    `${PREFIX}/app`,
    {
      config: auth,
      schema: {
        tags,
        summary: 'Create an application (admin key); the response carries its API token, shown only once',
        body: AppBody,
        response: { 201: Type.Object({ app: App, token: Type.String({ description: 'The API token: shown only here' }) }), ...errors },
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      if (request.body.name === undefined) throw badRequest('name is required (3 to 64 characters)', 'name');
      const created = await service.createApp(request.body as Record<string, unknown>);
      return reply.code(201).header('location', `${PREFIX}/app/${created.app.id}`).send(created);
    },
  );

  app.get(
    `${PREFIX}/app`,
    { config: auth, schema: { tags, summary: 'Applications: all with the admin key, its own with an application token', response: { 200: Type.Object({ apps: Type.Array(App) }) } } },
    async (request) => {
      if (!isAdmin(request)) return { apps: [await service.appJson(await callerApp(service, request))] };
      const apps = await selectApps(service.deps.store.db);
      return { apps: await Promise.all(apps.map((a) => service.appJson(a))) };
    },
  );

  app.get(
    `${PREFIX}/app/:id`,
    { config: auth, schema: { tags, summary: 'One application', params: AppIdParams, response: { 200: Type.Object({ app: App }), ...errors } } },
    async (request) => ({ app: await service.appJson(await accessibleApp(service, request, request.params.id)) }),
  );

  app.patch(
    `${PREFIX}/app/:id`,
    { config: auth, schema: { tags, summary: 'Update name, description or recipient (checked on chain)', params: AppIdParams, body: AppBody, response: { 200: Type.Object({ app: App }), ...errors } } },
    async (request) => {
      await accessibleApp(service, request, request.params.id);
      if (request.body.webhooks !== undefined) throw badRequest('webhooks are changed with /app/{id}/webhook', 'webhooks');
      return { app: await service.updateApp(request.params.id, request.body as Record<string, unknown>) };
    },
  );

  app.delete(
    `${PREFIX}/app/:id`,
    { config: auth, schema: { tags, summary: 'Delete an application with its invoices, webhooks and token (admin key)', params: AppIdParams, response: { 200: Empty, ...errors } } },
    async (request) => {
      requireAdmin(request);
      await service.deleteApp(request.params.id);
      return {};
    },
  );

  // ---- webhook URLs ------------------------------------------------------------------------

  app.get(
    `${PREFIX}/app/:id/webhook`,
    { config: auth, schema: { tags, summary: 'Webhook URLs of the application', params: AppIdParams, response: { 200: Type.Object({ webhooks: Type.Array(Webhook) }), ...errors } } },
    async (request) => {
      const a = await accessibleApp(service, request, request.params.id);
      return { webhooks: (await service.appJson(a)).webhooks };
    },
  );

  app.post(
    `${PREFIX}/app/:id/webhook`,
    { config: auth, schema: { tags, summary: 'Add a webhook URL', params: AppIdParams, body: UrlBody, response: { 201: Type.Object({ webhook: Webhook }), ...errors } } },
    async (request, reply) => {
      await accessibleApp(service, request, request.params.id);
      return reply.code(201).send({ webhook: await service.addWebhook(request.params.id, request.body.url) });
    },
  );

  app.patch(
    `${PREFIX}/app/:id/webhook/:webhook_id`,
    { config: auth, schema: { tags, summary: 'Change a webhook URL', params: WebhookParams, body: UrlBody, response: { 200: Type.Object({ webhook: Webhook }), ...errors } } },
    async (request) => {
      await accessibleApp(service, request, request.params.id);
      return { webhook: await service.updateWebhook(request.params.id, request.params.webhook_id, request.body.url) };
    },
  );

  app.delete(
    `${PREFIX}/app/:id/webhook/:webhook_id`,
    { config: auth, schema: { tags, summary: 'Remove a webhook URL (its pending deliveries go too)', params: WebhookParams, response: { 200: Empty, ...errors } } },
    async (request) => {
      await accessibleApp(service, request, request.params.id);
      await service.removeWebhook(request.params.id, request.params.webhook_id);
      return {};
    },
  );

  app.get(
    `${PREFIX}/app/:id/webhook/:webhook_id/logs`,
    {
      config: auth,
      schema: {
        tags,
        summary: 'Failed delivery attempts, newest first',
        params: WebhookParams,
        querystring: Type.Object({ offset: Type.Optional(Type.Integer({ minimum: 0 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })), api_key: Type.Optional(Type.String()) }),
      },
    },
    async (request) => {
      await accessibleApp(service, request, request.params.id);
      await service.requireWebhook(request.params.id, request.params.webhook_id);
      const offset = request.query.offset ?? 0;
      const limit = request.query.limit ?? 100;
      const { more, entries } = await service.deps.engine.failureLog(request.params.webhook_id, offset, limit);
      return {
        logs: entries.map((e) => ({
          timestamp: Math.floor(e.at / 1000),
          message_id: e.messageId,
          event_type: e.eventType,
          attempt: e.attempt,
          status_code: e.statusCode,
          error: e.error,
          latency_ms: e.latencyMs,
          message: e.message,
        })),
        ...(more ? { next_offset: offset + limit } : {}),
      };
    },
  );

  app.post(
    `${PREFIX}/app/:id/webhook/:webhook_id/redeliver`,
    { config: auth, schema: { tags, summary: 'Send a past delivery again (same webhook-id and body)', params: WebhookParams, body: Type.Object({ message_id: Type.String({ maxLength: 200 }) }), response: { 200: Empty, ...errors } } },
    async (request) => {
      await accessibleApp(service, request, request.params.id);
      await service.requireWebhook(request.params.id, request.params.webhook_id);
      if (!(await service.deps.engine.redeliver(request.params.webhook_id, request.body.message_id))) throw notFound(`no delivery ${request.body.message_id}`);
      return {};
    },
  );

  app.post(
    `${PREFIX}/app/:id/webhook/:webhook_id/back-online`,
    { config: auth, schema: { tags, summary: 'The receiver is reachable again: retry waiting deliveries now', params: WebhookParams, response: { 200: Empty, ...errors } } },
    async (request) => {
      await accessibleApp(service, request, request.params.id);
      await service.requireWebhook(request.params.id, request.params.webhook_id);
      await service.deps.engine.backOnline(request.params.webhook_id);
      return {};
    },
  );

  app.post(
    `${PREFIX}/app/:id/webhook/:webhook_id/test`,
    {
      config: auth,
      schema: { tags, summary: 'Queue a test delivery (event type invoice.test) with a sample invoice', params: WebhookParams, response: { 202: Type.Object({ message_id: Type.String() }), ...errors } },
    },
    async (request, reply) => {
      const a = await accessibleApp(service, request, request.params.id);
      await service.requireWebhook(request.params.id, request.params.webhook_id);
      const now = Math.floor(service.deps.now() / 1000);
      const body = JSON.stringify({
        id: '00000000-0000-4000-8000-000000000000',
        status: 'paid',
        amount: '1000000000',
        currency: 'TON',
        description: 'test delivery',
        date_create: now,
        date_expire: now + 3600,
        date_change: now,
        payment_link: 'ton://transfer/',
        pay_to_address: a.recipient,
        payments: [],
      });
      const messageId = `msg_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`;
      await service.deps.store.db.transaction().execute((trx) =>
        service.deps.engine.enqueue(trx, [{ endpointId: request.params.webhook_id, eventType: 'invoice.test', body, messageId }]),
      );
      service.deps.engine.notify();
      return reply.code(202).send({ message_id: messageId });
    },
  );

  // ---- API token ---------------------------------------------------------------------------

  const TokenQuery = Type.Object({ app_id: Type.Optional(Type.Integer({ minimum: 1 })), api_key: Type.Optional(Type.String()) });

  app.get(
    `${PREFIX}/token`,
    {
      config: auth,
      schema: {
        tags,
        summary: "The application's API token: metadata only (tokens are stored hashed; PATCH makes a new one)",
        querystring: TokenQuery,
        response: { 200: Type.Object({ token: Type.Union([TokenInfo, Type.Null()]) }), ...errors },
      },
    },
    async (request) => {
      const a = await appIdParam(service, request, request.query.app_id);
      return { token: await service.tokenInfo(a.id) };
    },
  );

  app.patch(
    `${PREFIX}/token`,
    {
      config: auth,
      schema: {
        tags,
        summary: 'Regenerate the API token: the new one is returned once, the old one stops working at once',
        querystring: TokenQuery,
        response: { 200: Type.Object({ token: Type.String(), token_info: TokenInfo }), ...errors },
      },
    },
    async (request) => {
      const a = await appIdParam(service, request, request.query.app_id);
      const { token, info } = await service.regenerateToken(a.id);
      return { token, token_info: info };
    },
  );
}
