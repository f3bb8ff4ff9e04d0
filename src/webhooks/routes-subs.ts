// Subscription routes of the webhooks API: accounts (with cursors and replay), opcodes, new
// contracts, mempool.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponseSchema } from '../errors.js';
import type { Webhooks } from './manager.js';
import { ownerOf, webhooksAuth } from './owner.js';
import * as S from './schemas.js';
import { accountInput, formatOpcode, iso, ltInput, parseOpcode } from './validate.js';

const tags = ['webhooks'];
const errors = { 400: errorResponseSchema, 404: errorResponseSchema };
const auth = webhooksAuth;

export async function subscriptionRoutes(app: FastifyInstance<any, any, any, any, any>, webhooks: Webhooks): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/webhooks/:webhook_id/account-tx/subscribe',
    { config: auth, schema: { tags, summary: 'Deliver every transaction of these accounts', params: S.WebhookIdParams, body: S.AccountsSubscribe, response: { 200: S.Empty, ...errors } } },
    async (request) => {
      const accounts = request.body.accounts.map((a, i) => accountInput(a.account_id, `accounts.${i}.account_id`));
      await webhooks.subscribeAccounts(ownerOf(request), request.params.webhook_id, accounts);
      return {};
    },
  );

  r.post(
    '/webhooks/:webhook_id/account-tx/unsubscribe',
    { config: auth, schema: { tags, summary: 'Stop delivering these accounts\' transactions', params: S.WebhookIdParams, body: S.AccountsUnsubscribe, response: { 200: S.Empty, ...errors } } },
    async (request) => {
      const accounts = request.body.accounts.map((a, i) => accountInput(a, `accounts.${i}`));
      await webhooks.unsubscribeAccounts(ownerOf(request), request.params.webhook_id, accounts);
      return {};
    },
  );

  r.get(
    '/webhooks/:webhook_id/account-tx/subscriptions',
    {
      config: auth,
      schema: { tags, summary: 'Followed accounts with their delivery cursor and the event they are stuck on', params: S.WebhookIdParams, querystring: S.Paging, response: { 200: S.AccountSubscriptions, ...errors } },
    },
    async (request) => {
      const subs = await webhooks.accountSubscriptions(ownerOf(request), request.params.webhook_id, request.query.offset, request.query.limit);
      return {
        account_tx_subscriptions: subs.map((s) => ({
          account_id: s.accountId,
          last_delivered_lt: s.lastDeliveredLt as unknown as number,
          ...(s.failedAt !== null ? { failed_at: iso(s.failedAt) } : {}),
          ...(s.failedLt !== null ? { failed_lt: s.failedLt as unknown as number } : {}),
          ...(s.failedAttempts !== null ? { failed_attempts: s.failedAttempts } : {}),
        })),
      };
    },
  );

  r.post(
    '/webhooks/:webhook_id/account-tx/replay',
    {
      config: auth,
      schema: {
        tags,
        summary: 'Deliver a followed account\'s transactions again from a logical time, oldest first, in the account\'s order (same webhook-id as the first time)',
        params: S.WebhookIdParams,
        body: S.ReplayBody,
        response: { 200: S.Replayed, ...errors },
      },
    },
    async (request) => {
      const account = accountInput(request.body.account_id, 'account_id');
      const fromLt = ltInput(request.body.from_lt, 'from_lt');
      const txs = await webhooks.replay(ownerOf(request), request.params.webhook_id, account, fromLt, request.body.limit ?? 100);
      return {
        replayed: txs.length,
        ...(txs.length > 0 ? { first_lt: txs[0]!.lt as unknown as number, last_lt: txs[txs.length - 1]!.lt as unknown as number } : {}),
      };
    },
  );

  r.get(
    '/webhooks/:webhook_id/msg-opcode/subscriptions',
    { config: auth, schema: { tags, summary: 'Opcode subscriptions, active or disabled', params: S.WebhookIdParams, querystring: S.Paging, response: { 200: S.OpcodeSubscriptions, ...errors } } },
    async (request) => {
      const subs = await webhooks.opcodeSubscriptions(ownerOf(request), request.params.webhook_id, request.query.offset, request.query.limit);
      return {
        subscriptions: subs.map((s) => ({
          opcode: formatOpcode(s.opcode),
          status: s.status,
          ...(s.disabledAt !== null ? { disabled_at: iso(s.disabledAt) } : {}),
          ...(s.disabledReason !== null ? { disabled_reason: s.disabledReason } : {}),
        })),
      };
    },
  );

  for (const on of [true, false]) {
    const verb = on ? 'subscribe' : 'unsubscribe';
    r.post(
      `/webhooks/:webhook_id/${verb}-msg-opcode/:opcode`,
      {
        config: auth,
        schema: {
          tags,
          summary: on ? 'Deliver every message on the chain whose body starts with this opcode (re-activates a disabled subscription)' : 'Stop delivering this opcode',
          params: S.OpcodeParams,
          response: { 200: S.Empty, ...errors },
        },
      },
      async (request) => {
        const opcode = parseOpcode(request.params.opcode);
        if (on) await webhooks.subscribeOpcode(ownerOf(request), request.params.webhook_id, opcode);
        else await webhooks.unsubscribeOpcode(ownerOf(request), request.params.webhook_id, opcode);
        return {};
      },
    );
    r.post(
      `/webhooks/:webhook_id/${verb}-new-contracts`,
      {
        config: auth,
        schema: { tags, summary: on ? 'Deliver every contract deployment (an account\'s first transaction that makes it active)' : 'Stop delivering deployments', params: S.WebhookIdParams, response: { 200: S.Empty, ...errors } },
      },
      async (request) => {
        await webhooks.setFeed(ownerOf(request), request.params.webhook_id, 'new_contracts', on);
        return {};
      },
    );
    r.post(
      `/webhooks/:webhook_id/mempool/${verb}`,
      { config: auth, schema: { tags, summary: on ? 'Deliver every pending external message (`{"boc": …}`)' : 'Stop delivering mempool messages', params: S.WebhookIdParams, response: { 200: S.Empty, ...errors } } },
      async (request) => {
        await webhooks.setFeed(ownerOf(request), request.params.webhook_id, 'mempool', on);
        return {};
      },
    );
  }
}
