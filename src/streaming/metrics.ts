// Streaming metrics on the service registry: open connections by transport, events sent by type,
// slow-consumer closes, resume replays and gaps, dead peers, the time to fan out one batch, and the
// young-generation collections made when the streams were quiet (quiet-gc.ts).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ChainEventType } from '../bus/events.js';
import type { Transport } from './connection.js';

function once<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export class StreamMetrics {
  readonly connections: Gauge<'transport'>;
  readonly eventsSent: Counter<'type'>;
  readonly heartbeats: Counter<'transport'>;
  readonly slowConsumers: Counter<'transport'>;
  readonly resumes: Counter<'transport'>;
  readonly gaps: Counter<'transport'>;
  readonly deadPeers: Counter<'transport'>;
  readonly fanoutSeconds: Histogram;
  readonly quietCollections: Counter;
  /** Frames sent since the last `flushSent`, by event type: counting per frame into prom-client costs too much. */
  private readonly pending: Record<ChainEventType, number> = { block: 0, transaction: 0, trace: 0, mempool: 0 };

  constructor(registry: Registry) {
    const registers = [registry];
    this.connections = once(registry, 'tonwatch_stream_connections', () =>
      new Gauge({ name: 'tonwatch_stream_connections', help: 'Open streaming connections, by transport (sse, ws)', labelNames: ['transport'] as const, registers }),
    );
    this.eventsSent = once(registry, 'tonwatch_stream_events_sent_total', () =>
      new Counter({ name: 'tonwatch_stream_events_sent_total', help: 'Events sent to streaming clients (one per recipient), by event type', labelNames: ['type'] as const, registers }),
    );
    this.heartbeats = once(registry, 'tonwatch_stream_heartbeats_total', () =>
      new Counter({ name: 'tonwatch_stream_heartbeats_total', help: 'SSE heartbeats and WebSocket pings sent after silence', labelNames: ['transport'] as const, registers }),
    );
    this.slowConsumers = once(registry, 'tonwatch_stream_slow_consumer_closes_total', () =>
      new Counter({ name: 'tonwatch_stream_slow_consumer_closes_total', help: 'Connections closed because their send buffer filled up', labelNames: ['transport'] as const, registers }),
    );
    this.resumes = once(registry, 'tonwatch_stream_resume_replays_total', () =>
      new Counter({ name: 'tonwatch_stream_resume_replays_total', help: 'Streams resumed from an event id (history replayed)', labelNames: ['transport'] as const, registers }),
    );
    this.gaps = once(registry, 'tonwatch_stream_resume_gaps_total', () =>
      new Counter({ name: 'tonwatch_stream_resume_gaps_total', help: 'Resumes from an id older than the retained history, or not issued by this server (a gap event was sent)', labelNames: ['transport'] as const, registers }),
    );
    this.deadPeers = once(registry, 'tonwatch_stream_dead_peer_closes_total', () =>
      new Counter({ name: 'tonwatch_stream_dead_peer_closes_total', help: 'Connections dropped because the peer stopped reading or answering pings', labelNames: ['transport'] as const, registers }),
    );
    this.fanoutSeconds = once(registry, 'tonwatch_stream_fanout_seconds', () =>
      new Histogram({
        name: 'tonwatch_stream_fanout_seconds',
        help: 'Time to match one event batch and write it to every live connection',
        buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
        registers,
      }),
    );
    this.quietCollections = once(registry, 'tonwatch_stream_quiet_collections_total', () =>
      new Counter({ name: 'tonwatch_stream_quiet_collections_total', help: "Young-generation collections made after a fan-out's readers had read (instead of V8's own, right after the fan-out)", registers }),
    );
    for (const transport of ['sse', 'ws'] as const) this.connections.inc({ transport }, 0);
  }

  countSent(type: ChainEventType): void {
    this.pending[type]++;
  }

  flushSent(): void {
    for (const type of ['block', 'transaction', 'trace', 'mempool'] as const) {
      const n = this.pending[type];
      if (n > 0) {
        this.eventsSent.inc({ type }, n);
        this.pending[type] = 0;
      }
    }
  }

  opened(transport: Transport): void {
    this.connections.inc({ transport });
  }

  closed(transport: Transport): void {
    this.connections.dec({ transport });
  }
}

/**
 * Streaming v2's trace assembler: transactions it holds (the window, src/streaming/v2/traces.ts) and
 * completed traces by outcome (`classified`, `unclassified`: sent without actions, `not_assembled`: none sent).
 */
export function v2TraceMetrics(registry: Registry, held: () => number): Counter<'result'> {
  const registers = [registry];
  once(registry, 'tonwatch_stream_v2_trace_window_transactions', () =>
    new Gauge({ name: 'tonwatch_stream_v2_trace_window_transactions', help: 'Finalized transactions Streaming v2 keeps to assemble traces that span blocks', registers, collect() { this.set(held()); } }),
  );
  return once(registry, 'tonwatch_stream_v2_traces_completed_total', () =>
    new Counter({ name: 'tonwatch_stream_v2_traces_completed_total', help: 'Completed traces Streaming v2 built trace/actions notifications for, by outcome (classified, unclassified, not_assembled)', labelNames: ['result'] as const, registers }),
  );
}
