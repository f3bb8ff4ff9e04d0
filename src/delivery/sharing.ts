// Sharing the ordering keys among delivery workers on one PostgreSQL (the worker's side of
// leases.ts): at every sweep (a quarter lease) a worker gives back the keys it held with nothing to
// deliver since the last sweep, and gives keys away when it holds more than a fair share of them.
import type { Logger } from 'pino';
import { leaseKeyOf, type KeyLeases } from './leases.js';
import type { DeliveryQueues } from './queues.js';
import type { Clock } from './types.js';

type LeasedKey = { endpointId: number; orderingKey: string | null };

export interface SharingOptions {
  leases: KeyLeases;
  queues: DeliveryQueues;
  clock: Clock;
  logger?: Logger;
  /** Longest an attempt can last: giving a key away waits for its attempt in flight this long at most. */
  attemptMs: number;
  isRunning(): boolean;
  /** Waits until every outcome so far is in the store. */
  flushNow(): Promise<void>;
  /** Runs work in the background where the worker's stop() waits for it. */
  task(work: () => Promise<unknown>): void;
}

export class KeySharing {
  /** Keys held with nothing to deliver at the last sweep: given back if still idle at the next. */
  private idleAtLastSweep = new Set<string>();
  /** Keys an attempt started for since the last sweep: not idle, even if nothing waits now. */
  private usedSinceSweep = new Set<string>();
  private rebalancing = false;

  constructor(private readonly o: SharingOptions) {}

  /** An attempt starts for `key`. */
  used(key: string): void {
    this.usedSinceSweep.add(key);
  }

  /** Gives back keys idle here since the last sweep; gives keys away when holding more than a fair share. */
  async sweep(): Promise<void> {
    const { leases, queues } = this.o;
    if (!this.o.isRunning() || leases.owner === null) return;
    const mine = new Map<string, LeasedKey>();
    for (const q of queues.queues.values()) {
      const key = leaseKeyOf(q.endpointId, q.orderingKey);
      if (leases.holds(key)) mine.set(key, q);
    }
    const idle = [...leases.heldKeys].filter((key) => !mine.has(key) && !this.usedSinceSweep.has(key));
    this.usedSinceSweep = new Set();
    const giveBack = idle.filter((key) => this.idleAtLastSweep.has(key));
    this.idleAtLastSweep = new Set(idle.filter((key) => !this.idleAtLastSweep.has(key)));
    try {
      await leases.releaseIdle(giveBack);
    } catch (err) {
      this.o.logger?.warn({ err }, 'giving back idle webhook ordering keys failed; claimed again when they get work');
    }
    // One at a time, beside the sweeps (it may wait for attempts in flight).
    if (!this.rebalancing && this.o.isRunning()) {
      this.rebalancing = true;
      this.o.task(() =>
        this.rebalance(mine)
          .catch((err) => this.o.logger?.warn({ err }, 'giving webhook ordering keys to other workers failed'))
          .finally(() => (this.rebalancing = false)),
      );
    }
  }

  /**
   * Keys go to whichever worker reads them first; one holding more than its share of the keys
   * leased now gives the excess away: no attempt starts for them any more, the ones in flight end,
   * their queues are dropped and the outcomes so far recorded before the leases go, so the worker
   * taking them over repeats nothing.
   */
  private async rebalance(mine: Map<string, LeasedKey>): Promise<void> {
    const { leases, queues } = this.o;
    const { workers } = await leases.census();
    const excess = mine.size - leases.fairShare();
    if (workers <= 1 || excess <= 0) return;
    const picked = [...mine].slice(0, excess);
    leases.forget(picked.map(([key]) => key));
    const queuesOf = (k: LeasedKey) => queues.queuesOfLease(k.endpointId, k.orderingKey);
    const inFlight = (k: LeasedKey) => queuesOf(k).some((q) => q.inFlight);
    for (const end = performance.now() + this.o.attemptMs; picked.some(([, k]) => inFlight(k)) && performance.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 10));
    // A key still in flight (cannot be: the timeout bounds it) is kept, its queue due again.
    const giving = picked.filter(([, k]) => !inFlight(k));
    const kept = picked.filter(([, k]) => inFlight(k));
    leases.keep(kept.map(([key]) => key));
    for (const [, k] of kept) for (const q of queuesOf(k)) if (!q.inFlight && queues.headOf(q)) queues.schedule(q, this.o.clock.now());
    for (const [, k] of giving) for (const q of queuesOf(k)) queues.dropQueue(q);
    await this.o.flushNow();
    await leases.release(giving.map(([key]) => key));
    this.o.logger?.info({ keys: giving.length, workers }, 'gave webhook ordering keys to other workers (more than a fair share here)');
  }
}
