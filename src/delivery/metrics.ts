// Delivery metrics: attempts by result, attempt latency, outbox depth and endpoints by status.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LAG_STATES, type DeliveryLag } from './lag.js';
import type { AttemptResult } from './types.js';

export interface DeliveryMetricsSource {
  /** Pending deliveries in the store, and the endpoints by status. */
  depth(): Promise<number>;
  endpointsByStatus(): Promise<Record<string, number>>;
  inFlight(): number;
  lag(): DeliveryLag;
}

export class DeliveryMetrics {
  private readonly attempts: Counter<'result'>;
  private readonly latency: Histogram;
  private readonly firstAttempt: Histogram;

  constructor(registry: Registry, source: DeliveryMetricsSource) {
    this.attempts = new Counter({
      name: 'tonwatch_webhook_deliveries_total',
      help: 'Delivery attempts by result: delivered (2xx), retrying, failed (given up), held (410, endpoint suspended)',
      labelNames: ['result'],
      registers: [registry],
    });
    this.latency = new Histogram({
      name: 'tonwatch_webhook_attempt_seconds',
      help: 'Duration of one delivery attempt (request to response headers and body)',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
      registers: [registry],
    });
    this.firstAttempt = new Histogram({
      name: 'tonwatch_webhook_enqueue_to_first_attempt_seconds',
      help: 'Time from a delivery entering the outbox to the end of its first attempt',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
      registers: [registry],
    });
    new Gauge({
      name: 'tonwatch_webhook_outbox_depth',
      help: 'Deliveries waiting in the outbox (pending, including retries)',
      registers: [registry],
      async collect() {
        this.set(await source.depth());
      },
    });
    new Gauge({
      name: 'tonwatch_webhook_in_flight',
      help: 'Delivery attempts in flight',
      registers: [registry],
      collect() {
        this.set(source.inFlight());
      },
    });
    new Gauge({
      name: 'tonwatch_webhook_delivery_lag_seconds',
      help: 'Age of the oldest due delivery whose attempt has not started, by endpoint state: online (the worker\'s own lag), slow (the endpoint\'s window of attempts is full), offline, suspended',
      labelNames: ['state'],
      registers: [registry],
      collect() {
        const lag = source.lag();
        for (const state of LAG_STATES) this.set({ state }, lag.ageMs[state] / 1000);
      },
    });
    new Gauge({
      name: 'tonwatch_webhook_endpoints',
      help: 'Webhook endpoints by status',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        const counts = await source.endpointsByStatus();
        for (const status of ['online', 'offline', 'suspended']) this.set({ status }, counts[status] ?? 0);
      },
    });
  }

  /** Label children resolved once: labelling on every attempt is a measurable cost at thousands per second. */
  private readonly byResult = new Map<AttemptResult, { inc(): void }>();

  attempt(result: AttemptResult, latencyMs: number, firstAttemptAfterMs: number | null): void {
    let counter = this.byResult.get(result);
    if (!counter) this.byResult.set(result, (counter = this.attempts.labels(result)));
    counter.inc();
    this.latency.observe(latencyMs / 1000);
    if (firstAttemptAfterMs !== null) this.firstAttempt.observe(Math.max(0, firstAttemptAfterMs) / 1000);
  }
}
