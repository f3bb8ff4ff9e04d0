// Subscriptions of webhooks in the store: accounts (with their delivery cursor), opcodes (active
// or disabled) and whole-chain feeds (new contracts, mempool).
import { sql, type Kysely } from 'kysely';
import { toNum } from '../store/db.js';
import { chunks } from '../delivery/tables.js';

export type Feed = 'new_contracts' | 'mempool';

export interface WebhookTables {
  webhook_account_subs: {
    webhook_id: bigint;
    account_id: string;
    last_delivered_lt: bigint;
    failed_at: bigint | null;
    failed_lt: bigint | null;
    failed_attempts: bigint | null;
    created_at: bigint;
  };
  webhook_opcode_subs: {
    webhook_id: bigint;
    opcode: bigint;
    status: string;
    disabled_at: bigint | null;
    disabled_reason: string | null;
    created_at: bigint;
  };
  webhook_feed_subs: { webhook_id: bigint; feed: string; created_at: bigint };
}

export interface AccountSubscription {
  accountId: string;
  lastDeliveredLt: bigint;
  failedAt: number | null;
  failedLt: bigint | null;
  failedAttempts: number | null;
}

export interface OpcodeSubscription {
  opcode: number;
  status: 'active' | 'disabled';
  disabledAt: number | null;
  disabledReason: string | null;
}

const w = (db: Kysely<any>) => db as Kysely<WebhookTables>;

/** Adds accounts (already raw); existing subscriptions keep their cursor. Returns how many were new. */
export async function addAccounts(db: Kysely<any>, webhookId: number, accounts: readonly string[], now: number): Promise<void> {
  for (const part of chunks(accounts, 500)) {
    await w(db)
      .insertInto('webhook_account_subs')
      .values(part.map((account_id) => ({ webhook_id: BigInt(webhookId), account_id, last_delivered_lt: 0n, failed_at: null, failed_lt: null, failed_attempts: null, created_at: BigInt(now) })))
      .onConflict((oc) => oc.columns(['webhook_id', 'account_id']).doNothing())
      .execute();
  }
}

export async function removeAccounts(db: Kysely<any>, webhookId: number, accounts: readonly string[]): Promise<void> {
  for (const part of chunks(accounts, 900)) {
    await w(db).deleteFrom('webhook_account_subs').where('webhook_id', '=', BigInt(webhookId)).where('account_id', 'in', part).execute();
  }
}

/** Subscribed accounts among `accounts`, and the total for the webhook. */
export async function countAccounts(db: Kysely<any>, webhookIds: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (webhookIds.length === 0) return out;
  const rows = await w(db)
    .selectFrom('webhook_account_subs')
    .select(['webhook_id', (e) => e.fn.countAll<bigint>().as('n')])
    .where('webhook_id', 'in', webhookIds.map(BigInt))
    .groupBy('webhook_id')
    .execute();
  for (const r of rows) out.set(toNum(r.webhook_id), toNum(r.n));
  return out;
}

export async function listAccounts(db: Kysely<any>, webhookId: number, offset: number, limit: number): Promise<AccountSubscription[]> {
  const rows = await w(db)
    .selectFrom('webhook_account_subs')
    .selectAll()
    .where('webhook_id', '=', BigInt(webhookId))
    .orderBy('created_at')
    .orderBy('account_id')
    .offset(offset)
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    accountId: r.account_id,
    lastDeliveredLt: BigInt(r.last_delivered_lt),
    failedAt: r.failed_at === null ? null : toNum(r.failed_at),
    failedLt: r.failed_lt === null ? null : BigInt(r.failed_lt),
    failedAttempts: r.failed_attempts === null ? null : toNum(r.failed_attempts),
  }));
}

export async function isSubscribed(db: Kysely<any>, webhookId: number, account: string): Promise<boolean> {
  const row = await w(db).selectFrom('webhook_account_subs').select('account_id').where('webhook_id', '=', BigInt(webhookId)).where('account_id', '=', account).executeTakeFirst();
  return row !== undefined;
}

/** Subscribes (or re-activates a disabled subscription to) an opcode. */
export async function addOpcode(db: Kysely<any>, webhookId: number, opcode: number, now: number): Promise<void> {
  await w(db)
    .insertInto('webhook_opcode_subs')
    .values({ webhook_id: BigInt(webhookId), opcode: BigInt(opcode), status: 'active', disabled_at: null, disabled_reason: null, created_at: BigInt(now) })
    .onConflict((oc) => oc.columns(['webhook_id', 'opcode']).doUpdateSet({ status: 'active', disabled_at: null, disabled_reason: null }))
    .execute();
}

export async function removeOpcode(db: Kysely<any>, webhookId: number, opcode: number): Promise<boolean> {
  const r = await w(db).deleteFrom('webhook_opcode_subs').where('webhook_id', '=', BigInt(webhookId)).where('opcode', '=', BigInt(opcode)).executeTakeFirst();
  return r.numDeletedRows > 0n;
}

export async function disableOpcode(db: Kysely<any>, webhookId: number, opcode: number, reason: string, now: number): Promise<void> {
  await w(db)
    .updateTable('webhook_opcode_subs')
    .set({ status: 'disabled', disabled_at: BigInt(now), disabled_reason: reason })
    .where('webhook_id', '=', BigInt(webhookId))
    .where('opcode', '=', BigInt(opcode))
    .execute();
}

export async function listOpcodes(db: Kysely<any>, webhookId: number, offset: number, limit: number): Promise<OpcodeSubscription[]> {
  const rows = await w(db)
    .selectFrom('webhook_opcode_subs')
    .selectAll()
    .where('webhook_id', '=', BigInt(webhookId))
    .orderBy('created_at')
    .orderBy('opcode')
    .offset(offset)
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    opcode: toNum(r.opcode),
    status: r.status as OpcodeSubscription['status'],
    disabledAt: r.disabled_at === null ? null : toNum(r.disabled_at),
    disabledReason: r.disabled_reason,
  }));
}

export async function countActiveOpcodes(db: Kysely<any>, webhookIds: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (webhookIds.length === 0) return out;
  const rows = await w(db)
    .selectFrom('webhook_opcode_subs')
    .select(['webhook_id', (e) => e.fn.countAll<bigint>().as('n')])
    .where('webhook_id', 'in', webhookIds.map(BigInt))
    .where('status', '=', 'active')
    .groupBy('webhook_id')
    .execute();
  for (const r of rows) out.set(toNum(r.webhook_id), toNum(r.n));
  return out;
}

export async function setFeed(db: Kysely<any>, webhookId: number, feed: Feed, on: boolean, now: number): Promise<void> {
  if (on) {
    await w(db)
      .insertInto('webhook_feed_subs')
      .values({ webhook_id: BigInt(webhookId), feed, created_at: BigInt(now) })
      .onConflict((oc) => oc.columns(['webhook_id', 'feed']).doNothing())
      .execute();
  } else {
    await w(db).deleteFrom('webhook_feed_subs').where('webhook_id', '=', BigInt(webhookId)).where('feed', '=', feed).execute();
  }
}

export async function feedsOf(db: Kysely<any>, webhookIds: readonly number[]): Promise<Map<number, Set<Feed>>> {
  const out = new Map<number, Set<Feed>>();
  if (webhookIds.length === 0) return out;
  const rows = await w(db).selectFrom('webhook_feed_subs').select(['webhook_id', 'feed']).where('webhook_id', 'in', webhookIds.map(BigInt)).execute();
  for (const r of rows) {
    const id = toNum(r.webhook_id);
    if (!out.has(id)) out.set(id, new Set());
    out.get(id)!.add(r.feed as Feed);
  }
  return out;
}

/** Removes every subscription of a webhook. */
export async function deleteSubscriptions(db: Kysely<any>, webhookId: number): Promise<void> {
  await w(db).deleteFrom('webhook_account_subs').where('webhook_id', '=', BigInt(webhookId)).execute();
  await w(db).deleteFrom('webhook_opcode_subs').where('webhook_id', '=', BigInt(webhookId)).execute();
  await w(db).deleteFrom('webhook_feed_subs').where('webhook_id', '=', BigInt(webhookId)).execute();
}

/** Everything the router's in-memory index needs. */
/** Every webhook's subscriptions, or one webhook's (`webhookId`). */
export async function loadAllSubscriptions(db: Kysely<any>, webhookId?: number) {
  const only = webhookId === undefined ? undefined : BigInt(webhookId);
  const accounts = await w(db).selectFrom('webhook_account_subs').select(['webhook_id', 'account_id']).$if(only !== undefined, (q) => q.where('webhook_id', '=', only!)).execute();
  const opcodes = await w(db).selectFrom('webhook_opcode_subs').select(['webhook_id', 'opcode']).where('status', '=', 'active').$if(only !== undefined, (q) => q.where('webhook_id', '=', only!)).execute();
  const feeds = await w(db).selectFrom('webhook_feed_subs').select(['webhook_id', 'feed']).$if(only !== undefined, (q) => q.where('webhook_id', '=', only!)).execute();
  return {
    accounts: accounts.map((r) => ({ webhookId: toNum(r.webhook_id), account: r.account_id })),
    opcodes: opcodes.map((r) => ({ webhookId: toNum(r.webhook_id), opcode: toNum(r.opcode) })),
    feeds: feeds.map((r) => ({ webhookId: toNum(r.webhook_id), feed: r.feed as Feed })),
  };
}

/** Moves cursors after successful deliveries: `last_delivered_lt` only grows; the stuck event clears. */
export async function markDelivered(db: Kysely<any>, delivered: ReadonlyArray<{ webhookId: number; account: string; lt: bigint }>): Promise<void> {
  for (const part of chunks(delivered, 300)) {
    const values = sql.join(part.map((d) => sql`(CAST(${BigInt(d.webhookId)} AS BIGINT), CAST(${d.account} AS TEXT), CAST(${d.lt} AS BIGINT))`));
    await sql`
      UPDATE webhook_account_subs
      SET last_delivered_lt = CASE WHEN v.column3 > webhook_account_subs.last_delivered_lt THEN v.column3 ELSE webhook_account_subs.last_delivered_lt END,
          failed_at = NULL, failed_lt = NULL, failed_attempts = NULL
      FROM (VALUES ${values}) AS v
      WHERE webhook_account_subs.webhook_id = v.column1 AND webhook_account_subs.account_id = v.column2`.execute(db);
  }
}

/** Records the event an account's deliveries are stuck on. */
export async function markFailing(db: Kysely<any>, webhookId: number, account: string, lt: bigint, at: number, attempts: number): Promise<void> {
  await w(db)
    .updateTable('webhook_account_subs')
    .set({ failed_at: BigInt(at), failed_lt: lt, failed_attempts: BigInt(attempts) })
    .where('webhook_id', '=', BigInt(webhookId))
    .where('account_id', '=', account)
    .execute();
}
