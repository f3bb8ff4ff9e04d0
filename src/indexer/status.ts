// `/status`: is the REST API up, how far behind the chain the indexer is, which chain nodes answer,
// and how far the backfill walks are.
import type { ChainSource } from '../chain/source.js';
import type { Store } from '../store/db.js';
import type { Indexer } from './indexer.js';
import type { IndexerMetrics } from './metrics.js';
import { asDb, backfillCounts } from './store.js';

export class IndexerStatus {
  constructor(
    private readonly indexer: Indexer,
    private readonly store: Store,
    private readonly source: ChainSource,
    private readonly now: () => number,
    private readonly metrics?: IndexerMetrics,
  ) {}

  async read() {
    let head: number | null = null;
    let error: string | undefined;
    try {
      head = (await this.source.getMasterchainHead()).seqno;
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const applied = this.indexer.lastApplied;
    const counts = await backfillCounts(asDb(this.store.db));
    this.metrics?.backfillPending.set(counts.walking);
    // Caught up with the head: the lag is zero whatever the block's age (quiet chains make no blocks).
    let latency: number | null = null;
    if (applied && head !== null && applied.mcSeqno >= head) latency = 0;
    else if (applied?.genUtime != null) latency = Math.max(0, this.now() / 1000 - applied.genUtime);
    return {
      rest_online: true,
      indexing_latency: latency === null ? null : Math.round(latency * 1000) / 1000,
      last_known_masterchain_seqno: head,
      last_processed_masterchain_seqno: applied?.mcSeqno ?? null,
      nodes: [{ network: this.source.network, online: error === undefined, masterchain_seqno: head, ...(error ? { error } : {}) }],
      backfill: { entries: counts.entries, done: counts.done, pending: counts.walking, failing: counts.failing },
    };
  }
}
