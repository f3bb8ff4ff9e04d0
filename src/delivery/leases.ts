// Leases on ordering keys, so many workers on one PostgreSQL share the outbox without breaking
// per-key order: a worker sends a key's deliveries only while it holds the key's lease row
// (delivery_leases: key, owner, expires_at on the database's clock), renews the leases of keys it
// has work for, and lets idle ones lapse. A worker that dies loses its leases when they expire;
// another takes them over (`takeExpired`, FOR UPDATE SKIP LOCKED) and reads the keys' rows.
import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { toNum } from '../store/db.js';

/** The database's own clock in ms, so leases never depend on the workers' clocks agreeing. */
const DB_NOW = sql`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** The lease of a delivery's key: its ordering key, or one per endpoint for its unordered deliveries. */
export function leaseKeyOf(endpointId: number, orderingKey: string | null): string {
  return orderingKey === null ? `${endpointId}#` : `${endpointId}|${orderingKey}`;
}

/** Prefix of a worker's presence row (endpoint 0: never a delivery's key, deleted once expired). */
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
  /** Keys taken over from an expired lease (or our own lapsed one): their rows are read from the store. */
  resumed: Set<string>;
}

export class KeyLeases {
  /** Keys held, with when the lease ends on this process's monotonic clock (never later than in the store). */
  private readonly held = new Map<string, number>();
  /** Keys being given away: not claimed again here meanwhile. */
  private readonly releasing = new Set<string>();

  constructor(
    private readonly db: Kysely<any>,
    readonly owner: string,
    readonly leaseMs: number,
  ) {}

  /** Ms left on a key's lease here (0 when not held). */
  remaining(key: string): number {
    const until = this.held.get(key);
    if (until === undefined) return 0;
    const left = until - performance.now();
    if (left <= 0) this.held.delete(key);
    return Math.max(0, left);
  }

  holds(key: string): boolean {
    return this.remaining(key) > 0;
  }

  /** Being given away (`forget` called, `release` not finished): neither renewed nor claimed here. */
  isReleasing(key: string): boolean {
    return this.releasing.has(key);
  }

  /** Takes the leases of `keys` that are free, expired or already ours. */
  async claim(wanted: readonly LeaseKey[]): Promise<Claimed> {
    const out: Claimed = { fresh: new Set(), resumed: new Set() };
    const keys = wanted.filter((k) => !this.releasing.has(k.key));
    if (keys.length === 0) return out;
    const started = performance.now();
    // Keys nobody has leased yet: ON CONFLICT DO NOTHING locks no existing row.
    const inserted = await sql<{ lease_key: string }>`
      insert into delivery_leases (lease_key, endpoint_id, ordering_key, owner, expires_at)
      select k.key, k.endpoint_id, k.ordering_key, ${this.owner}, ${DB_NOW} + ${this.leaseMs}
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
        update delivery_leases set owner = ${this.owner}, expires_at = ${DB_NOW} + ${this.leaseMs}
        where lease_key in (
          select lease_key from delivery_leases
          where lease_key = any(${rest}::text[])
            and (owner = ${this.owner} or (expires_at < ${DB_NOW} and not (owner = ${RELEASED + this.owner} and expires_at > ${DB_NOW} - ${this.leaseMs})))
          order by lease_key for update skip locked)
        returning lease_key`.execute(this.db);
      for (const r of updated.rows) out.resumed.add(r.lease_key);
    }
    for (const key of [...out.fresh, ...out.resumed]) this.held.set(key, started + this.leaseMs);
    return out;
  }

  /** Extends the leases of `keys`; returns those no longer ours (another worker took them over). */
  async renew(keys: readonly string[]): Promise<string[]> {
    if (keys.length === 0) return [];
    const started = performance.now();
    const { rows } = await sql<{ lease_key: string }>`
      update delivery_leases set expires_at = ${DB_NOW} + ${this.leaseMs}
      where lease_key in (select lease_key from delivery_leases where owner = ${this.owner} and lease_key = any(${keys}::text[]) order by lease_key for update)
      returning lease_key`.execute(this.db);
    const kept = new Set(rows.map((r) => r.lease_key));
    const lost: string[] = [];
    for (const key of keys) {
      if (kept.has(key)) this.held.set(key, started + this.leaseMs);
      else {
        this.held.delete(key);
        lost.push(key);
      }
    }
    return lost;
  }

  /**
   * Takes over expired leases (a dead or stalled worker's, or lapsed idle ones) that keys with
   * pending deliveries still need, and deletes the others. Rows are locked while deciding, so a
   * worker claiming one of these keys meanwhile waits and then finds it taken or gone.
   */
  async takeExpired(limit: number): Promise<LeaseKey[]> {
    const started = performance.now();
    const taken = await this.db.transaction().execute(async (trx) => {
      // Keys this worker gave away (rebalance) are left to the others for a lease's time.
      const { rows } = await sql<{ lease_key: string; endpoint_id: string | number | bigint; ordering_key: string | null }>`
        select lease_key, endpoint_id, ordering_key from delivery_leases
        where expires_at < ${DB_NOW} and not (owner = ${RELEASED + this.owner} and expires_at > ${DB_NOW} - ${this.leaseMs})
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
        await sql`update delivery_leases set owner = ${this.owner}, expires_at = ${DB_NOW} + ${this.leaseMs}
          where lease_key = any(${keep.map((k) => k.key)}::text[])`.execute(trx);
      }
      for (const k of drop) this.held.delete(k);
      return keep;
    });
    for (const k of taken) this.held.set(k.key, started + this.leaseMs);
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

  /**
   * Workers alive (each keeps a presence row, `worker:<owner>`, renewed here) and keys with a lease
   * row: what a fair share of the keys is.
   */
  async census(): Promise<{ workers: number; keys: number }> {
    await sql`insert into delivery_leases (lease_key, endpoint_id, ordering_key, owner, expires_at)
      values (${PRESENCE + this.owner}, 0, null, ${this.owner}, ${DB_NOW} + ${this.leaseMs})
      on conflict (lease_key) do update set owner = excluded.owner, expires_at = excluded.expires_at`.execute(this.db);
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

  /** Gives leases away at once (rebalancing): another worker's next `takeExpired` takes those with deliveries. */
  async release(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    this.forget(keys);
    try {
      await sql`update delivery_leases set owner = ${RELEASED + this.owner}, expires_at = ${DB_NOW} - 1
        where owner = ${this.owner} and lease_key = any(${keys}::text[])`.execute(this.db);
    } finally {
      for (const key of keys) this.releasing.delete(key);
    }
  }

  /**
   * Gives every lease back (a clean stop): they are marked expired rather than deleted, so the
   * next `takeExpired` of another worker finds the keys that still have deliveries and reads them.
   */
  async releaseAll(): Promise<void> {
    this.held.clear();
    await sql`update delivery_leases set expires_at = 0 where owner = ${this.owner}`.execute(this.db);
    await sql`delete from delivery_leases where lease_key = ${PRESENCE + this.owner}`.execute(this.db);
  }
}
