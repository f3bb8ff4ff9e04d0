// Tables of the webhooks component: the subscriptions of each webhook (the delivery engine's
// tables are the service's, delivery/migrations.ts). A webhook is a delivery endpoint of producer `webhooks`; its id is
// the endpoint id and its owner the API key that created it.
import type { Kysely } from 'kysely';
import type { NamedMigration } from '../store/migrate.js';

export const webhooksMigrations: NamedMigration[] = [
  {
    name: 'webhooks_002_subscriptions',
    async up(db: Kysely<any>) {
      // Account-transaction subscriptions with their delivery cursor and the stuck event, if any.
      await db.schema
        .createTable('webhook_account_subs')
        .addColumn('webhook_id', 'bigint', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('last_delivered_lt', 'bigint', (c) => c.notNull())
        .addColumn('failed_at', 'bigint')
        .addColumn('failed_lt', 'bigint')
        .addColumn('failed_attempts', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('webhook_account_subs_pk', ['webhook_id', 'account_id'])
        .execute();
      await db.schema.createIndex('webhook_account_subs_account').on('webhook_account_subs').column('account_id').execute();
      await db.schema
        .createTable('webhook_opcode_subs')
        .addColumn('webhook_id', 'bigint', (c) => c.notNull())
        .addColumn('opcode', 'bigint', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('disabled_at', 'bigint')
        .addColumn('disabled_reason', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('webhook_opcode_subs_pk', ['webhook_id', 'opcode'])
        .execute();
      // Whole-chain feeds a webhook follows: `new_contracts`, `mempool`.
      await db.schema
        .createTable('webhook_feed_subs')
        .addColumn('webhook_id', 'bigint', (c) => c.notNull())
        .addColumn('feed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('webhook_feed_subs_pk', ['webhook_id', 'feed'])
        .execute();
    },
  },
];
