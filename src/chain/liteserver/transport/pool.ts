// A pool of liteservers: one connection each (ADNL over TCP unless `connect` says otherwise), each tracking its own masterchain head with
// waitMasterchainSeqno long-polls. A query goes to the fastest server whose head covers the seqno
// it needs, and fails over to the next on a timeout, a dropped connection or a "not ready" error.
// Every server is tried at most once per query, so a dead network is an error, never a loop.
import { LiteErrorCode, LiteServerError } from '../tl/envelope.js';
import type { BlockIdExt, LiteMethodName, RequestOf, ResponseOf } from '../tl/lite-api.js';
import { AdnlClient } from './adnl.js';
import { Wakeup } from './wakeup.js';
import { AdnlError, type LiteConnection, type LiteQueryOptions, type LiteTransport, type QueryRecorder } from './types.js';

export interface PoolServer {
  host: string;
  port: number;
  /** ed25519 public key (32 bytes). */
  publicKey: Buffer;
}

export interface LitePoolOptions {
  servers: readonly PoolServer[];
  connectTimeoutMs?: number;
  /** Per-attempt timeout of a query (each failover attempt gets its own). */
  queryTimeoutMs?: number;
  pingIntervalMs?: number;
  /** Timeout of each head long-poll (waitMasterchainSeqno); public servers accept up to ~10 s. */
  headPollMs?: number;
  /** Reconnect delay: starts at `minMs`, doubles per failed attempt up to `maxMs`. */
  backoff?: { minMs?: number; maxMs?: number };
  /** How long a demoted server is used only when no other can answer. */
  demoteForMs?: number;
  record?: QueryRecorder;
  /**
   * Opens the connection to one server; default ADNL over TCP. Another kind (an in-process handler, a
   * replayed recording) takes the pool's timeouts and `record` as it can.
   */
  connect?: (server: PoolServer, settings: ConnectSettings) => Promise<LiteConnection>;
  /** Every head change, failure, demotion and (dis)connection, for /metrics and logs. */
  onEvent?: (event: PoolEvent) => void;
}

/** What the pool hands `connect` for each connection. */
export interface ConnectSettings {
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  pingIntervalMs?: number;
  record?: QueryRecorder;
}

/** The default connection: ADNL over TCP to the server's address, with its key. */
export const adnlConnect = (server: PoolServer, settings: ConnectSettings): Promise<LiteConnection> =>
  AdnlClient.connect({ host: server.host, port: server.port, publicKey: server.publicKey, ...settings });

export type PoolEvent =
  | { type: 'connected'; server: string }
  | { type: 'disconnected'; server: string; reason: string; retryInMs: number }
  | { type: 'head'; server: string; seqno: number }
  | { type: 'failure'; server: string; method: LiteMethodName; reason: string }
  | { type: 'demoted'; server: string; reason: string; cause: DemotionCause };

/**
 * Why a server was demoted: a reply whose proof failed, a head that lags the best proven head, or a block
 * refused ("not in db") that its own head and history say it has (both withholding).
 */
export type DemotionCause = 'disproven' | 'lagging' | 'withheld';

export interface ServerCounters {
  queries: number;
  failures: number;
  timeouts: number;
  /** Replies whose proof check failed. */
  disproven: number;
  /** Demotions for a head lagging the best proven head (kept apart: a lagging server proved nothing false). */
  lagging: number;
  /** Blocks refused ("not in db") that the server's own head and history say it has. */
  withheld: number;
  reconnects: number;
}

export interface ServerStatus extends ServerCounters {
  server: string;
  state: 'connecting' | 'up' | 'down';
  head?: BlockIdExt;
  /** Smoothed round trip of answered queries and pings, ms. */
  latencyMs?: number;
  demoted: boolean;
  lastError?: string;
}

export interface PoolStatus {
  /** At least one server is connected and has reported a head. */
  ready: boolean;
  /** Why not ready, naming each server's last failure. */
  reason?: string;
  servers: ServerStatus[];
}

export interface PoolQueryOptions extends LiteQueryOptions {
  /** Only servers whose head is at least this masterchain seqno are asked. */
  minSeqno?: number;
  /** Ask this server first (host:port), e.g. to keep a block walk on one server. */
  prefer?: string;
  /** Never ask these servers (host:port), e.g. to hear a second opinion. */
  exclude?: readonly string[];
  /**
   * A liteServer.error from the server is its answer, not a failure: thrown as it is, not counted against
   * the server, no other server asked (an optional method a server may not serve, e.g. nonfinal.*).
   */
  refusalIsAnswer?: boolean;
}

/** One server's failed attempt at a query (before another answered, or none could). */
export interface QueryFailure {
  server: string;
  error: Error;
}

/** No server could answer: `status` says why for each one, `failures` what each server asked answered. */
export class LitePoolUnavailableError extends Error {
  override readonly name = 'LitePoolUnavailableError';
  constructor(
    message: string,
    readonly status: PoolStatus,
    readonly failures: readonly QueryFailure[] = [],
  ) {
    super(message);
  }
}

/** Errors after which another server may well answer. Other liteServer.errors are about the request. */
function worthFailover(e: unknown): boolean {
  if (e instanceof AdnlError) return true;
  return e instanceof LiteServerError && ([LiteErrorCode.notReady, LiteErrorCode.error, LiteErrorCode.timeout] as number[]).includes(e.code);
}

class Member {
  readonly name: string;
  state: ServerStatus['state'] = 'connecting';
  client?: LiteConnection;
  head?: BlockIdExt;
  latencyMs?: number;
  demotedUntil = 0;
  lastError?: string;
  nextDelayMs: number;
  readonly counters: ServerCounters = { queries: 0, failures: 0, timeouts: 0, disproven: 0, lagging: 0, withheld: 0, reconnects: 0 };

  constructor(readonly config: PoolServer, minDelayMs: number) {
    this.name = `${config.host}:${config.port}`;
    this.nextDelayMs = minDelayMs;
  }

  observeLatency(ms: number): void {
    this.latencyMs = this.latencyMs === undefined ? ms : this.latencyMs * 0.7 + ms * 0.3;
  }
}

export class LitePool implements LiteTransport {
  private readonly members: Member[];
  /** Waits for a state or head change (a query waiting for a server, waitReady). */
  private readonly changes = new Wakeup();
  private closed = false;
  private readonly loops: Promise<void>[];
  /** Reconnect backoffs, cut short by close. */
  private readonly backoff = new Wakeup();

  constructor(private readonly options: LitePoolOptions) {
    if (options.servers.length === 0) throw new Error('liteserver pool needs at least one server');
    const minDelay = options.backoff?.minMs ?? 500;
    this.members = options.servers.map((s) => new Member(s, minDelay));
    const names = new Set(this.members.map((m) => m.name));
    if (names.size !== this.members.length) throw new Error('liteserver pool lists the same host:port twice');
    this.loops = this.members.map((m) => this.follow(m));
  }

  /** Current state of every server, and whether the pool can answer. */
  status(): PoolStatus {
    const now = Date.now();
    const servers = this.members.map((m): ServerStatus => ({
      server: m.name, state: m.state, head: m.head, latencyMs: m.latencyMs, demoted: m.demotedUntil > now,
      lastError: m.lastError, ...m.counters,
    }));
    const ready = this.members.some((m) => m.state === 'up' && m.head);
    if (ready) return { ready, servers };
    // an error that starts with its server's name (the transport's) does not repeat it
    const error = (s: ServerStatus) => s.lastError?.replace(`liteserver ${s.server}: `, '');
    const why = servers.map((s) => `${s.server} ${s.state}${s.lastError ? `: ${error(s)}` : ''}`).join('; ');
    return { ready, reason: `no liteserver is ready (${why})`, servers };
  }

  /** Resolves once a server is up with a head; rejects after `timeoutMs` with the reason. */
  async waitReady(timeoutMs: number): Promise<PoolStatus> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = this.status();
      if (s.ready) return s;
      if (this.closed) throw new LitePoolUnavailableError('liteserver pool is closed', s);
      const left = deadline - Date.now();
      if (left <= 0) throw new LitePoolUnavailableError(s.reason!, s);
      await this.changes.wait(left);
    }
  }

  /** Highest masterchain seqno any connected server has reported. */
  get headSeqno(): number | undefined {
    let best: number | undefined;
    for (const m of this.members) if (m.state === 'up' && m.head && (best === undefined || m.head.seqno > best)) best = m.head.seqno;
    return best;
  }

  /**
   * Demotes a server (the proof, trust and walk layers call this): a disproven reply (the default), a lagging
   * head or a withheld block is counted under its cause, reported through onEvent, and the server is asked only
   * when no other can answer, for `demoteForMs`.
   */
  demote(server: string, reason: string, cause: DemotionCause = 'disproven'): void {
    const m = this.members.find((x) => x.name === server);
    if (!m) return;
    m.counters[cause]++;
    m.demotedUntil = Date.now() + (this.options.demoteForMs ?? 5 * 60_000);
    m.lastError = `${cause}: ${reason}`;
    this.emit({ type: 'demoted', server, reason, cause });
  }

  async query<M extends LiteMethodName>(method: M, request: RequestOf<M>, options: PoolQueryOptions = {}): Promise<ResponseOf<M>> {
    return (await this.queryWithServer(method, request, options)).response;
  }

  /**
   * Like query, and says which server answered (so a disproven reply can be demoted) and which servers
   * failed before it (so a refused block can be judged).
   */
  async queryWithServer<M extends LiteMethodName>(
    method: M, request: RequestOf<M>, options: PoolQueryOptions = {},
  ): Promise<{ response: ResponseOf<M>; server: string; failures: QueryFailure[] }> {
    const tried = new Set<Member>();
    const errors: string[] = [];
    const failures: QueryFailure[] = [];
    const deadline = Date.now() + (options.timeoutMs ?? this.options.queryTimeoutMs ?? 10_000) + (options.wait?.timeoutMs ?? 0);
    for (;;) {
      if (this.closed) throw new LitePoolUnavailableError('liteserver pool is closed', this.status());
      const m = this.pick(tried, options);
      if (!m) {
        // Wait only while some untried server may still come up or catch up; otherwise say why.
        const hope = this.members.some((x) => !tried.has(x) && !options.exclude?.includes(x.name) && x.state !== 'down');
        const left = deadline - Date.now();
        if (hope && left > 0) {
          await this.changes.wait(left);
          continue;
        }
        const need = options.minSeqno !== undefined ? ` with masterchain head ≥ ${options.minSeqno}` : '';
        const s = this.status();
        const detail = [...errors, ...s.servers.filter((x) => !errors.some((e) => e.startsWith(x.server)))
          .map((x) => `${x.server} ${x.state}${x.head ? ` at ${x.head.seqno}` : ''}${x.lastError ? `: ${x.lastError}` : ''}`)];
        throw new LitePoolUnavailableError(`no liteserver${need} could answer ${method} (${detail.join('; ')})`, s, failures);
      }
      tried.add(m);
      m.counters.queries++;
      const started = performance.now();
      try {
        const response = await m.client!.query(method, request, options);
        if (!options.wait) m.observeLatency(performance.now() - started);
        return { response, server: m.name, failures };
      } catch (e) {
        if (!worthFailover(e) || (options.refusalIsAnswer && e instanceof LiteServerError)) throw e;
        const reason = (e as Error).message;
        m.counters.failures++;
        if (e instanceof AdnlError && e.kind === 'timeout') m.counters.timeouts++;
        m.lastError = reason;
        errors.push(`${m.name}: ${reason}`);
        failures.push({ server: m.name, error: e as Error });
        this.emit({ type: 'failure', server: m.name, method, reason });
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.backoff.wakeAll();
    this.notify();
    await Promise.all(this.members.map((m) => m.client?.close()));
    await Promise.all(this.loops);
  }

  /** The fastest eligible server not tried yet; demoted ones only when nothing else qualifies. */
  private pick(tried: Set<Member>, options: PoolQueryOptions): Member | undefined {
    const now = Date.now();
    const eligible = this.members.filter((m) => !tried.has(m) && !options.exclude?.includes(m.name) && m.state === 'up' && m.client && !m.client.closed
      && (options.minSeqno === undefined || (m.head !== undefined && m.head.seqno >= options.minSeqno)));
    const rank = (m: Member) => (m.name === options.prefer ? -1e12 : 0) + (m.demotedUntil > now ? 1e9 : 0) + (m.latencyMs ?? 1e6);
    return eligible.sort((a, b) => rank(a) - rank(b))[0];
  }

  /** One server's life: connect, follow its head by long-polls, reconnect with backoff when it fails. */
  private async follow(m: Member): Promise<void> {
    const minDelay = this.options.backoff?.minMs ?? 500;
    const maxDelay = this.options.backoff?.maxMs ?? 30_000;
    const pollMs = this.options.headPollMs ?? 10_000;
    while (!this.closed) {
      m.state = 'connecting';
      this.notify();
      try {
        const started = performance.now();
        const client = await (this.options.connect ?? adnlConnect)(m.config, {
          connectTimeoutMs: this.options.connectTimeoutMs, queryTimeoutMs: this.options.queryTimeoutMs,
          pingIntervalMs: this.options.pingIntervalMs, record: this.options.record,
        });
        if (this.closed) return void (await client.close());
        m.client = client;
        m.observeLatency(performance.now() - started);
        const info = await client.query('getMasterchainInfo', {});
        m.head = undefined; // after a reconnect the server may be behind where it was
        this.setHead(m, info.last);
        m.state = 'up';
        m.nextDelayMs = minDelay;
        this.emit({ type: 'connected', server: m.name });
        this.notify();
        while (!this.closed) {
          try {
            const next = await client.query('getMasterchainInfo', {}, { wait: { seqno: m.head!.seqno + 1, timeoutMs: pollMs } });
            this.setHead(m, next.last);
          } catch (e) {
            if (!(e instanceof LiteServerError && e.code === LiteErrorCode.timeout)) throw e; // 652: no new block yet
          }
        }
      } catch (e) {
        if (this.closed) return;
        m.client?.close().catch(() => {});
        m.client = undefined;
        m.state = 'down';
        m.lastError = (e as Error).message;
        m.counters.reconnects++;
        const delay = m.nextDelayMs;
        m.nextDelayMs = Math.min(maxDelay, m.nextDelayMs * 2);
        this.emit({ type: 'disconnected', server: m.name, reason: m.lastError, retryInMs: delay });
        this.notify();
        await this.backoff.wait(delay);
      }
    }
  }

  private setHead(m: Member, head: BlockIdExt): void {
    if (m.head && head.seqno <= m.head.seqno) return;
    m.head = head;
    this.emit({ type: 'head', server: m.name, seqno: head.seqno });
    this.notify();
  }

  private emit(e: PoolEvent): void {
    try {
      this.options.onEvent?.(e);
    } catch {
      // a listener's failure must not break the pool
    }
  }

  private notify(): void {
    this.changes.wakeAll();
  }
}
