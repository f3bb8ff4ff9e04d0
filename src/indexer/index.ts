// The deposit indexer (component B): tracked addresses and jetton deposits, backfill to contract
// creation, live tracking of finalized blocks, transfer classification, balances, audit, DNS and
// status. `indexerComponent` plugs it into the service; docs/INDEXER.md describes it.
import { parseAccountId } from '../chain/address.js';
import { DevnetChain } from '../chain/devnet/chain.js';
import { ROOT_DNS_ADDRESS } from '../chain/devnet/directory.js';
import { addressToRaw } from '../chain/address.js';
import type { AccountId } from '../chain/model.js';
import type { ChainSource } from '../chain/source.js';
import type { Component, ComponentFactory } from '../service/component.js';
import { Indexer } from './indexer.js';
import { IndexerMetrics } from './metrics.js';
import { IndexerQueries } from './queries.js';
import { indexerRoutes } from './routes.js';
import { IndexerStatus } from './status.js';

export { Indexer, type IndexerOptions } from './indexer.js';
export { IndexerQueries } from './queries.js';
export { extract, transactionFee, commentOf, TON, CLAIMS, type TransferRecord, type Role, type Extraction } from './extract.js';
export { TrackedSet } from './tracked.js';
export { indexerMigrations } from './migrations.js';

/**
 * The root DNS resolver: the configured one; on the devnet the one it publishes (its directory);
 * otherwise mainnet's, the address in config parameter #4.
 */
export function dnsRootOf(source: ChainSource, configured: string | undefined): AccountId {
  if (configured) return parseAccountId(configured);
  if (source instanceof DevnetChain && source.directory) return source.directory.dns.rootId;
  return addressToRaw(ROOT_DNS_ADDRESS);
}

export const indexerComponent: ComponentFactory = (ctx) => {
  const metrics = new IndexerMetrics(ctx.metrics);
  const indexer = new Indexer({
    store: ctx.store,
    source: ctx.source,
    events: ctx.events,
    logger: ctx.logger,
    metrics,
    backfillConcurrency: ctx.config.indexerBackfillConcurrency,
    now: ctx.now,
  });
  const queries = new IndexerQueries(ctx.store, ctx.source, ctx.now);
  const status = new IndexerStatus(indexer, ctx.store, ctx.source, ctx.now, metrics);
  const dnsRoot = dnsRootOf(ctx.source, ctx.config.indexerDnsRoot);
  let started = false;
  const component: Component = {
    name: 'indexer',
    routes: async (app) => {
      await app.register(indexerRoutes, { indexer, queries, status, source: ctx.source, dnsRoot });
    },
    start: async () => {
      await indexer.start();
      started = true;
    },
    stop: async () => {
      started = false;
      await indexer.stop();
    },
    health: async () => ({
      ok: started,
      tracked_entries: indexer.tracked.size,
      last_processed_masterchain_seqno: indexer.lastApplied?.mcSeqno ?? null,
    }),
  };
  return component;
};
