// How a component (streaming, webhooks, invoices, indexer, devnet control) plugs into the service.
// Components talk to each other only through the event log and the store.
import type { FinalityTracker } from '../pipeline/finality/tracker.js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DomainBook } from '../chain/domains.js';
import type { NetworkProfile } from '../chain/profile.js';
import type { ChainSource } from '../chain/source.js';
import type { ChangeFeed } from '../bus/changes.js';
import type { EventLog } from '../bus/types.js';
import type { Config, Role } from '../config.js';
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
  /** This process's roles and leadership (unset in tests that build one component: it leads). */
  cluster?: ClusterView;
  /** Announces changes to what components keep in memory to the other processes of a cluster. */
  changes?: ChangeFeed;
  /**
   * The finality levels of traces in flight (pending, confirmed, then finalized or invalidated), observed
   * in process; null when TONWATCH_PROVISIONAL is off. Fed only while this process leads the follower role.
   */
  finality?: FinalityTracker | null;
  /** `.ton` names of accounts, proven by forward resolution (address books); learned from the indexer's DNS route. */
  domains?: DomainBook | null;
}

export interface ClusterView {
  readonly roles: readonly Role[];
  /** This process leads the follower role now (it runs the singletons). */
  leads(): boolean;
}

/**
 * A component: routes and readiness as the HTTP app takes them, plus its background work by role
 * (TONWATCH_ROLES; the service decides what runs where, docs/DEPLOYMENT.md). Each start is called
 * after routes are registered and the store is migrated; each stop finishes in-flight work, in
 * reverse start order.
 */
export interface Component extends AppComponent {
  /** Work of every process that runs the component (caches its routes read, the streaming hub). */
  start?(): Promise<void>;
  stop?(): Promise<void>;
  /** Lines for the start banner once started (e.g. a port it listens on). */
  banner?(): string[];
  /**
   * Singletons (durable consumers of the log, timers that write): only in the process that leads
   * the follower role, from taking the lead until losing it or stopping.
   */
  startLeader?(): Promise<void>;
  stopLeader?(): Promise<void>;
  /** Work of the worker role (indexer backfills), in every process that holds it. */
  startWorker?(): Promise<void>;
  stopWorker?(): Promise<void>;
}

export type ComponentFactory = (ctx: ServiceContext) => Component | Promise<Component>;

/** A component's registration (src/components.ts): its tables' migrations and how to build it. */
export interface ComponentEntry {
  name: string;
  /** Run with the service's own before anything starts. */
  migrations?: readonly NamedMigration[];
  load: () => Promise<ComponentFactory>;
}
