// Prometheus metrics: request counts and durations per route template, the process defaults, and
// `GET /metrics` serving whatever every component registered in the same Registry.
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, collectDefaultMetrics, type Registry } from 'prom-client';

/** Registers a metric once per registry (tests and `serve` may build several apps over one registry). */
function once<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function registerMetrics(app: FastifyInstance, registry: Registry, opts: { defaultMetrics?: boolean } = {}): void {
  if (opts.defaultMetrics !== false && !registry.getSingleMetric('process_cpu_user_seconds_total')) {
    collectDefaultMetrics({ register: registry });
  }
  const requests = once(
    registry,
    'tonwatch_http_requests_total',
    () =>
      new Counter({
        name: 'tonwatch_http_requests_total',
        help: 'HTTP requests answered, by method, route template and status code',
        labelNames: ['method', 'route', 'status'] as const,
        registers: [registry],
      }),
  );
  const duration = once(
    registry,
    'tonwatch_http_request_duration_seconds',
    () =>
      new Histogram({
        name: 'tonwatch_http_request_duration_seconds',
        help: 'Time to answer an HTTP request (whole stream for SSE), by method and route template',
        labelNames: ['method', 'route'] as const,
        buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
        registers: [registry],
      }),
  );

  app.addHook('onResponse', async (request, reply) => {
    // The route template, not the URL, keeps label cardinality bounded; unknown paths share one label.
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  app.get(
    '/metrics',
    {
      logLevel: 'warn',
      config: { probe: true },
      schema: {
        tags: ['service'],
        summary: 'Metrics in the Prometheus text format',
        response: { 200: { type: 'string', description: 'Prometheus text exposition format' } },
      },
    },
    async (_request, reply) => {
      reply.header('content-type', registry.contentType);
      return registry.metrics();
    },
  );
}
