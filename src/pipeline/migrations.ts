// Tables of the follower.
import type { Kysely } from 'kysely';
import type { NamedMigration } from '../store/migrate.js';
import { blobType } from '../store/types.js';

export const pipelineMigrations: NamedMigration[] = [
  {
    name: 'pipeline_001_traces_in_flight',
    async up(db: Kysely<any>) {
      // Traces still in flight across blocks, kept so a restart neither loses nor repeats one.
      await db.schema
        .createTable('traces_in_flight')
        .addColumn('root_hash', 'text', (c) => c.primaryKey())
        .addColumn('start_mc_seqno', 'bigint', (c) => c.notNull())
        .addColumn('state', blobType(db), (c) => c.notNull())
        .execute();
    },
  },
  {
    name: 'pipeline_002_chain_identity',
    async up(db: Kysely<any>) {
      // The one chain whose history this store holds (chain-identity.ts); at most one row.
      await db.schema
        .createTable('chain_identity')
        .addColumn('singleton', 'integer', (c) => c.primaryKey())
        .addColumn('network', 'text', (c) => c.notNull())
        .addColumn('chain_id', 'text', (c) => c.notNull())
        .addColumn('recorded_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  {
    name: 'pipeline_003_trusted_key_block',
    async up(db: Kysely<any>) {
      // The liteserver trust level's memory (trust-memory.ts): the newest key block it proved; at most one row.
      await db.schema
        .createTable('trusted_key_block')
        .addColumn('singleton', 'integer', (c) => c.primaryKey())
        .addColumn('workchain', 'integer', (c) => c.notNull())
        .addColumn('shard', 'text', (c) => c.notNull())
        .addColumn('seqno', 'bigint', (c) => c.notNull())
        .addColumn('root_hash', 'text', (c) => c.notNull())
        .addColumn('file_hash', 'text', (c) => c.notNull())
        .addColumn('saved_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  {
    name: 'pipeline_004_finality_events',
    async up(db: Kysely<any>) {
      // The cluster leader's provisional events (pending, confirmed, invalidated), relayed to the other
      // members (finality/relay.ts); id = term·2^32 + sequence, rows older than two bounds are deleted.
      await db.schema
        .createTable('finality_events')
        .addColumn('id', 'bigint', (c) => c.primaryKey())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('payload', blobType(db), (c) => c.notNull())
        .execute();
      await db.schema.createIndex('finality_events_at').on('finality_events').column('at').execute();
    },
  },
];
