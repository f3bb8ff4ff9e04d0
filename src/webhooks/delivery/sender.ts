// One HTTP attempt of one delivery, with undici: keep-alive connections, no redirects followed,
// a timeout per attempt, and the connection's DNS answers checked against the SSRF policy.
import { performance } from 'node:perf_hooks';
import { Pool, type Dispatcher } from 'undici';
import { activeSecrets } from './endpoints.js';
import { parseRetryAfter } from './schedule.js';
import { sha256Hex, signatureHeader } from './signing.js';
import { guardedLookup, hostIpLiteral, refusalFor, type EndpointPolicy } from './ssrf.js';
import type { Endpoint, PendingDelivery } from './types.js';

export interface SenderOptions {
  policy: EndpointPolicy;
  timeoutMs: number;
  userAgent: string;
  /** Most open connections per receiver origin. */
  connectionsPerOrigin: number;
}

/** What the receiver (or the network) said. */
export interface AttemptReport {
  /** HTTP status, or null when there was no response. */
  statusCode: number | null;
  /** Network-level failure or refusal in words, or a short reason for a non-2xx status. */
  error: string | null;
  retryAfterMs: number | null;
  latencyMs: number;
  /** `timeout`, `network`, `refused` (SSRF) or `http`. */
  kind: 'http' | 'timeout' | 'network' | 'refused';
}

/** The headers of one attempt as a flat [name, value, …] list (what undici takes with the least work). */
export function deliveryHeaderList(endpoint: Endpoint, delivery: PendingDelivery, nowMs: number, userAgent: string): string[] {
  const timestamp = Math.floor(nowMs / 1000);
  return [
    'content-type', 'application/json',
    'user-agent', userAgent,
    'authorization', `Bearer ${endpoint.token}`,
    'idempotency-key', sha256Hex(delivery.body),
    'webhook-id', delivery.messageId,
    'webhook-timestamp', String(timestamp),
    'webhook-signature', signatureHeader(activeSecrets(endpoint, nowMs), delivery.messageId, timestamp, delivery.body),
    'webhook-event-type', delivery.eventType,
  ];
}

/** The headers of one attempt, by name. */
export function deliveryHeaders(endpoint: Endpoint, delivery: PendingDelivery, nowMs: number, userAgent: string): Record<string, string> {
  const list = deliveryHeaderList(endpoint, delivery, nowMs, userAgent);
  const out: Record<string, string> = {};
  for (let i = 0; i < list.length; i += 2) out[list[i]!] = list[i + 1]!;
  return out;
}

export class Sender {
  /** One keep-alive connection pool per receiver origin. */
  private readonly pools = new Map<string, Pool>();
  /** Parsed endpoint URLs, with the refusal for an IP-literal host computed once. */
  private readonly targets = new Map<string, { path: string; pool: Pool; refusal: string | null }>();
  private readonly lookup;

  constructor(private readonly options: SenderOptions) {
    this.lookup = guardedLookup(options.policy);
  }

  private target(raw: string) {
    let t = this.targets.get(raw);
    if (!t) {
      const url = new URL(raw);
      const literal = hostIpLiteral(url);
      let pool = this.pools.get(url.origin);
      if (!pool) {
        // headersTimeout/bodyTimeout bound each attempt (undici's own timers, cheaper than an AbortSignal each).
        pool = new Pool(url.origin, {
          connections: this.options.connectionsPerOrigin,
          keepAliveTimeout: 30_000,
          connect: { timeout: this.options.timeoutMs, lookup: this.lookup },
          headersTimeout: this.options.timeoutMs,
          bodyTimeout: this.options.timeoutMs,
        });
        this.pools.set(url.origin, pool);
      }
      t = { path: url.pathname + url.search, pool, refusal: literal ? refusalFor(literal, this.options.policy.allowLoopback) : null };
      if (this.targets.size > 10_000) this.targets.clear();
      this.targets.set(raw, t);
    }
    return t;
  }

  /** One POST; never throws — every failure comes back as a report. */
  send(endpoint: Endpoint, delivery: PendingDelivery, nowMs: number): Promise<AttemptReport> {
    const target = this.target(endpoint.url);
    if (target.refusal) return Promise.resolve({ statusCode: null, error: `refused: ${target.refusal}`, retryAfterMs: null, latencyMs: 0, kind: 'refused' });
    return new Promise<AttemptReport>((resolve) => {
      const handler = new AttemptHandler(resolve, nowMs, this.options.timeoutMs);
      try {
        target.pool.dispatch({ path: target.path, method: 'POST', headers: deliveryHeaderList(endpoint, delivery, nowMs, this.options.userAgent), body: delivery.body }, handler);
      } catch (err) {
        handler.onResponseError(null, err as Error);
      }
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => {})));
    this.pools.clear();
    this.targets.clear();
  }
}

/**
 * Receives one response through undici's low-level dispatch API (no response stream objects; the
 * body is read and dropped so the connection is reused). A class, not an object literal, so the
 * hot path allocates no closures.
 */
class AttemptHandler implements Dispatcher.DispatchHandler {
  private readonly started = performance.now();
  private statusCode = 0;
  private retryAfter: string | string[] | undefined;

  constructor(
    private readonly resolve: (report: AttemptReport) => void,
    private readonly nowMs: number,
    private readonly timeoutMs: number,
  ) {}

  private latency(): number {
    return Math.round(performance.now() - this.started);
  }

  // Its presence marks the handler as undici's current (controller-based) kind.
  onRequestStart(): void {}

  onResponseStart(_controller: unknown, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.statusCode = statusCode;
    this.retryAfter = headers['retry-after'];
  }

  onResponseData(): void {}

  onResponseEnd(): void {
    const ok = this.statusCode >= 200 && this.statusCode < 300;
    this.resolve({
      statusCode: this.statusCode,
      error: ok ? null : `HTTP ${this.statusCode}`,
      retryAfterMs: ok ? null : parseRetryAfter(this.retryAfter, this.nowMs),
      latencyMs: this.latency(),
      kind: 'http',
    });
  }

  onResponseError(_controller: unknown, err: Error): void {
    const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    const code = e.code ?? e.cause?.code;
    const latencyMs = this.latency();
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
      this.resolve({ statusCode: null, error: `timeout after ${this.timeoutMs} ms`, retryAfterMs: null, latencyMs, kind: 'timeout' });
    } else if (code === 'ESSRF') {
      this.resolve({ statusCode: null, error: e.message, retryAfterMs: null, latencyMs, kind: 'refused' });
    } else {
      const detail = e.cause?.message ?? e.message;
      this.resolve({ statusCode: null, error: code ? `${code}: ${detail}` : detail, retryAfterMs: null, latencyMs, kind: 'network' });
    }
  }
}
