// The worker's in-memory view of the outbox: one FIFO queue per (endpoint, ordering key), and a
// min-heap of queue heads by due time. Only a queue's head may be in flight, so one key's
// deliveries go out strictly in order while every other key proceeds on its own.
import type { PendingDelivery } from './types.js';

export interface Queue {
  key: string;
  endpointId: number;
  orderingKey: string | null;
  rows: Array<PendingDelivery | undefined>;
  head: number;
  inFlight: boolean;
  /** Bumped on every (re)schedule so stale heap entries are ignored. */
  version: number;
  /** Rows of this key after this id were left in the store (per-key memory cap); reload when drained. */
  truncatedAfter: number | null;
  /** Rows of this key left in the store so far (a reload that saw none arrive may end the truncation). */
  parkedRows: number;
}

interface HeapEntry {
  at: number;
  queue: Queue;
  version: number;
}

class MinHeap {
  private readonly items: HeapEntry[] = [];

  get length(): number {
    return this.items.length;
  }

  peek(): HeapEntry | undefined {
    return this.items[0];
  }

  push(entry: HeapEntry): void {
    const a = this.items;
    a.push(entry);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]!.at <= entry.at) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = entry;
  }

  pop(): HeapEntry | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        let mAt = last.at;
        if (l < a.length && a[l]!.at < mAt) {
          m = l;
          mAt = a[l]!.at;
        }
        if (r < a.length && a[r]!.at < mAt) m = r;
        if (m === i) break;
        a[i] = a[m]!;
        i = m;
      }
      a[i] = last;
    }
    return top;
  }
}

export class DeliveryQueues {
  readonly queues = new Map<string, Queue>();
  private readonly byEndpoint = new Map<number, Set<Queue>>();
  private readonly heap = new MinHeap();
  /** Ids held in memory (waiting or in flight), so a re-read of the store cannot add one twice. */
  readonly known = new Set<number>();
  /** Rows waiting or in flight. */
  size = 0;
  /** Ids of rows left in the store since takeParked(): the worker flags them so the reload finds them. */
  private parked: number[] = [];

  constructor(private readonly perKeyLimit: number) {}

  static keyOf(endpointId: number, orderingKey: string | null, id: number): string {
    return orderingKey === null ? `${endpointId}#${id}` : `${endpointId}|${orderingKey}`;
  }

  /** Adds a row read from the store, in id order; false when it was skipped (known, or its key is capped). */
  add(row: PendingDelivery): boolean {
    if (this.known.has(row.id)) return false;
    const key = DeliveryQueues.keyOf(row.endpointId, row.orderingKey, row.id);
    let q = this.queues.get(key);
    if (!q) {
      q = { key, endpointId: row.endpointId, orderingKey: row.orderingKey, rows: [], head: 0, inFlight: false, version: 0, truncatedAfter: null, parkedRows: 0 };
      this.queues.set(key, q);
      let set = this.byEndpoint.get(row.endpointId);
      if (!set) this.byEndpoint.set(row.endpointId, (set = new Set()));
      set.add(q);
    }
    const waiting = q.rows.length - q.head;
    if (q.truncatedAfter !== null || waiting >= this.perKeyLimit) {
      q.truncatedAfter ??= q.rows[q.rows.length - 1]!.id;
      q.parkedRows++;
      this.parked.push(row.id);
      return false;
    }
    q.rows.push(row);
    this.known.add(row.id);
    this.size++;
    if (waiting === 0 && !q.inFlight) this.schedule(q, row.nextAttemptAt);
    return true;
  }

  /** Ids of the rows left in the store since the last call. */
  takeParked(): number[] {
    const ids = this.parked;
    this.parked = [];
    return ids;
  }

  /**
   * Rows of a truncated queue read back from the store, in id order. `all`: no parked row of the key
   * is left in the store, so later rows join the queue again. Returns what shift() would.
   */
  unpark(q: Queue, rows: readonly PendingDelivery[], all: boolean): 'more' | 'empty' | 'reload' {
    for (const row of rows) {
      if (this.known.has(row.id)) continue;
      q.rows.push(row);
      this.known.add(row.id);
      this.size++;
    }
    if (rows.length > 0) q.truncatedAfter = rows[rows.length - 1]!.id;
    if (all) q.truncatedAfter = null;
    const head = this.headOf(q);
    if (head) {
      if (!q.inFlight) this.schedule(q, head.nextAttemptAt);
      return 'more';
    }
    if (q.truncatedAfter !== null) return 'reload';
    this.removeQueue(q);
    return 'empty';
  }

  headOf(q: Queue): PendingDelivery | undefined {
    return q.rows[q.head];
  }

  schedule(q: Queue, at: number): void {
    q.version++;
    this.heap.push({ at, queue: q, version: q.version });
  }

  /** A queue whose head is due at or before `now` and not in flight, or undefined. */
  popDue(now: number): Queue | undefined {
    for (;;) {
      const top = this.heap.peek();
      if (!top || top.at > now) return undefined;
      this.heap.pop();
      const q = top.queue;
      if (top.version !== q.version || q.inFlight || q.head >= q.rows.length || this.queues.get(q.key) !== q) continue;
      return q;
    }
  }

  /** When the earliest scheduled head falls due, or null when nothing is scheduled. */
  nextDueAt(): number | null {
    for (;;) {
      const top = this.heap.peek();
      if (!top) return null;
      const q = top.queue;
      if (top.version === q.version && !q.inFlight && q.head < q.rows.length && this.queues.get(q.key) === q) return top.at;
      this.heap.pop();
    }
  }

  /**
   * Removes the head after a final outcome (delivered, failed). Returns 'reload' when the queue
   * drained but rows of its key are still in the store, 'empty' when it is gone, 'more' otherwise.
   */
  shift(q: Queue): 'more' | 'empty' | 'reload' {
    q.rows[q.head] = undefined;
    q.head++;
    this.size--;
    if (q.head > 64 && q.head * 2 > q.rows.length) {
      q.rows = q.rows.slice(q.head);
      q.head = 0;
    }
    if (q.head < q.rows.length) return 'more';
    if (q.truncatedAfter !== null) return 'reload';
    this.removeQueue(q);
    return 'empty';
  }

  /** Forgets an id once its outcome is durable. */
  forget(id: number): void {
    this.known.delete(id);
  }

  queuesOf(endpointId: number): Queue[] {
    return [...(this.byEndpoint.get(endpointId) ?? [])];
  }

  removeQueue(q: Queue): void {
    // A dropped queue finishing its last attempt must not remove the key's new queue.
    if (this.queues.get(q.key) !== q) return;
    this.queues.delete(q.key);
    const set = this.byEndpoint.get(q.endpointId);
    set?.delete(q);
    if (set && set.size === 0) this.byEndpoint.delete(q.endpointId);
  }

  /** Drops every waiting row of an endpoint (deleted); rows in flight finish on their own. */
  dropEndpoint(endpointId: number): void {
    for (const q of this.queuesOf(endpointId)) this.dropQueue(q);
  }

  /** Whether `q` is still the live queue of its key (not dropped, not replaced). */
  isLive(q: Queue): boolean {
    return this.queues.get(q.key) === q;
  }

  /** The queues a lease covers: one ordered key, or every unordered delivery of an endpoint. */
  queuesOfLease(endpointId: number, orderingKey: string | null): Queue[] {
    if (orderingKey !== null) {
      const q = this.queues.get(`${endpointId}|${orderingKey}`);
      return q ? [q] : [];
    }
    return this.queuesOf(endpointId).filter((q) => q.orderingKey === null);
  }

  /** Forgets a queue's waiting rows (they stay pending in the store); its row in flight finishes on its own. */
  dropQueue(q: Queue): void {
    for (let i = q.head; i < q.rows.length; i++) {
      const row = q.rows[i];
      if (!row) continue;
      if (!(q.inFlight && i === q.head)) this.known.delete(row.id);
      this.size--;
    }
    q.rows = q.inFlight ? [q.rows[q.head]] : [];
    q.head = 0;
    if (q.inFlight) this.size++;
    q.truncatedAfter = null;
    this.removeQueue(q);
  }
}
