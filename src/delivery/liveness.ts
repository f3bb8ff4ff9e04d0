// A delivery worker's liveness on PostgreSQL: an advisory lock keyed by the worker's name, held by a
// connection of its own (Store.connect). PostgreSQL frees it the moment the session ends — the
// process killed, its connection reset — or, cut off silently, once the session has been idle for
// SESSION_IDLE_MS; then any other worker finds the name's lock free and takes its keys over
// (leases.ts, markDead). The worker pings its session and, the moment a ping fails or is late, stops
// sending and cuts its attempts in flight, so none outlasts its leases; it then takes the lock again
// under a new name (a name's leases are never held twice) and keeps those of its keys nobody took.
// The same session LISTENs for new deliveries, so a worker reads rows another process committed at once.
import type { Logger } from 'pino';
import type pg from 'pg';
import type { Store } from '../store/db.js';
import { tryMemberLock } from '../store/locks.js';
import { KEYS_GIVEN_AWAY, OUTBOX_CHANNEL } from './outbox.js';

/** How often the session is pinged. */
const PING_MS = 500;
/**
 * A ping unanswered this long means the session is lost: at most PING_MS + this after the last answer's
 * ping went out, before the server can end a silent session (SESSION_IDLE_MS after it last heard from it).
 */
const PING_TIMEOUT_MS = 2500;
/** The server ends a session silent this long, freeing the lock of a worker cut off. */
const SESSION_IDLE_MS = 5000;
/** Waits between attempts to take the lock again: short at first, then every half second. */
const RETRY_MS = [50, 250, 500];

export interface LivenessOptions {
  store: Store;
  /** The worker's name; later sessions are `<name>~2`, `<name>~3`, … */
  name: string;
  logger?: Logger;
  /** The lock is held as `owner`; `previous`: the name before, whose lock was lost. */
  alive(owner: string, previous: string | null): Promise<void>;
  /** The lock is (or may be) gone: stop every attempt now. */
  lost(owner: string): void;
  /** Deliveries were committed (by any process), or (`keysGivenAway`) a worker gave leases away. */
  committed(keysGivenAway: boolean): void;
}

export class WorkerLiveness {
  private stopped = false;
  private loop: Promise<void> | null = null;
  private client: pg.Client | null = null;
  private session = 0;
  private owner: string | null = null;
  private last: string | null = null;
  private wake: (() => void) | null = null;

  constructor(private readonly o: LivenessOptions) {}

  /** Whether the lock is held and its session answered within PING_TIMEOUT_MS. */
  get alive(): boolean {
    return this.owner !== null;
  }

  /** Starts holding the lock; resolves after the first try (held, or failed and retrying in the background). */
  start(): Promise<void> {
    return new Promise((resolve) => {
      this.loop = this.run(resolve);
    });
  }

  /** Ends the session (the lock with it). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.client?.end().catch(() => {});
    await this.loop;
  }

  private nextName(): string {
    return ++this.session === 1 ? this.o.name : `${this.o.name}~${this.session}`;
  }

  private async run(started: () => void): Promise<void> {
    for (let failures = 0; !this.stopped; ) {
      let client: pg.Client | null = null;
      try {
        client = await this.o.store.connect!(`tonwatch webhooks ${this.o.name}`);
        this.client = client;
        await client.query(`set idle_session_timeout = ${SESSION_IDLE_MS}`).catch((err) => {
          if ((err as { code?: string }).code !== '42704') throw err;
          this.o.logger?.warn('this PostgreSQL has no idle_session_timeout (before 14): a webhook worker cut off from it keeps its keys until TCP drops the connection');
        });
        // Taken by someone else: an earlier process of this name not gone yet (or a hash collision).
        let owner = this.nextName();
        while (!(await tryMemberLock(client, 'deliveryWorker', owner))) owner = this.nextName();
        this.owner = owner;
        const { rows } = await client.query<{ channel: string }>(`select ${OUTBOX_CHANNEL} as channel`);
        await client.query(`LISTEN "${rows[0]!.channel.replace(/"/g, '""')}"`);
        // Its own announcements aside: this worker took those rows from memory already.
        client.on('notification', (n) => n.payload !== this.o.name && this.o.committed(n.payload === KEYS_GIVEN_AWAY));
        await this.o.alive(owner, this.last);
        this.last = owner;
        failures = 0;
        started();
        if (this.session > 1) this.o.logger?.info({ owner }, 'webhook worker holds its liveness lock again');
        const reason = await this.watch(client);
        this.owner = null;
        this.o.lost(owner);
        if (!this.stopped) this.o.logger?.warn({ owner, reason }, 'webhook worker lost its liveness lock; attempts cut, taking it again');
      } catch (err) {
        if (this.owner !== null) {
          this.o.lost(this.owner);
          this.owner = null;
        }
        if (!this.stopped) this.o.logger?.warn({ err }, 'taking the webhook worker liveness lock failed; retrying');
        failures++;
      } finally {
        started();
        await client?.end().catch(() => {});
        this.client = null;
      }
      if (!this.stopped && failures > 0) await this.pause(RETRY_MS[Math.min(failures, RETRY_MS.length) - 1]!);
    }
  }

  /** Resolves, with why, when the session ends, a ping fails or is late, or the worker stops. */
  private watch(client: pg.Client): Promise<string> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let sent = 0;
      let answered = true;
      let ended = false;
      const end = (reason: string) => {
        if (ended) return;
        ended = true;
        clearInterval(timer);
        client.off('end', onEnd);
        this.wake = null;
        resolve(reason);
      };
      const onEnd = () => end('its session ended');
      client.once('end', onEnd);
      this.wake = () => end('stopping');
      timer = setInterval(() => {
        if (!answered) {
          // After the I/O already waiting: a blocked event loop is not a silent server.
          if (performance.now() - sent > PING_TIMEOUT_MS) setImmediate(() => !answered && end(`no answer within ${PING_TIMEOUT_MS} ms`));
          return;
        }
        answered = false;
        sent = performance.now();
        client.query('select 1').then(
          () => (answered = true),
          (err: Error) => end(`its session failed (${err.message})`),
        );
      }, PING_MS);
    });
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(t);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }
}
