// How a component (streaming, webhooks, invoices, indexer, devnet control) plugs into the service.
// Components talk to each other only through the event log and the store.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { NetworkProfile } from '../chain/profile.js';
import type { ChainSource } from '../chain/source.js';
import type { EventLog } from '../bus/types.js';
import type { Config } from '../config.js';
import type { AppComponent } from '../http/app.js';
import type { DeliveryEngine } from '../delivery/engine.js';
import type { Store } from '../store/db.js';
import type { NamedMigration } from '../store/migrate.js';

export interface ServiceContext {
  /** Validated configuration (src/config.ts). */
  config: Config;
  store: Store;
  source: ChainSource;
  /** Facts about the followed network (USDT master, DNS root, where history starts). */
  profile: NetworkProfile;
  events: EventLog;
  /** The process's webhook delivery engine (webhooks, invoices); the service starts and stops it. */
  delivery: DeliveryEngine;
  logger: Logger;
  metrics: Registry;
  /** Wall clock in ms; injectable so tests can move time. */
  now(): number;
}

/** A component: routes and readiness as the HTTP app takes them, plus its background work. */
export interface Component extends AppComponent {
  /** Starts background work (consumers, workers) after routes are registered and the store is migrated. */
  start?(): Promise<void>;
  /** Finishes in-flight work and stops; called on shutdown in reverse start order. */
  stop?(): Promise<void>;
  /** Lines for the start banner once started (e.g. a port it listens on). */
  banner?(): string[];
}

export type ComponentFactory = (ctx: ServiceContext) => Component | Promise<Component>;

/** A component's registration (src/components.ts): its tables' migrations and how to build it. */
export interface ComponentEntry {
  name: string;
  /** Run with the service's own before anything starts. */
  migrations?: readonly NamedMigration[];
  load: () => Promise<ComponentFactory>;
}
