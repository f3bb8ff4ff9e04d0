// JSON schemas of the webhooks API (TonAPI's rt.yml shapes, plus our signing secret, redelivery
// and replay). They validate requests and document the API at /docs.
import { Type } from '@fastify/type-provider-typebox';

export const MAX_LIST_ITEMS = 1000;
export const LOG_PAGE = 100;

export const WebhookIdParams = Type.Object({
  webhook_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Webhook id (from POST /webhooks)' }),
});

export const OpcodeParams = Type.Intersect([
  WebhookIdParams,
  Type.Object({ opcode: Type.String({ maxLength: 64, description: '`0x` followed by 1 to 8 hex digits, e.g. `0x0f8a7ea5` or `0x123456` (= `0x00123456`)' }) }),
]);

export const Paging = Type.Object({
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
  limit: Type.Integer({ minimum: 1, maximum: MAX_LIST_ITEMS, default: MAX_LIST_ITEMS, description: `At most ${MAX_LIST_ITEMS}` }),
});

export const LogsQuery = Type.Object({ offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }) });

export const Empty = Type.Object({}, { description: 'Empty object' });

export const CreateBody = Type.Object(
  { endpoint: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL deliveries are POSTed to' }) },
  { additionalProperties: false },
);

export const Created = Type.Object({
  webhook_id: Type.Integer(),
  token: Type.String({ description: 'Sent as `Authorization: Bearer <token>` with every delivery' }),
  signing_secret: Type.String({ description: 'Standard Webhooks secret (`whsec_…`) that signs every delivery (`webhook-signature`)' }),
});

export const Status = Type.Union([Type.Literal('online'), Type.Literal('offline'), Type.Literal('suspended')]);

export const WebhookList = Type.Object({
  webhooks: Type.Array(
    Type.Object({
      id: Type.Integer(),
      endpoint: Type.String(),
      token: Type.String(),
      signing_secret: Type.String(),
      subscribed_accounts: Type.Integer(),
      subscribed_msg_opcodes: Type.Integer(),
      subscribed_to_mempool: Type.Boolean(),
      subscribed_to_new_contracts: Type.Boolean(),
      status: Status,
      status_reason: Type.Optional(Type.String({ description: 'Why the webhook is suspended' })),
      status_updated_at: Type.String({ format: 'date-time' }),
      last_online_at: Type.String({ format: 'date-time' }),
      status_failed_attempts: Type.Integer({ description: 'Failed attempts since the last successful delivery' }),
    }),
  ),
});

export const NewToken = Type.Object({
  token: Type.String(),
  signing_secret: Type.String({ description: 'The new secret; the previous one keeps signing alongside for the overlap period' }),
});

export const Logs = Type.Object({
  next_offset: Type.Optional(Type.Integer()),
  logs: Type.Array(
    Type.Object({
      timestamp: Type.String({ format: 'date-time' }),
      message: Type.String(),
      event_type: Type.String(),
      message_id: Type.String({ description: 'The delivery\'s `webhook-id` (use it to redeliver)' }),
      attempt: Type.Integer(),
      status_code: Type.Optional(Type.Integer()),
      error: Type.Optional(Type.String()),
      latency_ms: Type.Integer(),
    }),
  ),
});

export const UsageStats = Type.Object({
  period_started_at: Type.String({ format: 'date-time' }),
  period_ended_at: Type.Optional(Type.String({ format: 'date-time' })),
  account_subscriptions: Type.Integer(),
  webhooks_delivered: Type.Integer(),
  webhooks_failed: Type.Integer({ description: 'Failed delivery attempts in the period' }),
});

export const AccountsSubscribe = Type.Object(
  {
    accounts: Type.Array(Type.Object({ account_id: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: MAX_LIST_ITEMS,
    }),
  },
  { additionalProperties: false },
);

export const AccountsUnsubscribe = Type.Object(
  { accounts: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: MAX_LIST_ITEMS }) },
  { additionalProperties: false },
);

export const AccountSubscriptions = Type.Object({
  account_tx_subscriptions: Type.Array(
    Type.Object({
      account_id: Type.String(),
      last_delivered_lt: Type.Integer({ description: 'lt of the newest delivered transaction; 0 before the first' }),
      failed_at: Type.Optional(Type.String({ format: 'date-time' })),
      failed_lt: Type.Optional(Type.Integer()),
      failed_attempts: Type.Optional(Type.Integer()),
    }),
  ),
});

export const OpcodeSubscriptions = Type.Object({
  subscriptions: Type.Array(
    Type.Object({
      opcode: Type.String(),
      status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
      disabled_at: Type.Optional(Type.String({ format: 'date-time' })),
      disabled_reason: Type.Optional(Type.String()),
    }),
  ),
});

export const RedeliverBody = Type.Object(
  { message_id: Type.String({ minLength: 1, maxLength: 100, description: 'The `webhook-id` of a past delivery (logs show it)' }) },
  { additionalProperties: false },
);

export const ReplayBody = Type.Object(
  {
    account_id: Type.String({ minLength: 1, maxLength: 100 }),
    from_lt: Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,20}$' })], { description: 'Replay transactions with lt ≥ from_lt' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIST_ITEMS, default: 100, description: 'Oldest transactions to replay, at most 1000' })),
  },
  { additionalProperties: false },
);

export const Replayed = Type.Object({
  replayed: Type.Integer({ description: 'Transactions queued for delivery' }),
  first_lt: Type.Optional(Type.Integer()),
  last_lt: Type.Optional(Type.Integer()),
});
