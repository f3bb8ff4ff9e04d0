// Tables of the invoicing component: applications, every recipient wallet an application has had
// (payments to an old recipient still count for the invoices that named it), invoices and the
// payments matched to them. Webhook URLs are delivery endpoints (producer `invoices`, owner
// `app:<id>`) in the delivery engine's tables.
import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import type { NamedMigration } from '../store/migrate.js';
import { dialectOf } from '../store/types.js';

/** An auto-increment bigint id on both dialects. */
function withId<T extends string>(db: Kysely<any>, table: CreateTableBuilder<T, never>): CreateTableBuilder<T, 'id'> {
  return dialectOf(db) === 'postgres'
    ? table.addColumn('id', 'bigserial', (c: ColumnDefinitionBuilder) => c.primaryKey())
    : table.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement());
}

export const invoicesMigrations: NamedMigration[] = [
  {
    name: 'invoices_001_tables',
    async up(db: Kysely<any>) {
      await withId(db, db.schema.createTable('invoice_apps'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('token_key_id', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      // `usdt_wallet` is the recipient's USDT jetton wallet as `usdt_master` derives it.
      await db.schema
        .createTable('invoice_recipients')
        .addColumn('app_id', 'bigint', (c) => c.notNull())
        .addColumn('account', 'text', (c) => c.notNull())
        .addColumn('usdt_master', 'text')
        .addColumn('usdt_wallet', 'text')
        .addColumn('added_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('invoice_recipients_pk', ['app_id', 'account'])
        .execute();

      // Amounts in minimal units. `paid_total` counts payments made while the invoice was
      // pending; `overpayment` what was paid beyond the amount or after it stopped being payable.
      await db.schema
        .createTable('invoices')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('app_id', 'bigint', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('date_create', 'bigint', (c) => c.notNull())
        .addColumn('date_expire', 'bigint', (c) => c.notNull())
        .addColumn('date_change', 'bigint')
        .addColumn('date_paid', 'bigint')
        .addColumn('pay_to', 'text', (c) => c.notNull())
        .addColumn('payment_link', 'text', (c) => c.notNull())
        .addColumn('paid_by', 'text')
        .addColumn('paid_total', 'bigint', (c) => c.notNull())
        .addColumn('overpayment', 'bigint', (c) => c.notNull())
        .addColumn('idempotency_key', 'text')
        .addColumn('request_hash', 'text')
        .execute();
      await db.schema.createIndex('invoices_app_created').on('invoices').columns(['app_id', 'date_create']).execute();
      await db.schema.createIndex('invoices_status_expire').on('invoices').columns(['status', 'date_expire']).execute();
      // partial: most invoices have no key, and an index entry per insert is a cost on the hot path
      await db.schema
        .createIndex('invoices_app_idempotency')
        .on('invoices')
        .columns(['app_id', 'idempotency_key'])
        .unique()
        .where(sql.ref('idempotency_key'), 'is not', null)
        .execute();

      // One transaction pays at most one invoice: the hash is the key, so a replay records nothing twice.
      await db.schema
        .createTable('invoice_payments')
        .addColumn('tx_hash', 'text', (c) => c.primaryKey())
        .addColumn('invoice_id', 'text', (c) => c.notNull())
        .addColumn('app_id', 'bigint', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('amount', 'bigint', (c) => c.notNull())
        .addColumn('payer', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('lt', 'bigint', (c) => c.notNull())
        .addColumn('utime', 'bigint', (c) => c.notNull())
        .addColumn('mc_seqno', 'bigint', (c) => c.notNull())
        .addColumn('recorded_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('invoice_payments_invoice').on('invoice_payments').columns(['invoice_id', 'lt']).execute();
    },
  },
];
