// Every component's migrations, registered here (one line per component).
import type { NamedMigration } from './migrate.js';
import { authMigrations } from '../auth/migrations.js';
import { busMigrations } from '../bus/migrations.js';
import { indexerMigrations } from '../indexer/migrations.js';
import { invoicesMigrations } from '../invoices/migrations.js';
import { pipelineMigrations } from '../pipeline/migrations.js';
import { webhooksMigrations } from '../webhooks/migrations.js';

export const migrationSets: NamedMigration[][] = [busMigrations, pipelineMigrations, authMigrations, webhooksMigrations, indexerMigrations, invoicesMigrations];
