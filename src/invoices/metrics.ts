// Prometheus metrics of invoicing: invoices by outcome, payments matched and ignored (by reason),
// webhooks queued, and how far the matcher is behind the chain.
import { Counter, Gauge, type Registry } from 'prom-client';

export class InvoiceMetrics {
  readonly created: Counter<'currency'>;
  readonly paid: Counter<'currency'>;
  readonly expired: Counter<'currency'>;
  readonly cancelled: Counter<'currency'>;
  readonly matched: Counter<'currency' | 'kind'>;
  readonly ignored: Counter<'reason'>;
  readonly webhooks: Counter<'event'>;
  readonly lagSeconds: Gauge;
  readonly lagEvents: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.created = new Counter({ name: 'tonwatch_invoices_created_total', help: 'Invoices created', labelNames: ['currency'], registers });
    this.paid = new Counter({ name: 'tonwatch_invoices_paid_total', help: 'Invoices that became paid', labelNames: ['currency'], registers });
    this.expired = new Counter({ name: 'tonwatch_invoices_expired_total', help: 'Invoices that expired', labelNames: ['currency'], registers });
    this.cancelled = new Counter({ name: 'tonwatch_invoices_cancelled_total', help: 'Invoices cancelled', labelNames: ['currency'], registers });
    this.matched = new Counter({
      name: 'tonwatch_invoice_payments_matched_total',
      help: 'Payments matched to invoices, by currency and kind (payment, excess, late)',
      labelNames: ['currency', 'kind'],
      registers,
    });
    this.ignored = new Counter({
      name: 'tonwatch_invoice_payments_ignored_total',
      help: 'Transfers naming an invoice that were not counted, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.webhooks = new Counter({ name: 'tonwatch_invoice_webhooks_queued_total', help: 'Invoice webhook deliveries queued, by event type', labelNames: ['event'], registers });
    this.lagSeconds = new Gauge({ name: 'tonwatch_invoice_matcher_lag_seconds', help: 'Seconds between the generation of the last block the matcher applied and its application', registers });
    this.lagEvents = new Gauge({ name: 'tonwatch_invoice_matcher_lag_events', help: 'Event positions appended to the log but not yet applied by the matcher', registers });
  }
}
