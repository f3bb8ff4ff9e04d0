// Migrations are owned by the layers and components whose tables they create: each exports a list
// named `<owner>_<nnn>_<what>` and hands it up (the service's own, then each component's through
// its registration in src/components.ts). They run at start, in name order, and later additions
// may sort before applied ones.
import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
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
  const migrator = new Migrator({ db: store.db, provider, allowUnorderedMigrations: true, migrationTableSchema });
  let { error, results } = await migrator.migrateToLatest();
  // Kysely's introspection reads every schema's tables: another schema dropped meanwhile fails it with
  // invalid_schema_name (3F000) or undefined_table (42P01) naming that schema's table. Nothing was
  // migrated then, so reading again is safe.
  const droppedElsewhere = (err: unknown) => {
    const e = err as { code?: string; message?: string } | undefined;
    return (e?.code === '3F000' || e?.code === '42P01') && !(migrationTableSchema && e.message?.includes(`"${migrationTableSchema}.`));
  };
  for (let retry = 0; retry < 5 && droppedElsewhere(error); retry++) {
    ({ error, results } = await migrator.migrateToLatest());
  }
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
