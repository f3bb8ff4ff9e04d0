// Who leads the follower role (the chain → event log writer and the singletons). Alone (no cluster)
// this process leads from the start. In a cluster every process with the role asks for a PostgreSQL
// advisory lock on a connection of its own; the one that gets it takes the next term (the fence of
// the log's writer, bus/leadership.ts) and leads until that connection fails or it stops. A killed
// leader's session ends and its lock with it; a leader cut off from the database stops writing the
// moment it notices, and the server ends its session soon after (idle_session_timeout), so a standby
// takes over within seconds.
import type { Logger } from 'pino';
import type pg from 'pg';
import { takeTerm } from '../bus/leadership.js';
import { WRITER_ROLE, type StoreEventLog } from '../bus/store-log.js';
import type { Store } from '../store/db.js';
import { advisoryLock } from '../store/locks.js';

/** Longest single wait of a standby in the lock. */
const WAIT_MS = 30_000;

/** Waits for the leader lock; false when the wait timed out (ask again). */
async function waitForLock(client: pg.Client): Promise<boolean> {
  try {
    await advisoryLock(client, 'leader');
    return true;
  } catch (err) {
    // 57014: the statement timeout, not a failure
    if ((err as { code?: string }).code === '57014') return false;
    throw err;
  }
}

export interface LeadershipOptions {
  store: Store;
  log: StoreEventLog;
  cluster: boolean;
  /** Names this process in the leadership row and the lock's session. */
  holder: string;
  logger: Logger;
  now: () => number;
  /** Starts the leader's work (the follower, the singletons); the log is fenced with the term already. */
  lead(term: number | null): Promise<void>;
  /** Stops what `lead` started; the log refuses appends already. */
  depose(): Promise<void>;
  /** Wait before asking again after a failure (no database, a lost connection). */
  retryMs?: number;
  /** The leader checks its lock's connection this often. */
  checkMs?: number;
}

export interface LeadershipStatus {
  leader: boolean;
  term: number | null;
  /** When this process last took or lost the lead (ms). */
  since: number | null;
}

export class Leadership {
  private stopped = false;
  private loop: Promise<void> | null = null;
  private client: pg.Client | null = null;
  private wakeStandby: (() => void) | null = null;
  private lost: (() => void) | null = null;
  private state: LeadershipStatus = { leader: false, term: null, since: null };

  constructor(private readonly options: LeadershipOptions) {}

  status(): LeadershipStatus {
    return { ...this.state };
  }

  /** Leads at once when alone; in a cluster starts asking for the lead in the background. */
  async start(): Promise<void> {
    if (!this.options.cluster) {
      await this.options.lead(null);
      this.state = { leader: true, term: null, since: this.options.now() };
      return;
    }
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeStandby?.();
    this.lost?.();
    // a standby waiting in the lock: ending its session ends the wait
    if (!this.state.leader) await this.client?.end().catch(() => {});
    if (this.loop) await this.loop;
    else if (this.state.leader) await this.stepDown();
  }

  private async run(): Promise<void> {
    const { store, logger } = this.options;
    const retryMs = this.options.retryMs ?? 1000;
    while (!this.stopped) {
      try {
        const client = await store.connect!(`tonwatch leader ${this.options.holder}`);
        this.client = client;
        // a session the server no longer hears from ends, and its lock with it (PostgreSQL 14 and later;
        // older servers free it only when TCP gives up on the connection)
        await client.query(`set idle_session_timeout = ${Math.max(3 * (this.options.checkMs ?? 1000), 5000)}`).catch((err) => {
          if ((err as { code?: string }).code !== '42704') throw err;
          logger.warn('this PostgreSQL has no idle_session_timeout (before 14): a leader cut off from it keeps the lead until TCP drops the connection');
        });
        // a standby waits in the lock, so PostgreSQL hands it over the moment the leader's session ends;
        // the wait is cut every WAIT_MS so a standby whose connection died silently notices
        await client.query(`set statement_timeout = ${WAIT_MS}`);
        while (!this.stopped && !(await waitForLock(client))) {}
        if (this.stopped) break;
        await this.leadUntilLost(client);
      } catch (err) {
        if (!this.stopped) logger.error({ err }, 'follower leadership failed; standing by');
      } finally {
        if (this.state.leader) await this.stepDown();
        await this.client?.end().catch(() => {});
        this.client = null;
      }
      if (!this.stopped) await this.standBy(retryMs);
    }
  }

  private async leadUntilLost(client: pg.Client): Promise<void> {
    const { store, log, logger, now } = this.options;
    const checkMs = this.options.checkMs ?? 1000;
    let lostReason: string | null = null;
    let timer: NodeJS.Timeout | undefined;
    const lost = new Promise<void>((resolve) => {
      this.lost = () => resolve();
      const lose = (reason: string) => {
        if (lostReason !== null) return;
        lostReason = reason;
        // stop writing at once: appends in flight fail their fence, new ones are refused here
        log.depose();
        resolve();
      };
      client.once('end', () => lose('its database connection ended'));
      let checking = false;
      timer = setInterval(() => {
        if (checking) return;
        checking = true;
        const answered = client.query('select 1');
        const late = new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${checkMs * 3} ms`)), checkMs * 3).unref());
        Promise.race([answered, late]).then(
          () => (checking = false),
          (err) => lose(`its database connection failed (${(err as Error).message})`),
        );
      }, checkMs);
      timer.unref();
    });
    const term = await takeTerm(store.db, WRITER_ROLE, this.options.holder, now());
    log.lead(term);
    this.state = { leader: true, term, since: now() };
    logger.info({ term }, 'this process leads the follower role');
    // the previous leader's last commits, before writing after them
    await log.catchUp();
    await this.options.lead(term);
    await lost;
    clearInterval(timer);
    this.lost = null;
    if (lostReason) logger.error({ term, reason: lostReason }, 'follower leadership lost: stopped writing');
  }

  /** Stops the leader's work (a clean stop lets the block in progress commit), then refuses appends. */
  private async stepDown(): Promise<void> {
    const term = this.state.term;
    this.state = { leader: false, term: null, since: this.options.now() };
    await this.options.depose().catch((err) => this.options.logger.error({ err, term }, 'stopping the leader work failed'));
    this.options.log.depose();
  }

  private standBy(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeStandby = () => {
        this.wakeStandby = null;
        done();
      };
    });
  }
}
