// Tables of the API keys (src/auth/keys.ts).
import type { Kysely } from 'kysely';
import type { NamedMigration } from '../store/migrate.js';

export const authMigrations: NamedMigration[] = [
  {
    name: 'auth_001_api_keys',
    async up(db: Kysely<any>) {
      // Only the sha256 of a key is stored; `key_hint` (its first characters) lets people tell keys apart.
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('owner_ref', 'text')
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('key_hint', 'text', (c) => c.notNull())
        .addColumn('origin', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .addColumn('revoked_at', 'bigint')
        .execute();
      await db.schema.createIndex('api_keys_owner_ref').on('api_keys').column('owner_ref').execute();
    },
  },
];
