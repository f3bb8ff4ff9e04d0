// The composition root: every component of the service, in start order (one line each), with the
// migrations of its tables. `serve` hands the list to startService, which runs the migrations,
// builds each component with the service context, registers its routes, starts them, and stops
// them in reverse order. Components load on demand (the devnet pulls in the TVM and Tolk).
import { indexerMigrations } from './indexer/migrations.js';
import { invoicesMigrations } from './invoices/migrations.js';
import type { ComponentEntry } from './service/component.js';
import { serviceMigrations } from './service/migrations.js';
import type { NamedMigration } from './store/migrate.js';
import { webhooksMigrations } from './webhooks/migrations.js';

export const componentFactories: ComponentEntry[] = [
  { name: 'devnet', load: async () => (await import('./service/devnet.js')).devnetComponent },
  { name: 'streaming', load: async () => (await import('./streaming/index.js')).streamingComponent },
  { name: 'webhooks', migrations: webhooksMigrations, load: async () => (await import('./webhooks/index.js')).webhooksComponent },
  { name: 'invoices', migrations: invoicesMigrations, load: async () => (await import('./invoices/index.js')).invoicesComponent },
  { name: 'indexer', migrations: indexerMigrations, load: async () => (await import('./indexer/index.js')).indexerComponent },
  { name: 'console', load: async () => (await import('./console/index.js')).consoleComponent },
];

/** Every table's migrations: the service's and every component's (stores opened outside `serve`). */
export const allMigrations: ReadonlyArray<readonly NamedMigration[]> = [...serviceMigrations, ...componentFactories.map((c) => c.migrations ?? [])];
