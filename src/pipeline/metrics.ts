// Prometheus metrics of the follower: how far behind the chain it is and what it appends.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { EventBatch } from '../bus/events.js';
import type { FollowerStatus } from './status.js';

export class FollowerMetrics {
  readonly lastSeqno: Gauge;
  readonly headSeqno: Gauge;
  readonly lagBlocks: Gauge;
  readonly lagSeconds: Gauge;
  readonly tracesInFlight: Gauge;
  readonly events: Counter<'type'>;
  readonly blockSeconds: Histogram;
  readonly errors: Counter;
  readonly mempoolDropped: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.lastSeqno = new Gauge({ name: 'tonwatch_follower_last_seqno', help: 'Last masterchain seqno appended to the event log', registers });
    this.headSeqno = new Gauge({ name: 'tonwatch_follower_head_seqno', help: 'Latest finalized masterchain seqno reported by the chain source', registers });
    this.lagBlocks = new Gauge({ name: 'tonwatch_follower_lag_blocks', help: 'Masterchain blocks finalized but not yet appended', registers });
    this.lagSeconds = new Gauge({ name: 'tonwatch_follower_lag_seconds', help: 'Seconds since the generation of the last appended block', registers });
    this.tracesInFlight = new Gauge({ name: 'tonwatch_follower_traces_in_flight', help: 'Traces waiting for messages still in flight', registers });
    this.events = new Counter({ name: 'tonwatch_events_appended_total', help: 'Events appended to the log, by type', labelNames: ['type'], registers });
    this.blockSeconds = new Histogram({
      name: 'tonwatch_follower_block_seconds',
      help: 'Time to turn one finalized block into committed events',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    this.errors = new Counter({ name: 'tonwatch_follower_errors_total', help: 'Failed follower steps (retried)', registers });
    this.mempoolDropped = new Counter({ name: 'tonwatch_mempool_events_dropped_total', help: 'Mempool events not appended (position range full, or too many waiting for the store)', registers });
  }

  appended(batch: EventBatch, ms: number, status: FollowerStatus): void {
    const counts = new Map<string, number>();
    for (const e of batch.events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
    for (const [type, n] of counts) this.events.inc({ type }, n);
    if (batch.kind !== 'block') return;
    this.blockSeconds.observe(ms / 1000);
    if (status.lastSeqno !== null) this.lastSeqno.set(status.lastSeqno);
    if (status.headSeqno !== null) this.headSeqno.set(status.headSeqno);
    if (status.lagBlocks !== null) this.lagBlocks.set(status.lagBlocks);
    if (status.lagSeconds !== null) this.lagSeconds.set(status.lagSeconds);
    this.tracesInFlight.set(status.tracesInFlight);
  }
}
