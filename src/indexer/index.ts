// The deposit indexer (component B): tracked addresses and jetton deposits, backfill to contract
// creation, live tracking of finalized blocks, transfer classification, balances, audit, DNS and
// status. `indexerComponent` plugs it into the service; docs/INDEXER.md describes it.
import type { Component, ComponentFactory } from '../service/component.js';
import { CHANGES_TOPIC, Indexer } from './indexer.js';
import { IndexerMetrics } from './metrics.js';
import { IndexerQueries } from './queries.js';
import { indexerRoutes } from './routes.js';
import { IndexerStatus } from './status.js';

export { Indexer, type IndexerOptions } from './indexer.js';
export { IndexerQueries } from './queries.js';
export { extract, transactionFee, commentOf, TON, CLAIMS, type TransferRecord, type Role, type Extraction } from './extract.js';
export { TrackedSet } from './tracked.js';
export { indexerMigrations } from './migrations.js';

export const indexerComponent: ComponentFactory = (ctx) => {
  const metrics = new IndexerMetrics(ctx.metrics);
  const indexer = new Indexer({
    store: ctx.store,
    source: ctx.source,
    events: ctx.events,
    logger: ctx.logger,
    metrics,
    backfillConcurrency: ctx.config.indexerBackfillConcurrency,
    backfillLeaseMs: ctx.config.workerLeaseSeconds * 1000,
    now: ctx.now,
    changes: ctx.changes,
  });
  const queries = new IndexerQueries(ctx.store, ctx.source, ctx.now);
  const status = new IndexerStatus(indexer, ctx.store, ctx.source, ctx.now, metrics);
  const dnsRoot = ctx.profile.dnsRoot;
  let live = false;
  let unlisten: (() => void) | null = null;
  const component: Component = {
    name: 'indexer',
    routes: async (app) => {
      await app.register(indexerRoutes, { indexer, queries, status, source: ctx.source, dnsRoot, domains: ctx.domains ?? null });
    },
    startLeader: async () => {
      // entries tracked through another process's API join this process's live tracking
      unlisten = ctx.changes?.on(CHANGES_TOPIC, (key) => {
        indexer.joinAnnounced(key).catch((err) => ctx.logger.error({ err, entry: key }, 'joining an announced indexer entry failed'));
      }) ?? null;
      await indexer.startLive();
      live = true;
    },
    stopLeader: async () => {
      live = false;
      unlisten?.();
      unlisten = null;
      await indexer.stopLive();
    },
    startWorker: async () => indexer.startBackfill(),
    stopWorker: () => indexer.stopBackfill(),
    health: async () => ({
      // a process that does not lead runs no live tracking, and is not less ready for it
      ok: live || ctx.cluster?.leads() === false,
      tracked_entries: indexer.tracked.size,
      last_processed_masterchain_seqno: indexer.lastApplied?.mcSeqno ?? null,
    }),
  };
  return component;
};
