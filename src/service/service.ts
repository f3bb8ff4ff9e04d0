// Assembles the one flow: chain source → follower → event log → components, behind one HTTP
// server. Start order: store, the claim on it (one process, or cluster members), chain (checked
// against the store's), migrations (under a lock; only then does the chain's trust memory write),
// admin key, event log, HTTP, then the work of each role this process holds (TONWATCH_ROLES; this is
// the one place that decides it): worker, then the follower's leadership, which runs the follower
// and the singletons while it leads. Stop is the reverse, and finishes in-flight work before closing
// connections.
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import { API_KEYS_TOPIC, ApiKeys } from '../auth/keys.js';
import { ensureAdminKey, revokedAdminKeyLine, type AdminKeyResult } from '../auth/admin-key.js';
import { storeChangeFeed } from '../bus/changes.js';
import { StoreEventLog } from '../bus/store-log.js';
import { followStore } from '../bus/store-follow.js';
import { DomainBook } from '../chain/domains.js';
import type { NetworkProfile } from '../chain/profile.js';
import type { ChainSource } from '../chain/source.js';
import type { Config, Role } from '../config.js';
import { storeOptions } from '../config.js';
import { systemClock } from '../delivery/clock.js';
import { DeliveryEngine, deliveryOptionsFromConfig, type DeliveryEngineOptions } from '../delivery/engine.js';
import { buildApp, httpServerOptions, type App } from '../http/app.js';
import { checkChainIdentity, recordChainIdentity } from '../pipeline/chain-identity.js';
import { Follower } from '../pipeline/follower.js';
import { FinalityFeed } from '../pipeline/finality/feed.js';
import { FinalityMetrics } from '../pipeline/finality/metrics.js';
import { FinalityRelay } from '../pipeline/finality/relay.js';
import { FinalityTracker } from '../pipeline/finality/tracker.js';
import { StoreTrustMemory } from '../pipeline/trust-memory.js';
import { FollowerMetrics } from '../pipeline/metrics.js';
import { openStore, type Store } from '../store/db.js';
import { withAdvisoryLock } from '../store/locks.js';
import { migrate } from '../store/migrate.js';
import { registerStoreMetrics } from '../store/metrics.js';
import { claimStore } from '../store/owner.js';
import { checkChainSettings, createChainSource } from './chain.js';
import type { ClusterView, Component, ComponentEntry, ServiceContext } from './component.js';
import { Leadership, type LeadershipStatus } from './leadership.js';
import { serviceMigrations } from './migrations.js';
import { listenWhileStarting } from './starting.js';

/** The follower may lag this many blocks before /readyz says not ready. */
const READY_LAG_BLOCKS = 30;

/** How long a new leader waits for the follower to reach the chain's head before starting the singletons anyway. */
const CATCH_UP_WAIT_MS = 5000;

export interface StartServiceOptions {
  logger?: Logger;
  /** Wall clock in ms for components (tests move time with it). */
  now?: () => number;
  /** The components, in start order: src/components.ts, or a few of them (tests of one component). */
  components: readonly ComponentEntry[];
  /** The delivery engine's clock and host resolver (tests of retries and address checks). */
  delivery?: Pick<DeliveryEngineOptions, 'clock' | 'resolve'>;
  /** Told as soon as the admin key is stored: the rest of a start may wait long for the chain (liteservers down). */
  onAdminKey?: (adminKey: AdminKeyResult) => void;
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
  /** The follower while this process leads the follower role; null otherwise. */
  readonly follower: Follower | null;
  /** The finality levels of traces in flight (fed while this process leads); null when TONWATCH_PROVISIONAL is off. */
  readonly finality: FinalityTracker | null;
  /** This process's roles, and whether it leads the follower role. */
  readonly roles: readonly Role[];
  leadership(): LeadershipStatus;
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
  const has = (role: Role) => config.roles.includes(role);
  try {
    const store = await openStore(storeOptions(config));
    cleanup.push(() => store.close());
    // Before anything is written: a store another process runs (SQLite, or not as a cluster) is refused.
    const claim = await claimStore(store, { cluster: config.cluster, now, onWarning: (message) => logger.warn(message) });
    cleanup.push(() => claim.release());
    // The source starts before migrations (its identity is checked first): the trust level's memory holds what
    // it saves until the store is migrated and the memory opened below.
    const trustMemory = new StoreTrustMemory(store, { pending: true });
    const chain = await createChainSource(config, logger, { trustMemory });
    const source = chain.source;
    await source.start();
    cleanup.push(() => source.stop());
    // Before anything is written: a store that holds another chain's history is refused.
    await checkChainIdentity(store, source.identity());

    // Processes starting together migrate one at a time: the first does the work, the others find it done.
    const { applied, adminKey } = await withAdvisoryLock(store.connect?.bind(store), 'migrate', async () => {
      const applied = await migrate(store, [...serviceMigrations, ...options.components.map((c) => c.migrations ?? [])]);
      await recordChainIdentity(store, source.identity(), now());
      return { applied, adminKey: await ensureAdminKey(store, config) };
    });
    if (applied.length) logger.info({ migrations: applied, store: store.description }, 'store migrated');
    for (const k of adminKey.revoked) logger.warn({ keyId: k.id }, revokedAdminKeyLine(k));
    options.onAdminKey?.(adminKey);
    await trustMemory.open();
    // The profile may wait for a believed head (a first secure start walks every key block since the init
    // block): meanwhile the port answers /healthz and /readyz with the chain's progress.
    // The port stays open from here to the stop: the API is built on the same server and takes it over.
    const servicePort = await listenWhileStarting({ host: config.host, port: config.port, http: httpServerOptions(config), chain: () => chain.health?.() });
    cleanup.push(() => servicePort.close());
    const profile = await chain.profile();

    const metrics = new Registry();
    registerStoreMetrics(metrics, store);
    chain.registerMetrics?.(metrics);
    const events = new StoreEventLog(store, { retentionMs: config.eventRetentionSeconds * 1000, now });
    await events.open();
    // On PostgreSQL every process hears the others' announcements (a key revoked by a member or the `keys` command)
    const changes = await storeChangeFeed(store);
    if (changes.channel) {
      // every member reads what the leader appends (the leader too, once it has stepped down); a process alone appends itself
      const follow = await followStore(config.cluster ? events : null, store, { logger: logger.child({ component: 'event-log' }), changes });
      cleanup.push(() => follow.stop());
    }
    const followerMetrics = new FollowerMetrics(metrics);
    let follower: Follower | null = null;
    // Provisional levels live in the leader's memory, beside the follower (docs/FINALITY.md).
    const finality = config.provisional
      ? new FinalityTracker({
          maxAgeMs: config.provisionalMaxAgeSeconds * 1000,
          now,
          metrics: new FinalityMetrics(metrics),
          onObserverError: (err) => logger.warn({ err, component: 'finality' }, 'a finality observer threw'),
        })
      : null;
    let finalityFeed: FinalityFeed | null = null;

    // One delivery engine for every producer of webhooks (webhooks, invoices).
    const delivery = new DeliveryEngine({
      store,
      ...deliveryOptionsFromConfig(config),
      clock: { now, setTimeout: systemClock.setTimeout },
      logger: logger.child({ component: 'webhook-delivery' }),
      metrics,
      ...options.delivery,
    });
    const components: Component[] = [];
    const leadership = new Leadership({
      store,
      log: events,
      cluster: config.cluster,
      holder: `pid ${process.pid} on ${os.hostname()}`,
      logger: logger.child({ component: 'leadership' }),
      now,
      lead: async () => {
        follower = new Follower({
          source,
          store,
          log: events,
          logger: logger.child({ component: 'follower' }),
          metrics: followerMetrics,
          // TONWATCH_START_SEQNO counts only on a store that has followed nothing yet.
          startAt: config.startSeqno ?? profile.startAt,
          now,
          ...(finality ? { onFinalized: (block) => finality.finalizedBlock(block) } : {}),
        });
        if (finality) {
          finalityFeed = new FinalityFeed({
            source,
            tracker: finality,
            onError: (err, what) => logger.warn({ err, component: 'finality' }, `a ${what} could not be tracked`),
          });
          finalityFeed.start();
        }
        // no head yet (every liteserver down at a first start): the follower places its cursor later
        const head = await source.getMasterchainHead().then((h) => h.seqno, () => null);
        await follower.start();
        // consumers new to the log start at its head: let the follower reach the chain's head first (the
        // devnet's history, an empty log's first block), so they start after it rather than inside it
        if (head !== null) await follower.waitForSeqno(head, CATCH_UP_WAIT_MS).catch(() => {});
        for (const c of components) await c.startLeader?.();
      },
      depose: async () => {
        for (const c of [...components].reverse()) {
          await c.stopLeader?.().catch((err) => logger.error({ err, component: c.name }, 'component stop failed'));
        }
        finalityFeed?.stop();
        finalityFeed = null;
        await follower?.stop();
        follower = null;
      },
    });
    const cluster: ClusterView = { roles: config.roles, leads: () => leadership.status().leader };
    if (finality && config.cluster && changes.channel) {
      // every member mirrors the leader's provisional events; the leader relays them (docs/FINALITY.md)
      const relay = new FinalityRelay({
        db: store.db,
        tracker: finality,
        changes,
        log: events,
        term: () => {
          const s = leadership.status();
          return s.leader ? s.term : null;
        },
        now,
        logger: logger.child({ component: 'finality' }),
      });
      await relay.start();
      cleanup.push(() => relay.stop());
    }
    const domains = new DomainBook({ source, root: profile.dnsRoot, names: profile.dnsNames });
    const ctx: ServiceContext = { config, store, source, profile, events, delivery, logger, metrics, now, cluster, changes, finality, domains };
    for (const entry of options.components) {
      const factory = await entry.load();
      components.push(await factory({ ...ctx, logger: logger.child({ component: entry.name }) }));
    }

    // a revocation here reaches the other processes on this store before its answer; theirs reach this one
    const keys = new ApiKeys(store, { logger, onRevoke: (keyId) => changes.announce(API_KEYS_TOPIC, keyId) });
    changes.on(API_KEYS_TOPIC, () => keys.forgetAll());
    // the key an earlier TONWATCH_ADMIN_KEY held, revoked at this start, is dropped by the members running already
    for (const k of adminKey.revoked) await changes.announce(API_KEYS_TOPIC, k.id);
    const app = await buildApp({
      config,
      metrics,
      logger,
      keys,
      // without the api role the server answers health and metrics only
      components: has('api') ? components : [],
      serverFactory: servicePort.serverFactory,
      health: {
        // The network and the source's own facts (liteservers: servers, trust level, why it waits).
        chain: () => ({ ok: true, network: source.network, chain_id: source.identity().id, ...chain.health?.() }),
        // Which levels this process tracks: finalized only when off; no confirmed when the source shows no non-final blocks.
        finality: () => {
          if (!finality) return { ok: true, levels: ['finalized'], provisional: 'off (TONWATCH_PROVISIONAL=false)' };
          const nonFinal = source.onNonFinalBlock === undefined ? false : (source.nonFinalSupported?.() ?? true);
          return {
            ok: true,
            levels: nonFinal === false ? ['pending', 'finalized'] : ['pending', 'confirmed', 'finalized'],
            traces_in_flight: finality.inFlight({ count: false }).length,
            max_age_seconds: config.provisionalMaxAgeSeconds,
            ...(nonFinal === false ? { confirmed: `the ${source.network} chain source shows no non-final blocks: confirmed is skipped` } : {}),
            ...(nonFinal === null ? { confirmed: 'not known yet: no liteserver has answered liteServer.nonfinal.getPendingShardBlocks' } : {}),
          };
        },
        // Webhook delivery lag: a stalled worker is not ready (docs/WEBHOOKS.md, "Delivery lag").
        delivery: () => delivery.readiness(),
        store: async () => {
          await sql`select 1`.execute(store.db);
          return { ok: true, dialect: store.dialect };
        },
        follower: async () => {
          const lead = leadership.status();
          if (!follower) {
            // a standby (or a process without the role) is ready: the leader writes, this one reads
            return { ok: true, running: false, roles: config.roles, leader: false, head_position: events.headPosition() };
          }
          const s = follower.status();
          // A cursor past the head means the log holds blocks this chain has not made: never healthy.
          const ahead = s.lastSeqno !== null && s.headSeqno !== null && s.lastSeqno > s.headSeqno;
          const ok = s.running && !ahead && s.error === null && (s.lagBlocks ?? 0) <= READY_LAG_BLOCKS;
          const facts = config.cluster ? { ...s, leader: true, term: lead.term } : s;
          return ahead ? { ok, ...facts, problem: `the follower's cursor (block ${s.lastSeqno}) is ahead of the chain's head (block ${s.headSeqno})` } : { ok, ...facts };
        },
      },
    });
    // Components stop before the server closes, so their long-lived streams end and their
    // in-flight work finishes while the store is still open.
    let componentsStopped = false;
    const stopComponents = async () => {
      if (componentsStopped) return;
      componentsStopped = true;
      // the leader's work first: its last block commits while everything else still runs
      await leadership.stop().catch((err) => logger.error({ err }, 'leadership stop failed'));
      for (const c of [...components].reverse()) {
        if (has('worker')) await c.stopWorker?.().catch((err) => logger.error({ err, component: c.name }, 'component stop failed'));
        await c.stop?.().catch((err) => logger.error({ err, component: c.name }, 'component stop failed'));
      }
      // After the producers: their last deliveries go out while the store is open.
      await delivery.stop().catch((err) => logger.error({ err }, 'delivery engine stop failed'));
    };
    app.addHook('preClose', stopComponents);
    await app.ready();
    servicePort.serveApp();
    cleanup.push(() => app.close());
    if (has('worker')) await delivery.start();
    for (const c of components) {
      await c.start?.();
      if (has('worker')) await c.startWorker?.();
    }
    if (has('follower')) await leadership.start();

    const port = servicePort.port;
    const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    logger.info({ url, chain: source.network, store: store.description, dataDir: path.resolve(config.dataDir), roles: config.roles, cluster: config.cluster }, 'tonwatch listening');

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
    return {
      config,
      url,
      port,
      store,
      source,
      profile,
      events,
      get follower() {
        return follower;
      },
      finality,
      roles: config.roles,
      leadership: () => leadership.status(),
      app,
      components,
      adminKey,
      stop,
    };
  } catch (err) {
    for (const step of cleanup.reverse()) await step().catch(() => {});
    throw err;
  }
}

