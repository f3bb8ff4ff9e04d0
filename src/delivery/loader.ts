// Loading the outbox into the worker's queues: newly committed rows (handed over by the producer
// or read after the last loaded id), the PostgreSQL rescan for ids that committed late, admitting
// rows with their endpoints, and the flagging and reloading of rows parked over a key's memory cap.
import type { Logger } from 'pino';
import { toNum, type Store } from '../store/db.js';
import * as ep from './endpoints.js';
import { leaseKeyOf, type KeyLeases, type LeaseKey } from './leases.js';
import * as outbox from './outbox.js';
import type { DeliveryQueues, Queue } from './queues.js';
import { chunks, deliveryDb } from './tables.js';
import type { Endpoint, PendingDelivery } from './types.js';

/** Rows per outbox read: each read blocks the event loop, so a few ms at most. */
const LOAD_BATCH = 1000;
/** Ids per page of the PostgreSQL rescan. */
const RESCAN_PAGE = 10_000;
/** Expired leases taken over per poll. */
const TAKEOVER_BATCH = 500;
/** Keys whose rows one statement reads after a takeover. */
const KEYS_PER_READ = 500;

export interface LoaderOptions {
  store: Store;
  logger?: Logger;
  queues: DeliveryQueues;
  /** The worker's live endpoints; admitting a row loads its endpoint here. */
  endpoints: Map<number, Endpoint>;
  memoryLimit: number;
  perKeyLimit: number;
  /** PostgreSQL: only rows of keys whose lease this worker holds are admitted (many workers). */
  leases: KeyLeases | null;
  isRunning(): boolean;
  /** Starts the attempts that became due. */
  pump(): void;
}

export class QueueLoader {
  private loadedUpTo = 0;
  private loading: Promise<void> | null = null;
  private loadAgain = false;
  private full = false;
  private readonly rescanFloors: number[] = [];
  /** Lease keys whose rows are being read by key (loadKey); other reads leave their rows to it. */
  private readonly loadingKeys = new Set<string>();
  /** Flagging of parked rows (queues.ts), one batch after another. */
  private parking: Promise<void> = Promise.resolve();

  constructor(private readonly o: LoaderOptions) {}

  private get queues(): DeliveryQueues {
    return this.o.queues;
  }

  private get endpoints(): Map<number, Endpoint> {
    return this.o.endpoints;
  }

  /** The last load stopped at the memory limit (the worker loads again once half is free). */
  get memoryFull(): boolean {
    return this.full;
  }

  /** Resolves when no load is running. */
  async idle(): Promise<void> {
    await this.loading;
  }

  /**
   * Reads newly committed pending deliveries into memory. `committed`: rows a producer has just
   * committed (its enqueue receipt); taken as they are when they are exactly the next ids, else read.
   */
  loadNew(committed?: readonly PendingDelivery[]): Promise<void> {
    if (this.loading) {
      this.loadAgain = true;
      return this.loading;
    }
    let handed = committed && this.followOn(committed) ? committed : null;
    // Cleared after the run settles: a run that ends before its first await must not clear it first.
    this.loading = (async () => {
      try {
        do {
          this.loadAgain = false;
          this.full = this.queues.size >= this.o.memoryLimit;
          // PostgreSQL without the liveness lock: nothing can be claimed; read on once it is held again.
          if (!this.o.isRunning() || this.full || this.o.leases?.owner === null) break;
          const rows = handed ?? (await outbox.pendingAfter(this.o.store.db, this.loadedUpTo, LOAD_BATCH));
          if (rows.length === 0) break;
          await this.admit(rows);
          this.loadedUpTo = Math.max(this.loadedUpTo, rows[rows.length - 1]!.id);
          if (rows.length === LOAD_BATCH && !handed) this.loadAgain = true;
          handed = null;
          this.o.pump();
        } while (this.loadAgain);
      } catch (err) {
        this.o.logger?.error({ err }, 'webhook outbox read failed; retrying on the next poll');
      }
    })().finally(() => (this.loading = null));
    return this.loading;
  }

  /** Whether `rows` are the ids right after those already loaded, in order and without a gap. */
  private followOn(rows: readonly PendingDelivery[]): boolean {
    if (rows.length === 0 || rows[0]!.id !== this.loadedUpTo + 1) return false;
    for (let i = 1; i < rows.length; i++) if (rows[i]!.id !== rows[i - 1]!.id + 1) return false;
    return true;
  }

  /** PostgreSQL ids can commit out of order: re-reads recent id ranges for rows committed late. */
  async rescan(): Promise<void> {
    this.rescanFloors.push(this.loadedUpTo);
    const floor = this.rescanFloors.length > 6 ? this.rescanFloors.shift()! : 0;
    try {
      // Ids first, through the whole range (late rows may sit behind many known pending ones);
      // only the unknown rows are read whole.
      for (let after = floor, upTo = this.loadedUpTo; ; ) {
        const ids = await outbox.pendingIdsBetween(this.o.store.db, after, upTo, RESCAN_PAGE);
        const unknown = ids.filter((id) => !this.queues.known.has(id));
        if (unknown.length > 0) await this.admit(await outbox.pendingByIds(this.o.store.db, unknown));
        if (ids.length < RESCAN_PAGE) break;
        after = ids[ids.length - 1]!;
      }
      this.o.pump();
    } catch (err) {
      this.o.logger?.warn({ err }, 'webhook outbox rescan failed');
    }
  }

  /** Adds rows to the queues, loading their endpoints; rows of deleted endpoints are removed. */
  private async admit(rows: readonly PendingDelivery[]): Promise<void> {
    const unknown = rows.some((r) => !this.endpoints.has(r.endpointId)) ? [...new Set(rows.map((r) => r.endpointId).filter((id) => !this.endpoints.has(id)))] : [];
    if (unknown.length > 0) {
      const found = await deliveryDb(this.o.store.db).selectFrom('delivery_endpoints').select('id').where('id', 'in', unknown.map(BigInt)).execute();
      for (const { id } of found) {
        const e = await ep.selectEndpoint(this.o.store.db, toNum(id));
        if (e && !this.endpoints.has(e.id)) this.endpoints.set(e.id, e);
      }
      const orphans = rows.filter((r) => !this.endpoints.has(r.endpointId)).map((r) => r.id);
      if (orphans.length > 0) await outbox.deleteDeliveries(this.o.store.db, orphans);
    }
    const live = rows.filter((row) => this.endpoints.has(row.endpointId));
    if (this.o.leases) await this.admitLeased(live, this.o.leases);
    else for (const row of live) this.queues.add(row);
    this.flagParked();
  }

  /**
   * Admits the rows of keys this worker holds at once, then those of keys it can claim. A key taken
   * over from another (or our own, kept after a lost liveness lock) may have older rows this worker
   * skipped: they are read by key.
   */
  private async admitLeased(rows: readonly PendingDelivery[], leases: KeyLeases): Promise<void> {
    const wanted = new Map<string, LeaseKey>();
    for (const row of rows) {
      const key = leaseKeyOf(row.endpointId, row.orderingKey);
      // A key being read by key gets this row from that read (or the next rescan), in id order.
      if (this.loadingKeys.has(key)) continue;
      if (leases.holds(key)) this.queues.add(row);
      else if (!wanted.has(key)) wanted.set(key, { key, endpointId: row.endpointId, orderingKey: row.orderingKey });
    }
    if (wanted.size === 0) return;
    // The held keys' rows go out while the others are claimed.
    this.o.pump();
    const claimed = await leases.claim([...wanted.values()]);
    for (const key of claimed.resumed) this.loadingKeys.add(key);
    for (const row of rows) {
      const key = leaseKeyOf(row.endpointId, row.orderingKey);
      if (claimed.fresh.has(key) && leases.holds(key)) this.queues.add(row);
    }
    try {
      await this.loadKeys([...claimed.resumed].map((key) => wanted.get(key)!));
    } finally {
      for (const key of claimed.resumed) this.loadingKeys.delete(key);
    }
  }

  /** Reads every pending row of keys just taken over, in id order (rows over a key's cap are parked). */
  private async loadKeys(keys: readonly LeaseKey[]): Promise<void> {
    for (const k of keys) this.loadingKeys.add(k.key);
    try {
      for (const part of chunks(keys, KEYS_PER_READ)) {
        for (let after = 0; this.o.isRunning(); ) {
          const rows = await outbox.pendingAfter(this.o.store.db, after, LOAD_BATCH, part);
          for (const row of rows) this.queues.add(row);
          if (rows.length < LOAD_BATCH) break;
          after = rows[rows.length - 1]!.id;
        }
      }
    } finally {
      for (const k of keys) this.loadingKeys.delete(k.key);
    }
  }

  /** Finds dead workers, takes over keys whose lease expired (a dead worker's after its grace) and reads their rows. */
  async takeOverExpired(): Promise<void> {
    const leases = this.o.leases;
    if (!leases) return;
    let taken: LeaseKey[] = [];
    try {
      const marked = await leases.markDead();
      if (marked > 0) this.o.logger?.warn({ leases: marked }, 'a webhook worker is gone (its liveness lock is free): its keys are taken over after a grace');
      taken = await leases.takeExpired(leases.takeoverRoom(TAKEOVER_BATCH));
      for (const k of taken) this.loadingKeys.add(k.key);
      for (const id of new Set(taken.map((k) => k.endpointId))) {
        if (this.endpoints.has(id)) continue;
        const e = await ep.selectEndpoint(this.o.store.db, id);
        if (e && !this.endpoints.has(e.id)) this.endpoints.set(e.id, e);
      }
      // Keys of a deleted endpoint have no rows left; their leases lapse.
      await this.loadKeys(taken.filter((k) => this.endpoints.has(k.endpointId)));
      if (taken.length > 0) {
        this.o.logger?.info({ keys: taken.length }, 'took over webhook ordering keys whose lease expired');
        this.flagParked();
        this.o.pump();
      }
    } catch (err) {
      this.o.logger?.warn({ err }, 'taking over expired webhook leases failed; retrying on the next poll');
    } finally {
      for (const k of taken) this.loadingKeys.delete(k.key);
    }
  }

  /** Flags the rows just left in the store (over their key's memory cap) for the key's reload. */
  private flagParked(): void {
    const ids = this.queues.takeParked();
    if (ids.length === 0) return;
    this.parking = this.parking.then(async () => {
      for (;;) {
        try {
          return await outbox.markParked(this.o.store.db, ids);
        } catch (err) {
          // Unflagged rows would be missed by the reload: try until it works (a restart reads them anyway).
          this.o.logger?.error({ err }, 'flagging parked webhook deliveries failed; retrying');
          if (!this.o.isRunning()) return;
          await new Promise((resolve) => setTimeout(resolve, 500).unref());
        }
      }
    });
  }

  /** Reads back a drained truncated queue's next rows from the store. */
  async reloadQueue(q: Queue): Promise<void> {
    try {
      for (let state: ReturnType<DeliveryQueues['unpark']> = 'reload'; state === 'reload' && this.o.isRunning(); ) {
        // Every row parked so far is flagged before the read, so the read finds them all.
        for (let p = this.parking; ; p = this.parking) {
          await p;
          if (p === this.parking) break;
        }
        // Its endpoint deleted meanwhile (a retry after a failed read may come after that).
        if (this.queues.queues.get(q.key) !== q || q.truncatedAfter === null) return;
        const parkedBefore = q.parkedRows;
        const rows = await outbox.parkedOfKey(this.o.store.db, q.endpointId, q.orderingKey!, q.truncatedAfter!, this.o.perKeyLimit);
        if (this.queues.queues.get(q.key) !== q) return;
        // All read, and none parked while reading: the key's later rows can join the queue again.
        state = this.queues.unpark(q, rows, rows.length < this.o.perKeyLimit && q.parkedRows === parkedBefore);
      }
    } catch (err) {
      this.o.logger?.error({ err }, 'webhook queue reload failed; retrying');
      setTimeout(() => void this.reloadQueue(q), 1000).unref();
    }
    this.o.pump();
  }
}
