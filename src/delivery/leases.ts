// Leases on ordering keys, so many workers on one PostgreSQL share the outbox without breaking
// per-key order: a worker sends a key's deliveries only while it holds the key's lease row
// (delivery_leases: key, owner, expires_at). A lease held by a live worker never runs out
// (expires_at = LIVE): it lasts as long as its owner's liveness lock (liveness.ts), so a key that was
// quiet is deliverable the moment it gets work. Idle keys are given back (`releaseIdle`). A worker
// whose lock is gone (killed, cut off) is found by any other (`markDead`): its leases get a short
// grace on the database's clock, then another takes them over (`takeExpired`, FOR UPDATE SKIP
// LOCKED) and reads the keys' rows.
import { sql, type Kysely } from 'kysely';
import { toNum } from '../store/db.js';
import { LOCKS, memberLockKey } from '../store/locks.js';
import { KEYS_GIVEN_AWAY, OUTBOX_CHANNEL } from './outbox.js';

/** The database's own clock in ms, so leases never depend on the workers' clocks agreeing. */
const DB_NOW = sql`(extract(epoch from clock_timestamp()) * 1000)::bigint`;
/** expires_at of a lease whose owner is alive: it ends with its owner (2^62, after any clock). */
const LIVE = sql.raw('4611686018427387904');
/**
 * A dead worker's leases are taken over this long after its lock was seen free: the worker, if only
 * cut off, has cut its attempts by then (it does the moment its session fails, liveness.ts).
 */
export const DEAD_GRACE_MS = 1000;

/** The lease of a delivery's key: its ordering key, or one per endpoint for its unordered deliveries. */
export function leaseKeyOf(endpointId: number, orderingKey: string | null): string {
  return orderingKey === null ? `${endpointId}#` : `${endpointId}|${orderingKey}`;
}

/** Prefix of a worker's presence row (endpoint 0: never a delivery's key), live while the worker is. */
const PRESENCE = 'worker:';
/** Owner of a lease given away by rebalancing: the giver does not take it back for a lease's time. */
const RELEASED = 'released:';

export interface LeaseKey {
  key: string;
  endpointId: number;
  orderingKey: string | null;
}

export interface Claimed {
  /** Keys whose lease row this claim created: nobody held them, so no older row of them was skipped. */
  fresh: Set<string>;
  /** Keys taken over from an expired lease (or our own): their rows are read from the store. */
  resumed: Set<string>;
}

export class KeyLeases {
  /** Keys held by the current owner name. */
  private readonly held = new Set<string>();
  /** Keys being given away by rebalancing: not claimed again here meanwhile. */
  private readonly releasing = new Set<string>();
  /** The idle keys' release under way: claims wait for it, so a key given back is claimed afresh. */
  private idleRelease: Promise<unknown> | null = null;
  /** This worker's name in the lease rows while its liveness lock is held; null while it is not. */
  private current: string | null = null;

  constructor(
    private readonly db: Kysely<any>,
    /** Given back idle keys after this long; keys given away are not taken back within it. */
    readonly leaseMs: number,
  ) {}

  get owner(): string | null {
    return this.current;
  }

  holds(key: string): boolean {
    return this.current !== null && this.held.has(key);
  }

  get heldKeys(): ReadonlySet<string> {
    return this.held;
  }

  /** Being given away (`forget` called, `release` not finished): neither kept nor claimed here. */
  isReleasing(key: string): boolean {
    return this.releasing.has(key);
  }

  /**
   * Starts holding leases as `owner`, whose liveness lock was just taken: announces it, expires rows
   * an earlier process of the same name left, and keeps the keys of `previous` (this process's last
   * name, its lock lost) that no other worker has taken meanwhile. Returns the keys held now.
   */
  async begin(owner: string, previous: string | null): Promise<ReadonlySet<string>> {
    await sql`insert into delivery_leases (lease_key, endpoint_id, ordering_key, owner, expires_at)
      values (${PRESENCE + owner}, 0, null, ${owner}, ${LIVE})
      on conflict (lease_key) do update set owner = excluded.owner, expires_at = excluded.expires_at`.execute(this.db);
    await sql`update delivery_leases set expires_at = 0 where owner = ${owner} and expires_at = ${LIVE} and lease_key <> ${PRESENCE + owner}`.execute(this.db);
    const kept = new Set<string>();
    if (previous !== null) {
      // Rows another worker took are locked or changed: they no longer match here.
      const { rows } = await sql<{ lease_key: string }>`
        update delivery_leases set owner = ${owner}, expires_at = ${LIVE}
        where owner = ${previous} and expires_at > ${DB_NOW} and lease_key not like 'worker:%'
        returning lease_key`.execute(this.db);
      for (const r of rows) kept.add(r.lease_key);
      await sql`delete from delivery_leases where lease_key = ${PRESENCE + previous}`.execute(this.db);
    }
    for (const key of this.held) if (!kept.has(key)) this.held.delete(key);
    for (const key of kept) this.held.add(key);
    this.current = owner;
    return this.held;
  }

  /** The liveness lock is gone: nothing is held until `begin` again. */
  lose(): void {
    this.current = null;
  }

  /** Takes the leases of `keys` that are free, expired or already ours. */
  async claim(wanted: readonly LeaseKey[]): Promise<Claimed> {
    const out: Claimed = { fresh: new Set(), resumed: new Set() };
    if (this.idleRelease) await this.idleRelease;
    const owner = this.current;
    const keys = wanted.filter((k) => !this.releasing.has(k.key));
    if (keys.length === 0 || owner === null) return out;
    // Keys nobody has leased yet: ON CONFLICT DO NOTHING locks no existing row.
    const inserted = await sql<{ lease_key: string }>`
      insert into delivery_leases (lease_key, endpoint_id, ordering_key, owner, expires_at)
      select k.key, k.endpoint_id, k.ordering_key, ${owner}, ${LIVE}
      from unnest(${keys.map((k) => k.key)}::text[], ${keys.map((k) => k.endpointId)}::bigint[], ${keys.map((k) => k.orderingKey)}::text[]) as k(key, endpoint_id, ordering_key)
      order by k.key
      on conflict (lease_key) do nothing
      returning lease_key`.execute(this.db);
    for (const r of inserted.rows) out.fresh.add(r.lease_key);
    const rest = keys.filter((k) => !out.fresh.has(k.key)).map((k) => k.key);
    if (rest.length > 0) {
      // Ours already, or expired (not given away by us a moment ago). Rows another worker is
      // locking are skipped rather than waited for, so workers claiming at once never deadlock.
      const updated = await sql<{ lease_key: string }>`
        update delivery_leases set owner = ${owner}, expires_at = ${LIVE}
        where lease_key in (
          select lease_key from delivery_leases
          where lease_key = any(${rest}::text[])
            and (owner = ${owner} or (expires_at < ${DB_NOW} and not (owner = ${RELEASED + owner} and expires_at > ${DB_NOW} - ${this.leaseMs})))
          order by lease_key for update skip locked)
        returning lease_key`.execute(this.db);
      for (const r of updated.rows) out.resumed.add(r.lease_key);
    }
    // Lost meanwhile: the rows are owner's, a name nobody holds now; they are adopted or taken over.
    if (this.current !== owner) return { fresh: new Set(), resumed: new Set() };
    for (const key of [...out.fresh, ...out.resumed]) this.held.add(key);
    return out;
  }

  /**
   * Finds workers whose liveness lock is free (a killed or cut-off process) and starts the grace of
   * their leases; `takeExpired` takes them once it is over. Returns the leases marked.
   */
  async markDead(): Promise<number> {
    const owner = this.current;
    if (owner === null) return 0;
    // Each statement is its own transaction: the lock tried on a dead worker's key is held only for it.
    const { rows } = await sql<{ n: string }>`
      with present as materialized (
        select owner from delivery_leases where lease_key like 'worker:%' and expires_at = ${LIVE} and owner <> ${owner}),
      dead as materialized (
        select owner from present where pg_try_advisory_xact_lock(${LOCKS.deliveryWorker}, ${sql.raw(memberLockKey('owner'))})),
      marked as (
        update delivery_leases set expires_at = ${DB_NOW} + ${DEAD_GRACE_MS}
        where expires_at = ${LIVE} and owner in (select owner from dead) returning 1)
      select count(*) as n from marked`.execute(this.db);
    return Number(rows[0]!.n);
  }

  /**
   * Takes over expired leases (a dead worker's after their grace, or ones given away) that keys
   * with pending deliveries still need, and deletes the others. Rows are locked while deciding, so
   * a worker claiming one of these keys meanwhile waits and then finds it taken or gone.
   */
  async takeExpired(limit: number): Promise<LeaseKey[]> {
    const owner = this.current;
    if (owner === null) return [];
    const taken = await this.db.transaction().execute(async (trx) => {
      // Keys this worker gave away (rebalance) are left to the others for a lease's time.
      const { rows } = await sql<{ lease_key: string; endpoint_id: string | number | bigint; ordering_key: string | null }>`
        select lease_key, endpoint_id, ordering_key from delivery_leases
        where expires_at < ${DB_NOW} and not (owner = ${RELEASED + owner} and expires_at > ${DB_NOW} - ${this.leaseMs})
        order by expires_at limit ${limit} for update skip locked`.execute(trx);
      const keep: LeaseKey[] = [];
      const drop: string[] = [];
      if (rows.length > 0) {
        const { rows: busy } = await sql<{ key: string }>`
          select l.key from unnest(${rows.map((r) => r.lease_key)}::text[], ${rows.map((r) => BigInt(toNum(r.endpoint_id)))}::bigint[], ${rows.map((r) => r.ordering_key)}::text[]) as l(key, endpoint_id, ordering_key)
          where case when l.ordering_key is null
            then exists (select 1 from delivery_outbox o where o.state = 'pending' and o.endpoint_id = l.endpoint_id and o.ordering_key is null)
            else exists (select 1 from delivery_outbox o where o.state = 'pending' and o.endpoint_id = l.endpoint_id and o.ordering_key = l.ordering_key) end`.execute(trx);
        const withRows = new Set(busy.map((b) => b.key));
        for (const r of rows) {
          if (withRows.has(r.lease_key)) keep.push({ key: r.lease_key, endpointId: toNum(r.endpoint_id), orderingKey: r.ordering_key });
          else drop.push(r.lease_key);
        }
      }
      if (drop.length > 0) await sql`delete from delivery_leases where lease_key = any(${drop}::text[])`.execute(trx);
      if (keep.length > 0) {
        await sql`update delivery_leases set owner = ${owner}, expires_at = ${LIVE}
          where lease_key = any(${keep.map((k) => k.key)}::text[])`.execute(trx);
      }
      return keep;
    });
    if (this.current !== owner) return [];
    for (const k of taken) this.held.add(k.key);
    return taken;
  }

  /** The last census: workers alive and keys with a lease row (live, or expired and not yet taken). */
  private last = { workers: 1, keys: 0 };

  /** Keys one worker should hold at most: an even share of the keys, plus one. */
  fairShare(): number {
    return Math.ceil(this.last.keys / Math.max(1, this.last.workers)) + 1;
  }

  /** How many expired leases to take over now: up to a fair share, and at least one (nothing may starve). */
  takeoverRoom(most: number): number {
    return Math.min(most, Math.max(1, this.fairShare() - this.held.size));
  }

  /** Workers present (their presence rows, `worker:<owner>`, live) and keys with a lease row: what a fair share is. */
  async census(): Promise<{ workers: number; keys: number }> {
    const { rows } = await sql<{ workers: string; keys: string }>`
      select count(*) filter (where lease_key like 'worker:%' and expires_at > ${DB_NOW}) as workers,
        count(*) filter (where lease_key not like 'worker:%') as keys
      from delivery_leases`.execute(this.db);
    this.last = { workers: Math.max(1, Number(rows[0]!.workers)), keys: Number(rows[0]!.keys) };
    return this.last;
  }

  /** Stops treating keys as held here (nothing more is sent or claimed for them), ahead of `release`. */
  forget(keys: readonly string[]): void {
    for (const key of keys) {
      this.held.delete(key);
      this.releasing.add(key);
    }
  }

  /** Holds keys again that `forget` set aside and that are not given away after all. */
  keep(keys: readonly string[]): void {
    for (const key of keys) {
      this.releasing.delete(key);
      this.held.add(key);
    }
  }

  /** Gives leases away at once (rebalancing): another worker's next `takeExpired` takes those with deliveries. */
  async release(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    this.forget(keys);
    try {
      await sql`update delivery_leases set owner = ${RELEASED + this.current}, expires_at = ${DB_NOW} - 1
        where owner = ${this.current} and lease_key = any(${keys}::text[])`.execute(this.db);
      // The other workers take them over now rather than at their next poll.
      await sql`select pg_notify(${sql.raw(OUTBOX_CHANNEL)}, ${KEYS_GIVEN_AWAY})`.execute(this.db);
    } finally {
      for (const key of keys) this.releasing.delete(key);
    }
  }

  /** Gives back keys with nothing to deliver here (deletes their rows); claiming one waits until done. */
  async releaseIdle(keys: readonly string[]): Promise<void> {
    const owner = this.current;
    if (keys.length === 0 || owner === null) return;
    for (const key of keys) this.held.delete(key);
    const done = sql`delete from delivery_leases where owner = ${owner} and lease_key = any(${keys}::text[])`.execute(this.db);
    this.idleRelease = done.catch(() => {});
    try {
      await done;
    } finally {
      this.idleRelease = null;
    }
  }

  /**
   * Gives every lease back (a clean stop): they are marked expired rather than deleted, so the
   * next `takeExpired` of another worker finds the keys that still have deliveries and reads them.
   */
  async releaseAll(): Promise<void> {
    const owner = this.current;
    this.held.clear();
    this.current = null;
    if (owner === null) return;
    await sql`update delivery_leases set expires_at = 0 where owner = ${owner} and lease_key <> ${PRESENCE + owner}`.execute(this.db);
    await sql`delete from delivery_leases where lease_key = ${PRESENCE + owner}`.execute(this.db);
    await sql`select pg_notify(${sql.raw(OUTBOX_CHANNEL)}, ${KEYS_GIVEN_AWAY})`.execute(this.db);
  }
}
