// HTTP routes of the webhooks API (compat.md §4), every one with the `webhooks` scope. A webhook
// belongs to the key that created it: other keys get 404. Subscription routes: routes-subs.ts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponseSchema, notFound } from '../errors.js';
import { ownerOf, webhooksAuth } from './owner.js';
import type { Webhooks } from './manager.js';
import { subscriptionRoutes } from './routes-subs.js';
import * as S from './schemas.js';
import { iso } from './validate.js';

const tags = ['webhooks'];
const errors = { 400: errorResponseSchema, 404: errorResponseSchema };

/** Lets bodiless POSTs carry `Content-Type: application/json` with an empty body, as some clients do. */
function acceptEmptyJson(app: FastifyInstance): void {
  // Fastify's own parser (with its prototype-poisoning checks) for everything that is not empty.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    parseJson(request, body as string, done);
  });
}

export async function webhookRoutes(parent: FastifyInstance, webhooks: Webhooks): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  acceptEmptyJson(app);

  app.post(
    '/webhooks',
    { config: webhooksAuth, schema: { tags, summary: 'Create a webhook', body: S.CreateBody, response: { 200: S.Created, 400: errorResponseSchema } } },
    async (request) => {
      const endpoint = await webhooks.create(ownerOf(request), request.body.endpoint);
      return { webhook_id: endpoint.id, token: endpoint.token, signing_secret: endpoint.secret };
    },
  );

  app.get('/webhooks', { config: webhooksAuth, schema: { tags, summary: 'List your webhooks with their status and subscriptions', response: { 200: S.WebhookList } } }, async (request) => {
    const list = await webhooks.list(ownerOf(request));
    return {
      webhooks: list.map(({ endpoint: e, subscribedAccounts, subscribedOpcodes, feeds }) => ({
        id: e.id,
        endpoint: e.url,
        token: e.token,
        signing_secret: e.secret,
        subscribed_accounts: subscribedAccounts,
        subscribed_msg_opcodes: subscribedOpcodes,
        subscribed_to_mempool: feeds.has('mempool'),
        subscribed_to_new_contracts: feeds.has('new_contracts'),
        status: e.status,
        ...(e.statusReason ? { status_reason: e.statusReason } : {}),
        status_updated_at: iso(e.statusUpdatedAt),
        last_online_at: iso(e.lastOnlineAt),
        status_failed_attempts: e.failedAttempts,
      })),
    };
  });

  app.delete(
    '/webhooks/:webhook_id',
    { config: webhooksAuth, schema: { tags, summary: 'Delete a webhook and its subscriptions', params: S.WebhookIdParams, response: { 200: S.Empty, ...errors } } },
    async (request) => {
      await webhooks.remove(ownerOf(request), request.params.webhook_id);
      return {};
    },
  );

  app.post(
    '/webhooks/:webhook_id/generate-new-token',
    {
      config: webhooksAuth,
      schema: {
        tags,
        summary: 'New delivery token (the old one stops at once) and new signing secret (the old one keeps signing during the overlap)',
        params: S.WebhookIdParams,
        response: { 200: S.NewToken, ...errors },
      },
    },
    async (request) => {
      const e = await webhooks.rotate(ownerOf(request), request.params.webhook_id);
      return { token: e.token, signing_secret: e.secret };
    },
  );

  app.post(
    '/webhooks/:webhook_id/back-online',
    { config: webhooksAuth, schema: { tags, summary: 'The receiver is reachable again: status online, waiting deliveries retried now', params: S.WebhookIdParams, response: { 200: S.Empty, ...errors } } },
    async (request) => {
      await webhooks.backOnline(ownerOf(request), request.params.webhook_id);
      return {};
    },
  );

  app.get(
    '/webhooks/:webhook_id/logs',
    {
      config: webhooksAuth,
      schema: { tags, summary: `Failed delivery attempts, newest first, ${S.LOG_PAGE} per page`, params: S.WebhookIdParams, querystring: S.LogsQuery, response: { 200: S.Logs, ...errors } },
    },
    async (request) => {
      const { offset } = request.query;
      const page = await webhooks.logs(ownerOf(request), request.params.webhook_id, offset, S.LOG_PAGE);
      return {
        ...(page.more ? { next_offset: offset + page.entries.length } : {}),
        logs: page.entries.map((l) => ({
          timestamp: iso(l.at),
          message: l.message,
          event_type: l.eventType,
          message_id: l.messageId,
          attempt: l.attempt,
          ...(l.statusCode !== null ? { status_code: l.statusCode } : {}),
          ...(l.error !== null ? { error: l.error } : {}),
          latency_ms: l.latencyMs,
        })),
      };
    },
  );

  app.get('/usage-stats', { config: webhooksAuth, schema: { tags, summary: 'Deliveries this calendar month (UTC)', response: { 200: S.UsageStats } } }, async (request) => {
    const u = await webhooks.usage(ownerOf(request));
    return {
      period_started_at: iso(u.periodStart),
      account_subscriptions: u.accountSubscriptions,
      webhooks_delivered: u.delivered,
      webhooks_failed: u.failed,
    };
  });

  app.post(
    '/webhooks/:webhook_id/redeliver',
    {
      config: webhooksAuth,
      schema: {
        tags,
        summary: 'Send a past delivery again (same webhook-id and body), outside the account order',
        params: S.WebhookIdParams,
        body: S.RedeliverBody,
        response: { 200: S.Empty, ...errors },
      },
    },
    async (request) => {
      const found = await webhooks.redeliver(ownerOf(request), request.params.webhook_id, request.body.message_id);
      if (!found) throw notFound(`webhook ${request.params.webhook_id} has no delivery with message_id ${request.body.message_id}`);
      return {};
    },
  );

  await subscriptionRoutes(app, webhooks);
}
