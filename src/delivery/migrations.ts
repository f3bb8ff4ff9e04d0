// Tables of the delivery engine: endpoints, the durable outbox, the log of failed attempts, and
// usage counters per owner and month.
import { sql, type Kysely } from 'kysely';
import type { ColumnDefinitionBuilder, CreateTableBuilder } from 'kysely';
import type { NamedMigration } from '../store/migrate.js';
import { dialectOf } from '../store/types.js';

/** An auto-increment bigint id on both dialects (rowid alias in SQLite, bigserial in PostgreSQL). */
function withId<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
  return dialectOf(db) === 'postgres'
    ? table.addColumn('id', 'bigserial', (c: ColumnDefinitionBuilder) => c.primaryKey())
    : table.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement());
}

export const deliveryMigrations: NamedMigration[] = [
  {
    name: 'webhooks_001_delivery',
    async up(db: Kysely<any>) {
      await withId(db, db.schema.createTable('delivery_endpoints'))
        .addColumn('producer', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_until', 'bigint')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('status_reason', 'text')
        .addColumn('status_updated_at', 'bigint', (c) => c.notNull())
        .addColumn('last_online_at', 'bigint', (c) => c.notNull())
        .addColumn('failed_attempts', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('delivery_endpoints_owner').on('delivery_endpoints').columns(['producer', 'owner']).execute();

      // One row per delivery. `state`: pending → delivered | failed. Rows stay after completion for
      // redelivery and are pruned after the history period.
      await withId(db, db.schema.createTable('delivery_outbox'))
        .addColumn('endpoint_id', 'bigint', (c) => c.notNull())
        .addColumn('ordering_key', 'text')
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('meta', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'bigint', (c) => c.notNull())
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('first_failed_at', 'bigint')
        .addColumn('last_attempt_at', 'bigint')
        .addColumn('last_status', 'bigint')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('completed_at', 'bigint')
        .execute();
      await db.schema.createIndex('delivery_outbox_state_id').on('delivery_outbox').columns(['state', 'id']).execute();
      await db.schema
        .createIndex('delivery_outbox_queue')
        .on('delivery_outbox')
        .columns(['endpoint_id', 'ordering_key', 'state', 'id'])
        .execute();
      await db.schema.createIndex('delivery_outbox_message').on('delivery_outbox').columns(['endpoint_id', 'message_id']).execute();
      await db.schema.createIndex('delivery_outbox_completed').on('delivery_outbox').column('completed_at').execute();

      // Failed attempts and give-ups, newest read first by the logs API.
      await withId(db, db.schema.createTable('delivery_attempt_log'))
        .addColumn('endpoint_id', 'bigint', (c) => c.notNull())
        .addColumn('delivery_id', 'bigint', (c) => c.notNull())
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('attempt', 'bigint', (c) => c.notNull())
        .addColumn('status_code', 'bigint')
        .addColumn('error', 'text')
        .addColumn('latency_ms', 'bigint', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('delivery_attempt_log_endpoint').on('delivery_attempt_log').columns(['endpoint_id', 'id']).execute();
      await db.schema.createIndex('delivery_attempt_log_at').on('delivery_attempt_log').column('at').execute();

      // Deliveries and failed attempts per owner and calendar month (UTC), for usage stats.
      await db.schema
        .createTable('delivery_usage')
        .addColumn('producer', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('period_start', 'bigint', (c) => c.notNull())
        .addColumn('delivered', 'bigint', (c) => c.notNull())
        .addColumn('failed', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('delivery_usage_pk', ['producer', 'owner', 'period_start'])
        .execute();
    },
  },
  {
    name: 'webhooks_003_partial_outbox_indexes',
    async up(db: Kysely<any>) {
      // Completing a delivery rewrote three composite index entries; partial indexes over pending
      // rows only (and over completed rows for pruning) make insert and completion cheaper.
      await db.schema.dropIndex('delivery_outbox_state_id').execute();
      await db.schema.dropIndex('delivery_outbox_queue').execute();
      await db.schema.dropIndex('delivery_outbox_completed').execute();
      await db.schema.createIndex('delivery_outbox_pending').on('delivery_outbox').column('id').where(sql.ref('state'), '=', 'pending').execute();
      await db.schema
        .createIndex('delivery_outbox_pending_queue')
        .on('delivery_outbox')
        .columns(['endpoint_id', 'ordering_key', 'id'])
        .where(sql.ref('state'), '=', 'pending')
        .execute();
      await db.schema.createIndex('delivery_outbox_completed').on('delivery_outbox').column('completed_at').where(sql.ref('completed_at'), 'is not', null).execute();
    },
  },
  {
    name: 'webhooks_004_parked_rows',
    async up(db: Kysely<any>) {
      // The per-key index over every pending row was rewritten at random places by each insert and
      // each completion (a sixth of a delivery's SQLite time) to serve a rare read: a key's rows
      // beyond the worker's per-key memory cap. The worker now flags those rows (`parked` = 1) as
      // it leaves them in the store, and only flagged rows are indexed by key.
      await db.schema.alterTable('delivery_outbox').addColumn('parked', 'integer').execute();
      await db.schema.dropIndex('delivery_outbox_pending_queue').execute();
      await db.schema
        .createIndex('delivery_outbox_parked')
        .on('delivery_outbox')
        .columns(['endpoint_id', 'ordering_key', 'id'])
        .where(sql.ref('state'), '=', 'pending')
        .where(sql.ref('parked'), '=', 1)
        .execute();
    },
  },
  {
    name: 'webhooks_005_key_leases',
    async up(db: Kysely<any>) {
      // Many workers on one PostgreSQL: a worker sends a key's deliveries only while it holds the
      // key's lease (leases.ts). Created on SQLite too (one process, never read there), so the
      // schema is the same on both.
      await db.schema
        .createTable('delivery_leases')
        .addColumn('lease_key', 'text', (c) => c.primaryKey())
        .addColumn('endpoint_id', 'bigint', (c) => c.notNull())
        .addColumn('ordering_key', 'text')
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('delivery_leases_expires').on('delivery_leases').column('expires_at').execute();
      // A worker taking over a key reads its pending rows by key; SQLite never does (see 004).
      if (dialectOf(db) === 'postgres') {
        await db.schema
          .createIndex('delivery_outbox_pending_key')
          .on('delivery_outbox')
          .columns(['endpoint_id', 'ordering_key', 'id'])
          .where(sql.ref('state'), '=', 'pending')
          .execute();
      }
    },
  },
];
