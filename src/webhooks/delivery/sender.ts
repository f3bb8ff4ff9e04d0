// One HTTP attempt of one delivery, with undici: keep-alive connections, no redirects followed,
// a timeout per attempt, and the connection's DNS answers checked against the SSRF policy.
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
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

/** The headers of one attempt (exported for tests and documentation). */
export function deliveryHeaders(endpoint: Endpoint, delivery: PendingDelivery, nowMs: number, userAgent: string): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    authorization: `Bearer ${endpoint.token}`,
    'idempotency-key': sha256Hex(delivery.body),
    'webhook-id': delivery.messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(activeSecrets(endpoint, nowMs), delivery.messageId, timestamp, delivery.body),
    'webhook-event-type': delivery.eventType,
  };
}

export class Sender {
  private readonly agent: Agent;
  /** Parsed endpoint URLs, with the refusal for an IP-literal host computed once. */
  private readonly targets = new Map<string, { url: URL; refusal: string | null }>();

  constructor(private readonly options: SenderOptions) {
    this.agent = new Agent({
      connections: options.connectionsPerOrigin,
      keepAliveTimeout: 30_000,
      connect: { timeout: options.timeoutMs, lookup: guardedLookup(options.policy) },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  private target(raw: string) {
    let t = this.targets.get(raw);
    if (!t) {
      const url = new URL(raw);
      const literal = hostIpLiteral(url);
      t = { url, refusal: literal ? refusalFor(literal, this.options.policy.allowLoopback) : null };
      if (this.targets.size > 10_000) this.targets.clear();
      this.targets.set(raw, t);
    }
    return t;
  }

  async send(endpoint: Endpoint, delivery: PendingDelivery, nowMs: number): Promise<AttemptReport> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const target = this.target(endpoint.url);
    if (target.refusal) return { statusCode: null, error: `refused: ${target.refusal}`, retryAfterMs: null, latencyMs: 0, kind: 'refused' };
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      const res = await request(target.url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: deliveryHeaders(endpoint, delivery, nowMs, this.options.userAgent),
        body: delivery.body,
        signal,
      });
      // The body is not needed, but must be consumed for the connection to be reused.
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return {
        statusCode: res.statusCode,
        error: ok ? null : `HTTP ${res.statusCode}`,
        retryAfterMs: ok ? null : parseRetryAfter(res.headers['retry-after'], nowMs),
        latencyMs: latency(),
        kind: 'http',
      };
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
      const code = e.code ?? e.cause?.code;
      if (signal.aborted || e.name === 'TimeoutError' || e.name === 'AbortError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') {
        return { statusCode: null, error: `timeout after ${this.options.timeoutMs} ms`, retryAfterMs: null, latencyMs: latency(), kind: 'timeout' };
      }
      if (code === 'ESSRF') return { statusCode: null, error: e.message, retryAfterMs: null, latencyMs: latency(), kind: 'refused' };
      const detail = e.cause?.message ?? e.message;
      return { statusCode: null, error: code ? `${code}: ${detail}` : detail, retryAfterMs: null, latencyMs: latency(), kind: 'network' };
    }
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => {});
  }
}
