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
];
