// Assembles the one flow: chain source → follower → event log → components, behind one HTTP
// server. Start order: store, admin key, chain, event log, follower, HTTP, components; stop is
// the reverse, and finishes in-flight work before closing connections.
import path from 'node:path';
import { sql } from 'kysely';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import { ApiKeys } from '../auth/keys.js';
import { ensureAdminKey, type AdminKeyResult } from '../auth/admin-key.js';
import { StoreEventLog } from '../bus/store-log.js';
import type { ChainSource } from '../chain/source.js';
import type { Config } from '../config.js';
import { storeOptions } from '../config.js';
import { buildApp, type App } from '../http/app.js';
import { Follower } from '../pipeline/follower.js';
import { FollowerMetrics } from '../pipeline/metrics.js';
import { openStore, type Store } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { registerStoreMetrics } from '../store/metrics.js';
import { checkChainAvailable, createChainSource } from './chain.js';
import type { Component, ComponentFactory, ServiceContext } from './component.js';
import { componentFactories } from './components.js';

/** The follower may lag this many blocks before /readyz says not ready. */
const READY_LAG_BLOCKS = 30;

export interface StartServiceOptions {
  logger?: Logger;
  /** Wall clock in ms for components (tests move time with it). */
  now?: () => number;
  /** Replaces the registered component list (tests of one component). */
  components?: Array<{ name: string; load: () => Promise<ComponentFactory> }>;
}

export interface RunningService {
  config: Config;
  /** `http://<host>:<port>` as reachable from this machine. */
  url: string;
  port: number;
  store: Store;
  source: ChainSource;
  events: StoreEventLog;
  follower: Follower;
  app: App;
  components: Component[];
  adminKey: AdminKeyResult;
  stop(): Promise<void>;
}

export async function startService(config: Config, options: StartServiceOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const now = options.now ?? Date.now;
  const cleanup: Array<() => Promise<unknown>> = [];
  checkChainAvailable(config);
  try {
    const store = await openStore(storeOptions(config));
    cleanup.push(() => store.close());
    const applied = await migrate(store);
    if (applied.length) logger.info({ migrations: applied, store: store.description }, 'store migrated');
    const adminKey = await ensureAdminKey(store, config);

    const source = await createChainSource(config, logger);
    await source.start();
    cleanup.push(() => source.stop());

    const metrics = new Registry();
    registerStoreMetrics(metrics, store);
    const events = new StoreEventLog(store, { retentionMs: config.eventRetentionSeconds * 1000, now });
    await events.open();
    const follower = new Follower({
      source,
      store,
      log: events,
      logger: logger.child({ component: 'follower' }),
      metrics: new FollowerMetrics(metrics),
      // The devnet's whole history fits in the log; on real networks start at the head.
      startAt: source.network === 'devnet' ? 'oldest' : 'head',
      now,
    });
    await follower.start();
    cleanup.push(() => follower.stop());

    const ctx: ServiceContext = { config, store, source, events, logger, metrics, now };
    const components: Component[] = [];
    for (const entry of options.components ?? componentFactories) {
      const factory = await entry.load();
      components.push(await factory({ ...ctx, logger: logger.child({ component: entry.name }) }));
    }

    const keys = new ApiKeys(store);
    const app = await buildApp({
      config,
      metrics,
      logger,
      keys,
      components,
      health: {
        store: async () => {
          await sql`select 1`.execute(store.db);
          return { ok: true, dialect: store.dialect };
        },
        follower: async () => {
          const s = follower.status();
          return { ok: s.running && (s.lagBlocks ?? 0) <= READY_LAG_BLOCKS, ...s };
        },
      },
    });
    // Components stop before the server closes, so their long-lived streams end and their
    // in-flight work finishes while the store is still open.
    let componentsStopped = false;
    const stopComponents = async () => {
      if (componentsStopped) return;
      componentsStopped = true;
      for (const c of [...components].reverse()) {
        await c.stop?.().catch((err) => logger.error({ err, component: c.name }, 'component stop failed'));
      }
    };
    app.addHook('preClose', stopComponents);
    await app.listen({ port: config.port, host: config.host });
    cleanup.push(() => app.close());
    for (const c of components) await c.start?.();

    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    logger.info({ url, chain: source.network, store: store.description, dataDir: path.resolve(config.dataDir) }, 'tonwatch listening');

    let stopping: Promise<void> | null = null;
    const stop = () =>
      (stopping ??= (async () => {
        logger.info('tonwatch stopping');
        await stopComponents();
        for (const step of cleanup.splice(0).reverse()) {
          await step().catch((err) => logger.error({ err }, 'shutdown step failed'));
        }
        logger.info('tonwatch stopped');
      })());
    return { config, url, port, store, source, events, follower, app, components, adminKey, stop };
  } catch (err) {
    for (const step of cleanup.reverse()) await step().catch(() => {});
    throw err;
  }
}
