// Endpoints in the store: create, read, rotate credentials, record status, delete (with their
// deliveries and logs). The engine keeps a cache of them; go through DeliveryEngine to change one.
import type { Kysely } from 'kysely';
import { newDeliveryToken, newSigningSecret } from './signing.js';
import { deliveryDb, endpointFromRow } from './tables.js';
import type { Endpoint } from './types.js';

export interface NewEndpoint {
  producer: string;
  owner: string;
  /** Already checked (form and SSRF) by the caller through DeliveryEngine. */
  url: string;
}

export async function insertEndpoint(db: Kysely<any>, input: NewEndpoint, now: number): Promise<Endpoint> {
  const row = await deliveryDb(db)
    .insertInto('delivery_endpoints')
    .values({
      producer: input.producer,
      owner: input.owner,
      url: input.url,
      token: newDeliveryToken(),
      secret: newSigningSecret(),
      previous_secret: null,
      previous_secret_until: null,
      status: 'online',
      status_reason: null,
      status_updated_at: BigInt(now),
      last_online_at: BigInt(now),
      failed_attempts: 0n,
      created_at: BigInt(now),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return endpointFromRow(row);
}

export async function selectEndpoint(db: Kysely<any>, id: number): Promise<Endpoint | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const row = await deliveryDb(db).selectFrom('delivery_endpoints').selectAll().where('id', '=', BigInt(id)).executeTakeFirst();
  return row ? endpointFromRow(row) : null;
}

export async function selectEndpoints(db: Kysely<any>, filter: { producer?: string; owner?: string } = {}): Promise<Endpoint[]> {
  let q = deliveryDb(db).selectFrom('delivery_endpoints').selectAll().orderBy('id');
  if (filter.producer !== undefined) q = q.where('producer', '=', filter.producer);
  if (filter.owner !== undefined) q = q.where('owner', '=', filter.owner);
  return (await q.execute()).map(endpointFromRow);
}

/** The endpoints among `ids` that still exist. */
export async function selectEndpointsByIds(db: Kysely<any>, ids: readonly number[]): Promise<Endpoint[]> {
  if (ids.length === 0) return [];
  const rows = await deliveryDb(db).selectFrom('delivery_endpoints').selectAll().where('id', 'in', ids.map(BigInt)).execute();
  return rows.map(endpointFromRow);
}

/** A new token and a new secret; the old secret keeps signing until `now + overlapMs`. */
export async function rotateCredentials(db: Kysely<any>, endpoint: Endpoint, now: number, overlapMs: number): Promise<Endpoint> {
  const token = newDeliveryToken();
  const secret = newSigningSecret();
  const until = overlapMs > 0 ? now + overlapMs : null;
  await deliveryDb(db)
    .updateTable('delivery_endpoints')
    .set({
      token,
      secret,
      previous_secret: until === null ? null : endpoint.secret,
      previous_secret_until: until === null ? null : BigInt(until),
    })
    .where('id', '=', BigInt(endpoint.id))
    .execute();
  return { ...endpoint, token, secret, previousSecret: until === null ? null : endpoint.secret, previousSecretUntil: until };
}

export async function updateEndpointUrl(db: Kysely<any>, id: number, url: string): Promise<void> {
  await deliveryDb(db).updateTable('delivery_endpoints').set({ url }).where('id', '=', BigInt(id)).execute();
}

/** Writes the status fields the worker keeps in memory. */
export async function saveEndpointStatus(db: Kysely<any>, e: Endpoint): Promise<void> {
  await deliveryDb(db)
    .updateTable('delivery_endpoints')
    .set({
      status: e.status,
      status_reason: e.statusReason,
      status_updated_at: BigInt(e.statusUpdatedAt),
      last_online_at: BigInt(e.lastOnlineAt),
      failed_attempts: BigInt(e.failedAttempts),
    })
    .where('id', '=', BigInt(e.id))
    .execute();
}

/** Removes the endpoint, its deliveries (pending or not) and its logs. */
export async function deleteEndpointRows(db: Kysely<any>, id: number): Promise<boolean> {
  const d = deliveryDb(db);
  await d.deleteFrom('delivery_outbox').where('endpoint_id', '=', BigInt(id)).execute();
  await d.deleteFrom('delivery_attempt_log').where('endpoint_id', '=', BigInt(id)).execute();
  const r = await d.deleteFrom('delivery_endpoints').where('id', '=', BigInt(id)).executeTakeFirst();
  return r.numDeletedRows > 0n;
}

/** The secrets that sign a delivery at `now`: the current one, and the previous while it overlaps. */
export function activeSecrets(e: Pick<Endpoint, 'secret' | 'previousSecret' | 'previousSecretUntil'>, now: number): string[] {
  return e.previousSecret && e.previousSecretUntil !== null && now < e.previousSecretUntil ? [e.secret, e.previousSecret] : [e.secret];
}
