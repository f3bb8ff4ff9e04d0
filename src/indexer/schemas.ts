// TypeBox schemas of the indexer's routes: the validation and the OpenAPI document (compat.md §6).
import { Type } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  { error: Type.String(), field: Type.Optional(Type.String()), error_code: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

const Account = Type.String({ description: 'Raw account id <workchain>:<64 hex>' });
const Lt = Type.Integer({ description: 'Logical time (u64; below 2^53 today)' });

export const AddressParams = Type.Object({
  address: Type.String({ minLength: 1, maxLength: 128, description: 'Deposit address, raw or user-friendly' }),
});
export const JettonParams = Type.Object({
  jetton: Type.String({ minLength: 1, maxLength: 128, description: 'Jetton master address, raw or user-friendly' }),
  address: Type.String({ minLength: 1, maxLength: 128, description: 'Owner (deposit) address, raw or user-friendly' }),
});
export const DomainParams = Type.Object({ domain: Type.String({ minLength: 1, maxLength: 200, description: 'Domain name, e.g. alice.ton' }) });
export const HashParam = { hash: Type.String({ minLength: 1, maxLength: 100, description: 'Transaction hash, hex or base64' }) };
export const AddressHashParams = Type.Object({ ...AddressParams.properties, ...HashParam });
export const JettonHashParams = Type.Object({ ...JettonParams.properties, ...HashParam });

export const HistoryQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Items per page, 1..1000' }),
  before_lt: Type.Optional(
    Type.String({ maxLength: 120, description: 'Only items older than this: an lt, or the next_from of the previous page' }),
  ),
});

export const Transfer = Type.Object({
  hash: Type.String({ description: 'Hash of the transaction that made the movement' }),
  lt: Lt,
  utime: Type.Integer(),
  direction: Type.Union([Type.Literal('in'), Type.Literal('out')]),
  sender: Type.Union([Account, Type.Null()]),
  recipients: Type.Array(Account),
  jetton: Type.Union([Account, Type.Null()], { description: 'Jetton master, null for TON and for rejected claims' }),
  amount: Type.String({ description: 'Minimal units (nanoton, or jetton units)' }),
  comment: Type.Union([Type.String(), Type.Null()]),
  fee: Type.String({ description: 'Nanoton the contract paid for the transaction (on its first record only)' }),
  mc_seqno: Type.Integer(),
  status: Type.Union([Type.Literal('ok'), Type.Literal('bounced'), Type.Literal('failed'), Type.Literal('rejected')]),
  kind: Type.Union([
    Type.Literal('deposit'),
    Type.Literal('withdrawal'),
    Type.Literal('excess'),
    Type.Literal('jetton_notification_ton'),
    Type.Literal('bounce_refund'),
    Type.Literal('mint'),
    Type.Literal('burn'),
  ]),
  reason: Type.Optional(Type.String({ description: 'Why it did not count (status other than ok)' })),
});

export const HistoryPage = Type.Object({
  transfers: Type.Array(Transfer),
  next_from: Type.Union([Type.String(), Type.Null()], { description: 'Pass as before_lt for the next page; null on the last page' }),
});

export const TransactionTransfers = Type.Object({ hash: Type.String(), transfers: Type.Array(Transfer) });

export const Backfill = Type.Object({
  done: Type.Boolean({ description: 'History is complete down to the contract\'s first transaction' }),
  oldest_lt: Type.Union([Lt, Type.Null()]),
});

export const Balance = Type.Object({
  address: Account,
  jetton: Type.Optional(Account),
  jetton_wallet: Type.Optional(Account),
  balance: Type.String(),
  mc_seqno: Type.Integer({ description: 'Masterchain block the balance is taken at' }),
  last_lt: Lt,
  last_processed_lt: Type.Union([Lt, Type.Null()]),
  backfill: Backfill,
});

export const Tracked = Type.Object({
  address: Account,
  jetton: Type.Optional(Account),
  jetton_wallet: Type.Optional(Account),
  owner_tracked: Type.Optional(Type.Boolean({ description: 'The owner\'s TON was tracked by this call too' })),
  backfill: Backfill,
});

export const AuditQuery = Type.Object({
  since: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Start at the checkpoint an earlier audit left at this masterchain seqno (its to.mc_seqno); default: the contract\'s creation' }),
  ),
});

export const Audit = Type.Object({
  address: Account,
  jetton: Type.Optional(Account),
  jetton_wallet: Type.Optional(Account),
  from: Type.Object({
    point: Type.Union([Type.Literal('creation'), Type.Literal('checkpoint')]),
    mc_seqno: Type.Union([Type.Integer(), Type.Null()]),
    last_lt: Lt,
    balance: Type.String(),
  }),
  to: Type.Object({ point: Type.Literal('head'), mc_seqno: Type.Integer(), last_lt: Lt, balance: Type.String() }),
  transactions: Type.Integer(),
  transfers_in: Type.String(),
  transfers_out: Type.String(),
  fees: Type.String(),
  expected_change: Type.String(),
  actual_change: Type.String(),
  difference: Type.String({ description: 'actual − expected; "0" when reconciled' }),
  missing_transactions: Type.Array(Type.Object({ lt: Lt, hash: Type.String() })),
  reconciled: Type.Boolean(),
});

export const Resolved = Type.Object({
  domain: Type.String(),
  address: Account,
  resolvers: Type.Array(Account, { description: 'Resolvers asked, root first' }),
});

export const Status = Type.Object({
  rest_online: Type.Boolean(),
  indexing_latency: Type.Union([Type.Number(), Type.Null()], { description: 'Seconds between the last applied block\'s generation and now' }),
  last_known_masterchain_seqno: Type.Union([Type.Integer(), Type.Null()]),
  last_processed_masterchain_seqno: Type.Union([Type.Integer(), Type.Null()]),
  nodes: Type.Array(
    Type.Object({
      network: Type.String(),
      online: Type.Boolean(),
      masterchain_seqno: Type.Union([Type.Integer(), Type.Null()]),
      error: Type.Optional(Type.String()),
    }),
  ),
  backfill: Type.Object({
    entries: Type.Integer({ description: 'Tracked entries' }),
    done: Type.Integer({ description: 'Entries whose history reaches the contract\'s creation' }),
    pending: Type.Integer({ description: 'Entries with a walk in progress or queued' }),
    failing: Type.Integer({ description: 'Entries whose last step failed (retried)' }),
  }),
});
