// Tables of the deposit indexer. Everything is keyed by a tracked entry `(asset, owner)`: asset is
// `ton` for the owner's own TON, or a jetton master for the owner's jetton wallet. Rejected jetton
// claims (transfer_notifications the owner received) are kept under asset `*`.
import type { Kysely } from 'kysely';
import type { NamedMigration } from '../store/migrate.js';

export const indexerMigrations: NamedMigration[] = [
  {
    name: 'indexer_001_tracking',
    async up(db: Kysely<any>) {
      // One row per tracked entry, with its backfill walk: the next transaction to fetch walking
      // back through prev links (null when no walk is pending), resumable after a restart.
      await db.schema
        .createTable('indexer_tracked')
        .addColumn('asset', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('contract', 'text', (c) => c.notNull())
        .addColumn('walk_lt', 'bigint')
        .addColumn('walk_hash', 'text')
        .addColumn('backfill_done', 'bigint', (c) => c.notNull())
        .addColumn('resync', 'bigint', (c) => c.notNull())
        .addColumn('pending', 'bigint', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('indexer_tracked_pk', ['asset', 'owner'])
        .execute();
      await db.schema.createIndex('indexer_tracked_contract').on('indexer_tracked').column('contract').execute();
      await db.schema.createIndex('indexer_tracked_owner').on('indexer_tracked').column('owner').execute();
      await db.schema.createIndex('indexer_tracked_pending').on('indexer_tracked').columns(['pending', 'updated_at']).execute();

      // Every transaction of a tracked entry's contract that was processed, with the fee it cost:
      // the audit's ledger and the proof that the prev-link chain is complete.
      await db.schema
        .createTable('indexer_transactions')
        .addColumn('asset', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('lt', 'bigint', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('prev_lt', 'bigint', (c) => c.notNull())
        .addColumn('prev_hash', 'text', (c) => c.notNull())
        .addColumn('utime', 'bigint', (c) => c.notNull())
        .addColumn('mc_seqno', 'bigint', (c) => c.notNull())
        .addColumn('fee', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('indexer_transactions_pk', ['asset', 'owner', 'lt'])
        .execute();

      // One row per value movement. Amounts are decimal text: jetton amounts reach 2^120.
      await db.schema
        .createTable('indexer_transfers')
        .addColumn('asset', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('lt', 'bigint', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('idx', 'bigint', (c) => c.notNull())
        .addColumn('contract', 'text', (c) => c.notNull())
        .addColumn('direction', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('sender', 'text')
        .addColumn('recipients', 'text', (c) => c.notNull())
        .addColumn('jetton', 'text')
        .addColumn('amount', 'text', (c) => c.notNull())
        .addColumn('comment', 'text')
        .addColumn('fee', 'text', (c) => c.notNull())
        .addColumn('utime', 'bigint', (c) => c.notNull())
        .addColumn('mc_seqno', 'bigint', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('source', 'text')
        .addPrimaryKeyConstraint('indexer_transfers_pk', ['asset', 'owner', 'lt', 'hash', 'idx'])
        .execute();
      await db.schema.createIndex('indexer_transfers_hash').on('indexer_transfers').columns(['asset', 'owner', 'hash']).execute();
    },
  },
  {
    name: 'indexer_002_audit_checkpoints',
    async up(db: Kysely<any>) {
      // Balances on chain seen by audits: later audits reconcile from one of them to the head.
      await db.schema
        .createTable('indexer_checkpoints')
        .addColumn('asset', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('mc_seqno', 'bigint', (c) => c.notNull())
        .addColumn('last_lt', 'bigint', (c) => c.notNull())
        .addColumn('last_hash', 'text', (c) => c.notNull())
        .addColumn('balance', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('indexer_checkpoints_pk', ['asset', 'owner', 'mc_seqno'])
        .execute();
    },
  },
  {
    name: 'indexer_003_backfill_claims',
    async up(db: Kysely<any>) {
      // Backfill walks are jobs claimed by one worker at a time (many processes on one PostgreSQL):
      // the claim holds until `claim_until`, renewed while a page is fetched, and every page commits
      // only while the claim is still its worker's.
      await db.schema.alterTable('indexer_tracked').addColumn('claimed_by', 'text').execute();
      await db.schema.alterTable('indexer_tracked').addColumn('claim_until', 'bigint').execute();
    },
  },
];
