// The embedded event log: batches are rows of `event_batches` in the store, appended by the
// follower (`appendBatch`) in one transaction with its cursor; live readers are notified after
// commit. Recent batches stay in memory so live consumers and short resumes never touch the
// database. In a cluster the writer is fenced by its leadership term, each commit is announced on
// PostgreSQL (NOTIFY, the position only) and other processes read the batch from the table
// (`catchUp`, driven by store-follow.ts).
import { sql, type Kysely } from 'kysely';
import type { Store } from '../store/db.js';
import { toNum } from '../store/db.js';
import { decodeEvents, encodeEvents } from './codec.js';
import type { EventBatch, Position } from './events.js';
import { checkTerm, FencedError } from './leadership.js';
import type { EventLog, EventLogWriter } from './types.js';

/** The leadership role whose term fences the log's writer. */
export const WRITER_ROLE = 'follower';

interface EventLogTables {
  event_batches: {
    first_position: bigint;
    last_position: bigint;
    mc_seqno: bigint;
    kind: string;
    event_count: bigint;
    payload: Uint8Array;
    appended_at: bigint;
  };
}

export interface StoreEventLogOptions {
  /** How long appended batches are kept (the newest is always kept). */
  retentionMs: number;
  /** Most recent batches kept in memory. */
  recentBatches?: number;
  /**
   * Most events those batches may hold together (the newest batch is always kept): with big
   * blocks, 256 batches of 1,000 transactions held ~400 MB of heap and slowed the follower by GC.
   */
  recentEvents?: number;
  now?: () => number;
}

export class StoreEventLog implements EventLog, EventLogWriter {
  private readonly db: Kysely<EventLogTables>;
  private readonly listeners = new Set<(batch: EventBatch) => void>();
  private readonly recent: EventBatch[] = [];
  private readonly recentLimit: number;
  private readonly recentEventLimit: number;
  private recentEventCount = 0;
  private readonly now: () => number;
  private head: Position | null = null;
  private oldest: Position | null = null;
  /** Every batch with lastPosition > recentFloor is in `recent` (the window is contiguous). */
  private recentFloor: Position = Number.MAX_SAFE_INTEGER;
  /** The writer's leadership term when fenced (cluster); 'deposed' refuses every append. */
  private term: number | 'deposed' | null = null;
  /** PostgreSQL channel announcing appends to other processes, once `announce` is on. */
  private channel: string | null = null;
  private catchingUp: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly options: StoreEventLogOptions,
  ) {
    this.db = store.db as Kysely<EventLogTables>;
    this.recentLimit = options.recentBatches ?? 256;
    this.recentEventLimit = options.recentEvents ?? 20_000;
    this.now = options.now ?? Date.now;
  }

  async resync(): Promise<void> {
    await this.open();
  }

  /** Loads the head position; call once before use. */
  async open(): Promise<void> {
    const row = await this.db
      .selectFrom('event_batches')
      .select((eb) => eb.fn.max('last_position').as('head'))
      .executeTakeFirst();
    this.head = row?.head == null ? null : toNum(row.head);
    this.recentFloor = this.head ?? -1;
    await this.loadOldest();
  }

  private async loadOldest(): Promise<void> {
    const row = await this.db
      .selectFrom('event_batches')
      .select((eb) => eb.fn.min('first_position').as('oldest'))
      .executeTakeFirst();
    this.oldest = row?.oldest == null ? null : toNum(row.oldest);
  }

  headPosition(): Position | null {
    return this.head;
  }

  async oldestPosition(): Promise<Position | null> {
    return this.oldest;
  }

  /** From now on, appends commit only while `term` is the writer role's newest (checked in their transaction). */
  lead(term: number): void {
    this.term = term;
  }

  /** Another process leads (or may): every append fails from now on, before it touches the store. */
  depose(): void {
    this.term = 'deposed';
  }

  /** Turns announcing on; returns the PostgreSQL channel that announces appends to this store's other processes. */
  async announceChannel(): Promise<string> {
    this.channel ??= await schemaChannel(this.store.db, 'tonwatch_events');
    return this.channel;
  }

  /** Appends and the singletons' consumer steps commit only under the newest term (EventLog.fence). */
  async fence(trx: Kysely<any>): Promise<void> {
    const term = this.term;
    if (term === 'deposed') throw new FencedError(WRITER_ROLE, -1);
    if (term !== null) await checkTerm(trx, WRITER_ROLE, term);
  }

  async appendBatch(batch: EventBatch, alsoInTransaction?: (trx: Kysely<any>) => Promise<void>): Promise<void> {
    // refused before touching the store once this process knows it was deposed
    if (this.term === 'deposed') throw new FencedError(WRITER_ROLE, -1);
    const channel = this.channel;
    await this.store.db.transaction().execute(async (trx) => {
      await this.fence(trx);
      await this.append(trx, batch);
      await alsoInTransaction?.(trx);
      // delivered by PostgreSQL when (and only if) the transaction commits
      if (channel) await sql`select pg_notify(${channel}, ${String(batch.lastPosition)})`.execute(trx);
    });
    this.published(batch);
  }

  /**
   * Publishes the batches other processes committed after this one's head, in order (one catch-up at
   * a time); call on an announcement, on a slow timer, and before writing as a new leader.
   */
  catchUp(): Promise<void> {
    const run = this.catchingUp.then(async () => {
      for (;;) {
        const after = this.head ?? -1;
        const batches = await this.readFromStore(after, 64);
        const fresh = batches.filter((b) => b.firstPosition > (this.head ?? -1));
        for (const batch of fresh) this.published(batch);
        if (batches.length < 64) break;
      }
      await this.loadOldest();
    });
    this.catchingUp = run.catch(() => {});
    return run;
  }

  /** Writes a batch inside the caller's transaction; call `published` after it commits (appendBatch does both). */
  async append(trx: Kysely<any>, batch: EventBatch): Promise<void> {
    if (this.head !== null && batch.firstPosition <= this.head) {
      throw new Error(`event log append out of order: ${batch.firstPosition} after head ${this.head}`);
    }
    await (trx as Kysely<EventLogTables>)
      .insertInto('event_batches')
      .values({
        first_position: BigInt(batch.firstPosition),
        last_position: BigInt(batch.lastPosition),
        mc_seqno: BigInt(batch.mcSeqno),
        kind: batch.kind,
        event_count: BigInt(batch.events.length),
        payload: encodeEvents(batch.events),
        appended_at: BigInt(this.now()),
      })
      .execute();
  }

  /** Makes a committed batch visible to readers and live listeners, in order. */
  published(batch: EventBatch): void {
    // a catch-up may have published it already (it read the commit before this process's own answer came)
    if (this.head !== null && batch.lastPosition <= this.head) return;
    this.head = batch.lastPosition;
    this.oldest ??= batch.firstPosition;
    this.recent.push(batch);
    this.recentEventCount += batch.events.length;
    let evict = 0;
    while (
      evict < this.recent.length - 1 &&
      (this.recent.length - evict > this.recentLimit || this.recentEventCount > this.recentEventLimit)
    ) {
      this.recentEventCount -= this.recent[evict]!.events.length;
      evict++;
    }
    if (evict > 0) {
      const evicted = this.recent.splice(0, evict);
      this.recentFloor = evicted[evicted.length - 1]!.lastPosition;
    }
    for (const listener of this.listeners) listener(batch);
  }

  async readAfter(after: Position, maxBatches: number): Promise<EventBatch[]> {
    const fromMemory = this.readRecent(after, maxBatches);
    if (fromMemory) return fromMemory;
    return this.readFromStore(after, maxBatches);
  }

  private async readFromStore(after: Position, maxBatches: number): Promise<EventBatch[]> {
    const rows = await this.db
      .selectFrom('event_batches')
      .select(['first_position', 'last_position', 'mc_seqno', 'kind', 'payload'])
      .where('last_position', '>', BigInt(after))
      .orderBy('first_position')
      .limit(maxBatches)
      .execute();
    return rows.map((r) => ({
      kind: r.kind as EventBatch['kind'],
      mcSeqno: toNum(r.mc_seqno),
      firstPosition: toNum(r.first_position),
      lastPosition: toNum(r.last_position),
      events: decodeEvents(r.payload),
    }));
  }

  /** Serves a read from memory when the in-memory window covers `after`; null otherwise. */
  private readRecent(after: Position, maxBatches: number): EventBatch[] | null {
    if (this.head !== null && after >= this.head) return [];
    if (after < this.recentFloor) return null;
    const out: EventBatch[] = [];
    for (const batch of this.recent) {
      if (batch.lastPosition <= after) continue;
      out.push(batch);
      if (out.length >= maxBatches) break;
    }
    return out;
  }

  subscribe(listener: (batch: EventBatch) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Deletes batches older than the retention, always keeping the newest; returns how many went. */
  async prune(): Promise<number> {
    const cutoff = BigInt(this.now() - this.options.retentionMs);
    const head = this.head;
    if (head === null) return 0;
    const result = await this.db
      .deleteFrom('event_batches')
      .where('appended_at', '<', cutoff)
      .where('last_position', '<', BigInt(head))
      .executeTakeFirst();
    const deleted = toNum(result.numDeletedRows);
    if (deleted > 0) await this.loadOldest();
    return deleted;
  }
}

/** A PostgreSQL channel name for `name` in the store's schema (channels are per database). */
export async function schemaChannel(db: Kysely<any>, name: string): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return `${name}:${rows[0]!.schema}`.slice(0, 63);
}
