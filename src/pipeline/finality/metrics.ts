// Prometheus metrics of the finality levels: events per level, invalidations by reason, how long a
// trace took from its first sighting to each later level, and traces in flight per level.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { InvalidationReason, TraceState } from './types.js';

export class FinalityMetrics {
  readonly events: Counter<'level'>;
  readonly invalidations: Counter<'reason'>;
  readonly latency: Histogram<'level'>;
  readonly inFlight: Gauge<'level'>;
  readonly ignored: Counter<'why'>;
  readonly resent: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.events = new Counter({ name: 'tonwatch_finality_events_total', help: 'Provisional trace events emitted, by finality level (pending, confirmed, finalized, invalidated)', labelNames: ['level'], registers });
    this.invalidations = new Counter({ name: 'tonwatch_finality_invalidations_total', help: 'Traces invalidated, by reason (rejected, candidate_lost, expired)', labelNames: ['reason'], registers });
    this.latency = new Histogram({
      name: 'tonwatch_finality_latency_seconds',
      help: 'Seconds from a trace first seen (pending, else confirmed) to each later level',
      labelNames: ['level'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60],
      registers,
    });
    this.inFlight = new Gauge({ name: 'tonwatch_finality_traces_in_flight', help: 'Traces pending or confirmed, not yet finalized or invalidated', labelNames: ['level'], registers });
    this.resent = new Counter({ name: 'tonwatch_finality_traces_resent_total', help: 'Traces in flight handed out again at their current level (inFlight(): a resuming client is re-sent them)', registers });
    this.ignored = new Counter({ name: 'tonwatch_finality_reports_ignored_total', help: 'Reports that would not move a trace up (already at or past that level, or not an external message)', labelNames: ['why'], registers });
  }

  emitted(level: TraceState, sinceFirstSeenMs: number | null): void {
    this.events.inc({ level });
    if (sinceFirstSeenMs !== null) this.latency.observe({ level }, sinceFirstSeenMs / 1000);
  }

  invalidated(reason: InvalidationReason): void {
    this.invalidations.inc({ reason });
  }

  setInFlight(pending: number, confirmed: number): void {
    this.inFlight.set({ level: 'pending' }, pending);
    this.inFlight.set({ level: 'confirmed' }, confirmed);
  }
}
