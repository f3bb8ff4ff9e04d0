// The service's own tables: the event log, the follower's state, API keys and the delivery
// engine's outbox. Components hand theirs over with their registration (src/components.ts).
import { authMigrations } from '../auth/migrations.js';
import { busMigrations } from '../bus/migrations.js';
import { deliveryMigrations } from '../delivery/migrations.js';
import { pipelineMigrations } from '../pipeline/migrations.js';
import type { NamedMigration } from '../store/migrate.js';

export const serviceMigrations: ReadonlyArray<readonly NamedMigration[]> = [busMigrations, pipelineMigrations, authMigrations, deliveryMigrations];
