// TypeBox schemas of the invoicing API: the validation of bodies and the OpenAPI document. Bodies
// are checked loosely here (types only) and fully in validate.ts, whose 400s name the field.
import { Type } from '@fastify/type-provider-typebox';
import { errorResponseSchema } from '../../errors.js';
import { SORT_FIELDS } from '../validate.js';

export const PREFIX = '/api/v1/services/invoices';
export const auth = { auth: { scope: 'invoices' as const, queryParams: ['api_key'] as const } };

export const Payment = Type.Object({
  tx_hash: Type.String({ description: 'Hash of the paying transaction (64 hex)' }),
  lt: Type.Integer(),
  amount: Type.String({ description: 'Minimal units' }),
  payer: Type.Union([Type.String(), Type.Null()], { description: 'Raw address of the payer (for USDT the sending owner)' }),
  kind: Type.String({ enum: ['payment', 'excess', 'late'], description: 'payment: toward the amount; excess: to a paid invoice; late: after expiry or cancel' }),
  utime: Type.Integer({ description: 'Unix seconds of the transaction' }),
});

export const Invoice = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: Type.String({ enum: ['pending', 'paid', 'cancelled', 'expired'] }),
  amount: Type.String({ description: 'Minimal units: nanoton for TON, 10^-6 for USDT' }),
  currency: Type.String({ enum: ['TON', 'USDT'] }),
  description: Type.Optional(Type.String()),
  date_create: Type.Integer({ description: 'Unix seconds' }),
  date_expire: Type.Integer({ description: 'Unix seconds: date_create + life_time' }),
  date_change: Type.Optional(Type.Integer({ description: 'Unix seconds of the last change; absent from the create response' })),
  date_paid: Type.Optional(Type.Integer({ description: 'Unix seconds of the paying transaction (ours)' })),
  payment_link: Type.String({ description: 'ton://transfer link with amount, bin (invoice payload), exp, and jetton for USDT' }),
  pay_to_address: Type.String({ description: 'Recipient wallet, raw form' }),
  paid_by_address: Type.Optional(Type.String()),
  overpayment: Type.Optional(Type.String({ description: 'Minimal units, only when > 0' })),
  payments: Type.Optional(Type.Array(Payment, { description: 'Payments received (ours): in GET and webhook bodies, not in lists' })),
  detected: Type.Optional(
    Type.Object(
      {
        amount: Type.String({ description: 'Minimal units' }),
        finality: Type.String({ enum: ['pending', 'confirmed', 'finalized'] }),
        at: Type.Integer({ description: 'Unix seconds when first seen' }),
        trace: Type.String({ description: "The trace's normalised external message hash (hex)" }),
      },
      { description: 'A payment seen before it is final (ours, tonwatch extension): only while the invoice is pending; paid still comes only when finalized' },
    ),
  ),
});

export const InvoiceIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });

export const CreateInvoiceBody = Type.Object({
  amount: Type.String({ description: 'Minimal units, ≥ 0.001 of the currency' }),
  life_time: Type.Integer({ description: 'Seconds, 1 … 7776000 (90 days)' }),
  currency: Type.String({ enum: ['TON', 'USDT'] }),
  description: Type.Optional(Type.String({ description: 'At most 255 characters' })),
});

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  field_order: Type.Optional(Type.String({ enum: [...SORT_FIELDS] })),
  type_order: Type.Optional(Type.String({ enum: ['asc', 'desc'] })),
  search_id: Type.Optional(Type.String({ description: 'Part of an invoice id' })),
  'filter_status[]': Type.Optional(Type.Array(Type.String({ enum: ['pending', 'paid', 'cancelled', 'expired'] }))),
  filter_status: Type.Optional(Type.Array(Type.String(), { description: 'Also accepted: repeated or comma-separated' })),
  currency: Type.Optional(Type.String({ enum: ['TON', 'USDT'] })),
  overpayment: Type.Optional(Type.Boolean()),
  start: Type.Optional(Type.Integer({ description: 'date_create ≥ start (unix seconds)' })),
  end: Type.Optional(Type.Integer({ description: 'date_create ≤ end (unix seconds)' })),
  api_key: Type.Optional(Type.String()),
});

export const Stats = Type.Object({
  stats: Type.Object({
    total: Type.Integer({ description: 'Invoices in this currency' }),
    success_total: Type.String({ description: 'Earned: sum of the amounts of paid invoices' }),
    success_in_week: Type.String({ description: 'Earned by invoices paid in the last 7 days' }),
    invoices_in_progress: Type.Integer({ description: 'Pending invoices' }),
    total_amount_pending: Type.String({ description: 'Sum of the amounts of pending invoices' }),
    currency: Type.String(),
    paid_per_day: Type.Array(Type.Object({ day: Type.Integer(), amount: Type.String(), count: Type.Integer() }), {
      description: 'Ours: paid amounts per UTC day (day = unix seconds of its midnight) over the last 30 days',
    }),
  }),
});

export const Webhook = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  status: Type.String({ enum: ['online', 'offline', 'suspended'] }),
  status_updated_at: Type.Integer(),
  last_online_at: Type.Integer(),
  failed_attempts: Type.Integer(),
  signing_secret: Type.String({ description: 'Standard Webhooks secret (whsec_…) to verify webhook-signature' }),
  token: Type.String({ description: 'Sent as Authorization: Bearer with each delivery' }),
});

export const App = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  recipient_address: Type.String({ description: 'Raw form' }),
  recipient_friendly: Type.String({ description: 'Ours: the recipient as wallet apps show it — non-bounceable (UQ…), with the test-only flag on testnet (0Q…)' }),
  usdt_jetton_wallet: Type.Optional(Type.String({ description: "The recipient's USDT jetton wallet as the configured master derives it" })),
  webhooks: Type.Array(Webhook),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

export const TokenInfo = Type.Object({
  id: Type.String(),
  prefix: Type.String({ description: 'First characters of the token' }),
  created_at: Type.Integer(),
  last_used_at: Type.Optional(Type.Integer()),
});

export const AppIdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
export const WebhookParams = Type.Object({ id: Type.Integer({ minimum: 1 }), webhook_id: Type.Integer({ minimum: 1 }) });
export const Empty = Type.Object({});
export const errors = { 400: errorResponseSchema, 404: errorResponseSchema, 409: errorResponseSchema };
