// Tables of the event log and of every durable cursor.
import type { Kysely } from 'kysely';
import type { NamedMigration } from '../store/migrate.js';
import { blobType } from '../store/types.js';

export const busMigrations: NamedMigration[] = [
  {
    name: 'bus_001_event_log',
    async up(db: Kysely<any>) {
      // One row per appended batch (a masterchain block's events, or one mempool event).
      await db.schema
        .createTable('event_batches')
        .addColumn('first_position', 'bigint', (c) => c.primaryKey())
        .addColumn('last_position', 'bigint', (c) => c.notNull())
        .addColumn('mc_seqno', 'bigint', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('event_count', 'bigint', (c) => c.notNull())
        .addColumn('payload', blobType(db), (c) => c.notNull())
        .addColumn('appended_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('event_batches_last_position').on('event_batches').column('last_position').execute();
      await db.schema.createIndex('event_batches_appended_at').on('event_batches').column('appended_at').execute();
      // Durable cursors: the follower's and every consumer's, by name.
      await db.schema
        .createTable('cursors')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('position', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
  {
    name: 'bus_002_leadership',
    async up(db: Kysely<any>) {
      // The term of each singleton role's leader (the follower's): taken up by one on each takeover
      // and checked by every append in its transaction, so a deposed leader's writes fail (leadership.ts).
      await db.schema
        .createTable('leadership')
        .addColumn('role', 'text', (c) => c.primaryKey())
        .addColumn('term', 'bigint', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('taken_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  },
];
