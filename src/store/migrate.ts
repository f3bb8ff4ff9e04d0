// Migrations are owned by the layers and components whose tables they create: each exports a list
// named `<owner>_<nnn>_<what>` and hands it up (the service's own, then each component's through
// its registration in src/components.ts). They run at start, in name order, and later additions
// may sort before applied ones.
import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider, type TableMetadata } from 'kysely';
import type { Store } from './db.js';

export interface NamedMigration extends Migration {
  name: string;
}

/** Applies every migration of `sets` not yet applied; returns the names applied now. */
export async function migrate(store: Store, sets: readonly (readonly NamedMigration[])[]): Promise<string[]> {
  const all = new Map<string, Migration>();
  for (const set of sets) {
    for (const m of set) {
      if (all.has(m.name)) throw new Error(`duplicate migration name ${m.name}`);
      all.set(m.name, { up: m.up, down: m.down });
    }
  }
  const provider: MigrationProvider = { getMigrations: async () => Object.fromEntries(all) };
  // Kysely looks for its own tables in every schema unless told which: name the current one, so
  // stores in different PostgreSQL schemas (parallel tests, benchmarks) never see each other's.
  const migrationTableSchema =
    store.dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema : undefined;
  const db = migrationTableSchema ? withIntrospection(store.db, currentSchemaIntrospector(store.db, migrationTableSchema)) : store.db;
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true, migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Lists the tables of one PostgreSQL schema by name only. Kysely's own introspector reads every
 * schema's columns, and a schema another store drops meanwhile fails that read (a dropped table's
 * serial-sequence lookup: 42703, 42P01, 3F000); the migrator only needs to know whether its two
 * tables exist here.
 */
function currentSchemaIntrospector(db: Kysely<any>, schema: string): DatabaseIntrospector {
  const getTables = async (): Promise<TableMetadata[]> => {
    const { rows } = await sql<{ name: string; kind: string }>`
      select c.relname as name, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v')`.execute(db);
    return rows.map((r) => ({ name: r.name, schema, isView: r.kind === 'v', columns: [] }));
  };
  return {
    getSchemas: async () => [{ name: schema }],
    getTables,
    getMetadata: async () => ({ tables: await getTables() }),
  };
}

/** The same Kysely instance with another introspector (its methods still run on the instance itself). */
function withIntrospection(db: Kysely<any>, introspection: DatabaseIntrospector): Kysely<any> {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'introspection') return introspection;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
