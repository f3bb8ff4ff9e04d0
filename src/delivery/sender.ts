// One HTTP attempt of one delivery: keep-alive connections (http1.ts), no redirects followed, a
// timeout per attempt, and the connection's DNS answers checked against the SSRF policy.
import { performance } from 'node:perf_hooks';
import type { ConnectionOptions } from 'node:tls';
import { activeSecrets } from './endpoints.js';
import { OriginClient, type ExchangeError, type ExchangeResult } from './http1.js';
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
  /** Extra TLS options for https receivers (tests pass their CA). */
  tls?: ConnectionOptions;
}

/** What an attempt needs of its endpoint (all that crosses to the sender thread). */
export type AttemptEndpoint = Pick<Endpoint, 'url' | 'token' | 'secret' | 'previousSecret' | 'previousSecretUntil'>;
/** What an attempt needs of its delivery. */
export type AttemptDelivery = Pick<PendingDelivery, 'messageId' | 'eventType' | 'body'>;

/** Sends attempts: a Sender here, or one in a worker thread (threaded-sender.ts). */
export interface AttemptSender {
  /** One POST; `done` gets every outcome, failures included, never synchronously. */
  send(endpoint: AttemptEndpoint, delivery: AttemptDelivery, nowMs: number, done: (report: AttemptReport) => void): void;
  /** Cuts every attempt queued or in flight (their sockets closed); each still gets its report. */
  abort(): void;
  close(): Promise<void>;
}

/** What the receiver (or the network) said. */
export interface AttemptReport {
  /** HTTP status, or null when there was no response. */
  statusCode: number | null;
  /** Network-level failure or refusal in words, or a short reason for a non-2xx status. */
  error: string | null;
  retryAfterMs: number | null;
  latencyMs: number;
  /** `timeout`, `network`, `refused` (SSRF), `http`, or `cancelled`: never sent, its receiver answered 410 to an earlier attempt (not an attempt). */
  kind: 'http' | 'timeout' | 'network' | 'refused' | 'cancelled';
}

/** The headers of one attempt by name, as buildRequest() writes them (content-length aside). */
export function deliveryHeaders(endpoint: AttemptEndpoint, delivery: AttemptDelivery, nowMs: number, userAgent: string): Record<string, string> {
  const request = buildRequest('', endpoint, delivery, nowMs, userAgent);
  if (typeof request !== 'string') throw new Error(request.refused);
  const out: Record<string, string> = {};
  for (const line of request.slice(0, request.indexOf('\r\n\r\n')).split('\r\n')) {
    const colon = line.indexOf(': ');
    if (line.slice(0, colon) !== 'content-length') out[line.slice(0, colon)] = line.slice(colon + 2);
  }
  return out;
}

/** Characters that would end a header line early (header injection). */
const LINE_BREAK = /[\r\n\0]/;

/** `POST <path> HTTP/1.1` and the Host header of an endpoint's URL. */
export function requestLine(url: URL): string {
  return `POST ${(url.pathname || '/') + url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
}

/** An attempt's whole request, head and body, after `line` (requestLine()); or why it is refused. */
export function buildRequest(line: string, endpoint: AttemptEndpoint, delivery: AttemptDelivery, nowMs: number, userAgent: string): string | { refused: string } {
  const { messageId, eventType, body } = delivery;
  // The other values are digits, hex and base64 made here.
  const unsafe = LINE_BREAK.test(eventType) ? 'webhook-event-type' : LINE_BREAK.test(messageId) ? 'webhook-id' : LINE_BREAK.test(endpoint.token) ? 'authorization' : LINE_BREAK.test(userAgent) ? 'user-agent' : null;
  if (unsafe) return { refused: `refused: the ${unsafe} header would contain a line break` };
  const timestamp = Math.floor(nowMs / 1000);
  const signature = signatureHeader(activeSecrets(endpoint, nowMs), messageId, timestamp, body);
  // Every header of an attempt, in the order written, in one template (it runs per attempt).
  return `${line}content-type: application/json\r\nuser-agent: ${userAgent}\r\nauthorization: Bearer ${endpoint.token}\r\nidempotency-key: ${sha256Hex(body)}\r\nwebhook-id: ${messageId}\r\nwebhook-timestamp: ${timestamp}\r\nwebhook-signature: ${signature}\r\nwebhook-event-type: ${eventType}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

interface Target {
  /** `POST <path> HTTP/1.1` and the Host header. */
  requestLine: string;
  client: OriginClient;
  refusal: string | null;
}

/**
 * How a 410 stops the attempts to its URL that have not started (waiting for a connection, or
 * handed over but not yet here): `here` — those numbered so far, all handed to this Sender
 * already; `until-told` — every one until `goneHeard()` names the last one the producer made
 * before it heard of the 410 (the sender thread, where attempts may still be on their way).
 */
export type GoneStop = 'here' | 'until-told';

export class Sender implements AttemptSender {
  /** One client (keep-alive connections) per receiver origin. */
  private readonly clients = new Map<string, OriginClient>();
  /** Parsed endpoint URLs, with the refusal for an IP-literal host computed once. */
  private readonly targets = new Map<string, Target>();
  private readonly lookup;
  /** Per URL that answered 410: attempts numbered up to this never start. */
  private readonly goneUpTo = new Map<string, number>();
  /** URLs of the 410s `goneHeard()` has not yet answered, in the order they came (`until-told`). */
  private readonly goneUnheard: string[] = [];
  private numbered = 0;

  constructor(
    private readonly options: SenderOptions,
    private readonly goneStop: GoneStop = 'here',
  ) {
    this.lookup = guardedLookup(options.policy);
  }

  /** `until-told`: the producer heard of the oldest 410 not yet answered, after making attempts up to `upTo`. */
  goneHeard(upTo: number): void {
    const url = this.goneUnheard.shift();
    // A later 410 of the same URL, still unheard, keeps every attempt stopped.
    if (url !== undefined && !this.goneUnheard.includes(url)) this.goneUpTo.set(url, upTo);
  }

  private target(raw: string): Target {
    let t = this.targets.get(raw);
    if (!t) {
      const url = new URL(raw);
      const literal = hostIpLiteral(url);
      let client = this.clients.get(url.origin);
      if (!client) {
        client = new OriginClient(url, { connections: this.options.connectionsPerOrigin, timeoutMs: this.options.timeoutMs, lookup: this.lookup, tls: this.options.tls });
        this.clients.set(url.origin, client);
      }
      t = { requestLine: requestLine(url), client, refusal: literal ? refusalFor(literal, this.options.policy.allowLoopback) : null };
      if (this.targets.size > 10_000) this.targets.clear();
      this.targets.set(raw, t);
    }
    return t;
  }

  /** One POST; `done` gets every outcome, failures included, never synchronously (throws only on a bug). */
  send(endpoint: AttemptEndpoint, delivery: AttemptDelivery, nowMs: number, done: (report: AttemptReport) => void): void {
    const target = this.target(endpoint.url);
    if (target.refusal) return refuse(done, `refused: ${target.refusal}`);
    const request = buildRequest(target.requestLine, endpoint, delivery, nowMs, this.options.userAgent);
    if (typeof request !== 'string') return refuse(done, request.refused);
    this.exchange(endpoint.url, target, request, nowMs, ++this.numbered, done);
  }

  /** Sends a request built elsewhere with buildRequest() (the sender thread gets them whole); `attempt` numbers it, increasing. */
  sendBuilt(url: string, request: string, nowMs: number, attempt: number, done: (report: AttemptReport) => void): void {
    const target = this.target(url);
    if (target.refusal) return refuse(done, `refused: ${target.refusal}`);
    this.exchange(url, target, request, nowMs, attempt, done);
  }

  private exchange(url: string, target: Target, request: string, nowMs: number, attempt: number, done: (report: AttemptReport) => void): void {
    const started = performance.now();
    const cancelled = () => (this.goneUpTo.get(url) ?? 0) >= attempt;
    target.client.request(
      request,
      (err, result) => {
        // Svix's rule: after a 410 no new attempt starts to the endpoint; the ones in flight finish.
        if (result?.statusCode === 410) this.gone(url);
        done(report(err, result, nowMs, Math.round(performance.now() - started), this.options.timeoutMs));
      },
      cancelled,
    );
  }

  private gone(url: string): void {
    if (this.goneStop === 'here') return void this.goneUpTo.set(url, Math.max(this.goneUpTo.get(url) ?? 0, this.numbered));
    this.goneUpTo.set(url, Infinity);
    this.goneUnheard.push(url);
  }

  abort(): void {
    for (const client of this.clients.values()) client.abort();
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
    this.clients.clear();
    this.targets.clear();
    this.goneUpTo.clear();
  }
}

/** An attempt refused before any connection, answered on a later microtask like every other. */
export function refuse(done: (report: AttemptReport) => void, error: string): void {
  queueMicrotask(() => done({ statusCode: null, error, retryAfterMs: null, latencyMs: 0, kind: 'refused' }));
}

/** The attempt's outcome in the terms the judge uses. */
function report(err: ExchangeError | null, result: ExchangeResult | null, nowMs: number, latencyMs: number, timeoutMs: number): AttemptReport {
  if (result) {
    const ok = result.statusCode >= 200 && result.statusCode < 300;
    return { statusCode: result.statusCode, error: ok ? null : `HTTP ${result.statusCode}`, retryAfterMs: ok ? null : parseRetryAfter(result.retryAfter, nowMs), latencyMs, kind: 'http' };
  }
  const e = err as ExchangeError & { cause?: ExchangeError };
  const code = e.code ?? e.cause?.code;
  if (code === 'ETIMEDOUT') return { statusCode: null, error: `timeout after ${timeoutMs} ms`, retryAfterMs: null, latencyMs, kind: 'timeout' };
  if (code === 'ECANCELED') return { statusCode: null, error: e.message, retryAfterMs: null, latencyMs: 0, kind: 'cancelled' };
  if (code === 'ESSRF') return { statusCode: null, error: e.message, retryAfterMs: null, latencyMs, kind: 'refused' };
  const detail = e.cause?.message ?? e.message;
  return { statusCode: null, error: code ? `${code}: ${detail}` : detail, retryAfterMs: null, latencyMs, kind: 'network' };
}
