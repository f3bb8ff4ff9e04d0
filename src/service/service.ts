// Assembles the one flow: chain source → follower → event log → components, behind one HTTP
// server. Start order: store, chain (checked against the store's), migrations, admin key, event
// log, follower, HTTP, components; stop is
// the reverse, and finishes in-flight work before closing connections.
import path from 'node:path';
import { sql } from 'kysely';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import { ApiKeys } from '../auth/keys.js';
import { ensureAdminKey, type AdminKeyResult } from '../auth/admin-key.js';
import { StoreEventLog } from '../bus/store-log.js';
import type { NetworkProfile } from '../chain/profile.js';
import type { ChainSource } from '../chain/source.js';
import type { Config } from '../config.js';
import { storeOptions } from '../config.js';
import { systemClock } from '../delivery/clock.js';
import { DeliveryEngine, deliveryOptionsFromConfig, type DeliveryEngineOptions } from '../delivery/engine.js';
import { buildApp, type App } from '../http/app.js';
import { checkChainIdentity, recordChainIdentity } from '../pipeline/chain-identity.js';
import { Follower } from '../pipeline/follower.js';
import { FollowerMetrics } from '../pipeline/metrics.js';
import { openStore, type Store } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { registerStoreMetrics } from '../store/metrics.js';
import { checkChainSettings, createChainSource } from './chain.js';
import type { Component, ComponentEntry, ServiceContext } from './component.js';
import { serviceMigrations } from './migrations.js';

/** The follower may lag this many blocks before /readyz says not ready. */
const READY_LAG_BLOCKS = 30;

export interface StartServiceOptions {
  logger?: Logger;
  /** Wall clock in ms for components (tests move time with it). */
  now?: () => number;
  /** The components, in start order: src/components.ts, or a few of them (tests of one component). */
  components: readonly ComponentEntry[];
  /** The delivery engine's clock and host resolver (tests of retries and address checks). */
  delivery?: Pick<DeliveryEngineOptions, 'clock' | 'resolve'>;
}

export interface RunningService {
  config: Config;
  /** `http://<host>:<port>` as reachable from this machine. */
  url: string;
  port: number;
  store: Store;
  source: ChainSource;
  profile: NetworkProfile;
  events: StoreEventLog;
  follower: Follower;
  app: App;
  components: Component[];
  adminKey: AdminKeyResult;
  stop(): Promise<void>;
}

export async function startService(config: Config, options: StartServiceOptions): Promise<RunningService> {
  const logger = options.logger ?? pino({ level: config.logLevel });
  const now = options.now ?? Date.now;
  const cleanup: Array<() => Promise<unknown>> = [];
  checkChainSettings(config);
  try {
    const store = await openStore(storeOptions(config));
    cleanup.push(() => store.close());
    const chain = await createChainSource(config, logger);
    const source = chain.source;
    await source.start();
    cleanup.push(() => source.stop());
    // Before anything is written: a store that holds another chain's history is refused.
    await checkChainIdentity(store, source.identity());

    const applied = await migrate(store, [...serviceMigrations, ...options.components.map((c) => c.migrations ?? [])]);
    if (applied.length) logger.info({ migrations: applied, store: store.description }, 'store migrated');
    await recordChainIdentity(store, source.identity(), now());
    const adminKey = await ensureAdminKey(store, config);
    const profile = await chain.profile();

    const metrics = new Registry();
    registerStoreMetrics(metrics, store);
    chain.registerMetrics?.(metrics);
    const events = new StoreEventLog(store, { retentionMs: config.eventRetentionSeconds * 1000, now });
    await events.open();
    const follower = new Follower({
      source,
      store,
      log: events,
      logger: logger.child({ component: 'follower' }),
      metrics: new FollowerMetrics(metrics),
      // TONWATCH_START_SEQNO counts only on a store that has followed nothing yet.
      startAt: config.startSeqno ?? profile.startAt,
      now,
    });
    await follower.start();
    cleanup.push(() => follower.stop());

    // One delivery engine for every producer of webhooks (webhooks, invoices).
    const delivery = new DeliveryEngine({
      store,
      ...deliveryOptionsFromConfig(config),
      clock: { now, setTimeout: systemClock.setTimeout },
      logger: logger.child({ component: 'webhook-delivery' }),
      metrics,
      ...options.delivery,
    });
    const ctx: ServiceContext = { config, store, source, profile, events, delivery, logger, metrics, now };
    const components: Component[] = [];
    for (const entry of options.components) {
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
        // The network and the source's own facts (liteservers: servers, trust level, why it waits).
        chain: () => ({ ok: true, network: source.network, chain_id: source.identity().id, ...chain.health?.() }),
        store: async () => {
          await sql`select 1`.execute(store.db);
          return { ok: true, dialect: store.dialect };
        },
        follower: async () => {
          const s = follower.status();
          // A cursor past the head means the log holds blocks this chain has not made: never healthy.
          const ahead = s.lastSeqno !== null && s.headSeqno !== null && s.lastSeqno > s.headSeqno;
          const ok = s.running && !ahead && s.error === null && (s.lagBlocks ?? 0) <= READY_LAG_BLOCKS;
          return ahead ? { ok, ...s, problem: `the follower's cursor (block ${s.lastSeqno}) is ahead of the chain's head (block ${s.headSeqno})` } : { ok, ...s };
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
      // After the producers: their last deliveries go out while the store is open.
      await delivery.stop().catch((err) => logger.error({ err }, 'delivery engine stop failed'));
    };
    app.addHook('preClose', stopComponents);
    await app.listen({ port: config.port, host: config.host });
    cleanup.push(() => app.close());
    await delivery.start();
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
    return { config, url, port, store, source, profile, events, follower, app, components, adminKey, stop };
  } catch (err) {
    for (const step of cleanup.reverse()) await step().catch(() => {});
    throw err;
  }
}
