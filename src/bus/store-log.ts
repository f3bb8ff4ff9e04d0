// The embedded event log: batches are rows of `event_batches` in the store, appended by the
// follower (`appendBatch`) in one transaction with its cursor; live readers are notified after
// commit. Recent batches stay in memory so live consumers and short resumes never touch the
// database.
import type { Kysely } from 'kysely';
import type { Store } from '../store/db.js';
import { toNum } from '../store/db.js';
import { decodeEvents, encodeEvents } from './codec.js';
import type { EventBatch, Position } from './events.js';
import type { EventLog, EventLogWriter } from './types.js';

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

  async appendBatch(batch: EventBatch, alsoInTransaction?: (trx: Kysely<any>) => Promise<void>): Promise<void> {
    await this.store.db.transaction().execute(async (trx) => {
      await this.append(trx, batch);
      await alsoInTransaction?.(trx);
    });
    this.published(batch);
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
