// The indexer's Prometheus metrics (served at /metrics with the rest of the service's).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export class IndexerMetrics {
  readonly trackedEntries: Gauge;
  readonly transfers: Counter<'kind' | 'status'>;
  readonly blockSeconds: Histogram;
  readonly latencySeconds: Gauge;
  readonly lastSeqno: Gauge;
  readonly backfillTransactions: Counter;
  readonly backfillErrors: Counter;
  readonly backfillPending: Gauge;
  readonly gaps: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.trackedEntries = new Gauge({ name: 'tonwatch_indexer_tracked_entries', help: 'Tracked (asset, owner) entries', registers });
    this.transfers = new Counter({ name: 'tonwatch_indexer_transfers_total', help: 'Transfers recorded by live tracking', labelNames: ['kind', 'status'], registers });
    this.blockSeconds = new Histogram({
      name: 'tonwatch_indexer_block_seconds',
      help: 'Time to scan and apply one finalized block',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers,
    });
    this.latencySeconds = new Gauge({ name: 'tonwatch_indexer_latency_seconds', help: 'Seconds between a block\'s generation and the indexer applying it', registers });
    this.lastSeqno = new Gauge({ name: 'tonwatch_indexer_masterchain_seqno', help: 'Last masterchain seqno the indexer applied', registers });
    this.backfillTransactions = new Counter({ name: 'tonwatch_indexer_backfill_transactions_total', help: 'Transactions written by backfill walks', registers });
    this.backfillErrors = new Counter({ name: 'tonwatch_indexer_backfill_errors_total', help: 'Backfill steps that failed (retried)', registers });
    this.backfillPending = new Gauge({ name: 'tonwatch_indexer_backfill_pending', help: 'Entries with a backfill walk or resync pending', registers });
    this.gaps = new Counter({ name: 'tonwatch_indexer_event_gaps_total', help: 'Times live tracking fell behind the retained event log (a resync of every entry follows)', registers });
  }
}
