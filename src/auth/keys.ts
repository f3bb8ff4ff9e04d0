// API keys: `tw_<base64url random>`, stored only as their sha256 (the secrets are high-entropy, so a
// fast hash is enough), with scopes and an optional owner reference. `verify` is on every
// authenticated request, so it keeps a small in-memory cache (a PostgreSQL lookup costs a round trip).
// A revocation takes effect at once everywhere: in this process it clears the cache; on SQLite a commit
// by another process (the `keys` command) changes the file's data version, checked on every verify; on
// PostgreSQL the revoking process announces it (`onRevoke`: a NOTIFY the service wires) and every
// process that hears it calls `forgetAll`. `cacheTtlMs` bounds how long a missed announcement can last.
import { createHash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { tables, type Store } from '../store/db.js';

export const SCOPES = ['streaming', 'webhooks', 'invoices', 'indexer', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope reaches; the indexer is one shared deposit pool per deployment, so its keys are operator keys. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  streaming: 'SSE and WebSocket streams (also usable without a key, limited per client address)',
  webhooks: "webhooks and subscriptions; each key sees only the webhooks it created",
  invoices: "invoicing, through an application's token, which reaches only its own application (the admin key manages them all)",
  indexer: 'operator access to the deposit indexer: reads and tracks every address of the one shared pool',
  admin: 'every scope, plus API keys',
};

/** How a key came to be: the admin API, the CLI, TONWATCH_ADMIN_KEY, or generated on first start. */
export type KeyOrigin = 'api' | 'cli' | 'env' | 'generated';

/** Who is calling: set on `request.principal` for authenticated requests. */
export interface Principal {
  keyId: string;
  name: string;
  scopes: readonly Scope[];
  /** What the key is bound to, e.g. `app:<id>` for an invoicing application's token. */
  ownerRef: string | null;
}

export interface ApiKeyInfo {
  id: string;
  name: string;
  scopes: Scope[];
  ownerRef: string | null;
  /** First characters of the key, to tell keys apart. */
  hint: string;
  origin: KeyOrigin;
  /** Unix milliseconds. */
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface CreatedKey extends ApiKeyInfo {
  /** The secret itself: shown once, never stored. */
  key: string;
}

export interface NewKey {
  name: string;
  scopes: readonly string[];
  ownerRef?: string | null;
  origin?: KeyOrigin;
}

/** Bad input to the keys module; `field` names what is wrong. */
export class KeyInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'KeyInputError';
  }
}

interface ApiKeysTable {
  api_keys: {
    id: string;
    name: string;
    scopes: string;
    owner_ref: string | null;
    key_hash: string;
    key_hint: string;
    origin: string;
    created_at: bigint;
    last_used_at: bigint | null;
    revoked_at: bigint | null;
  };
}
type KeyRow = ApiKeysTable['api_keys'];

export const KEY_PREFIX = 'tw_';
/** The change-feed topic a revocation is announced on (src/bus/changes.ts), so other processes forget their caches. */
export const API_KEYS_TOPIC = 'api_keys';
const MAX_SECRET_LENGTH = 512;

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function generateKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** True when the principal holds `scope` (admin holds every scope). */
export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes('admin') || principal.scopes.includes(scope);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

export interface ApiKeysOptions {
  now?: () => number;
  /** How long a verified (or unknown) key is trusted without asking the store again. */
  cacheTtlMs?: number;
  /** Most cached keys; the oldest entries go first. */
  cacheSize?: number;
  /** `last_used_at` is written at most this often per key. */
  touchIntervalMs?: number;
  logger?: Logger;
  /** Told after this instance revoked or restored a key, before the call returns: other processes forget their caches. */
  onRevoke?: (keyId: string) => Promise<void>;
}

interface CacheEntry {
  principal: Principal | null;
  at: number;
}

export class ApiKeys {
  private readonly db;
  private readonly now: () => number;
  private readonly ttl: number;
  private readonly cacheSize: number;
  private readonly touchInterval: number;
  /** Oldest cached leaves first (a hit does not move an entry); LRUCache, not a Map: V8 makes a Map's oldest-key eviction cost O(size). */
  private readonly cache: LRUCache<string, CacheEntry>;
  private readonly inFlight = new Map<string, Promise<Principal | null>>();
  private readonly touchedAt = new Map<string, number>();
  /** Bumped by every revocation, so a lookup that raced with one does not cache what it read. */
  private epoch = 0;
  /** The SQLite file's data version the cache was filled at (undefined on PostgreSQL). */
  private dataVersion: number | undefined;

  constructor(
    private readonly store: Store,
    private readonly opts: ApiKeysOptions = {},
  ) {
    this.db = tables<ApiKeysTable>(store);
    this.now = opts.now ?? Date.now;
    this.ttl = opts.cacheTtlMs ?? 10_000;
    this.cacheSize = opts.cacheSize ?? 10_000;
    this.cache = new LRUCache({ max: this.cacheSize });
    this.touchInterval = opts.touchIntervalMs ?? 60_000;
  }

  /** Creates a key; the returned `key` is the only time the secret is seen. */
  async createKey(input: NewKey, secret: string = generateKey()): Promise<CreatedKey> {
    const name = checkName(input.name);
    const scopes = checkScopes(input.scopes);
    const ownerRef = checkOwnerRef(input.ownerRef);
    const row: KeyRow = {
      id: 'key_' + randomBytes(8).toString('hex'),
      name,
      scopes: scopes.join(','),
      owner_ref: ownerRef,
      key_hash: hashKey(secret),
      key_hint: secret.slice(0, secret.startsWith(KEY_PREFIX) ? KEY_PREFIX.length + 4 : 4),
      origin: input.origin ?? 'api',
      created_at: BigInt(this.now()),
      last_used_at: null,
      revoked_at: null,
    };
    await this.db.insertInto('api_keys').values(row).execute();
    this.cache.delete(row.key_hash);
    return { ...toInfo(row), key: secret };
  }

  async getKey(id: string): Promise<ApiKeyInfo | null> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toInfo(row) : null;
  }

  /** Keys, newest first. */
  async listKeys(filter: { ownerRef?: string; includeRevoked?: boolean; limit?: number; offset?: number } = {}): Promise<ApiKeyInfo[]> {
    let q = this.db.selectFrom('api_keys').selectAll();
    if (filter.ownerRef !== undefined) q = q.where('owner_ref', '=', filter.ownerRef);
    if (filter.includeRevoked === false) q = q.where('revoked_at', 'is', null);
    const rows = await q
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(Math.min(Math.max(filter.limit ?? 1000, 1), 10_000))
      .offset(Math.max(filter.offset ?? 0, 0))
      .execute();
    return rows.map(toInfo);
  }

  /** Revokes a key at once (idempotent). Null when there is no such key. */
  async revokeKey(id: string): Promise<ApiKeyInfo | null> {
    await this.db
      .updateTable('api_keys')
      .set({ revoked_at: BigInt(this.now()) })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return null;
    this.forget(row.key_hash);
    await this.announce(id);
    return toInfo(row);
  }

  /** Makes a revoked key valid again (TONWATCH_ADMIN_KEY set back to a revoked key). */
  async restoreKey(id: string): Promise<void> {
    await this.db.updateTable('api_keys').set({ revoked_at: null }).where('id', '=', id).execute();
    const row = await this.db.selectFrom('api_keys').select('key_hash').where('id', '=', id).executeTakeFirst();
    if (row) this.forget(row.key_hash);
    await this.announce(id);
  }

  /** Looks a key up by its secret, including revoked ones (for ensureAdminKey). */
  async findBySecret(secret: string): Promise<ApiKeyInfo | null> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hashKey(secret)).executeTakeFirst();
    return row ? toInfo(row) : null;
  }

  /** The principal behind a secret, or null for an unknown or revoked key. */
  async verify(secret: string): Promise<Principal | null> {
    if (typeof secret !== 'string' || secret.length === 0 || secret.length > MAX_SECRET_LENGTH) return null;
    const hash = hashKey(secret);
    const now = this.now();
    this.noticeOtherWriters();
    const cached = this.cache.peek(hash);
    if (cached && now - cached.at < this.ttl) {
      if (cached.principal) this.touch(cached.principal.keyId, now);
      return cached.principal;
    }
    let pending = this.inFlight.get(hash);
    if (!pending) {
      pending = this.lookup(hash, now).finally(() => this.inFlight.delete(hash));
      this.inFlight.set(hash, pending);
    }
    const principal = await pending;
    if (principal) this.touch(principal.keyId, now);
    return principal;
  }

  private async lookup(hash: string, now: number): Promise<Principal | null> {
    const epoch = this.epoch;
    const row = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key_hash', '=', hash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const principal: Principal | null = row
      ? { keyId: row.id, name: row.name, scopes: parseScopes(row.scopes), ownerRef: row.owner_ref }
      : null;
    if (epoch !== this.epoch) return principal;
    this.cache.set(hash, { principal, at: now });
    return principal;
  }

  private forget(hash: string): void {
    this.epoch++;
    this.cache.delete(hash);
    this.inFlight.delete(hash);
  }

  /** Drops every cached answer: another process revoked or restored a key. */
  forgetAll(): void {
    this.epoch++;
    this.cache.clear();
    this.inFlight.clear();
  }

  /** SQLite: another process committed since the cache was filled (perhaps a revocation): start over. */
  private noticeOtherWriters(): void {
    const version = this.store.dataVersion?.();
    if (version === this.dataVersion) return;
    if (this.dataVersion !== undefined) this.forgetAll();
    this.dataVersion = version;
  }

  private async announce(keyId: string): Promise<void> {
    await this.opts.onRevoke?.(keyId).catch((err: unknown) => this.opts.logger?.warn({ err, keyId }, 'could not announce a key revocation to other processes; they see it within the key cache time'));
  }

  /** Records use, at most once per `touchIntervalMs` per key; never blocks or fails the request. */
  private touch(keyId: string, now: number): void {
    const last = this.touchedAt.get(keyId);
    if (last !== undefined && now - last < this.touchInterval) return;
    if (this.touchedAt.size >= this.cacheSize) this.touchedAt.clear();
    this.touchedAt.set(keyId, now);
    this.db
      .updateTable('api_keys')
      .set({ last_used_at: BigInt(now) })
      .where('id', '=', keyId)
      .execute()
      .catch((err: unknown) => this.opts.logger?.warn({ err, keyId }, 'could not record API key use'));
  }
}

function toInfo(row: KeyRow): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    scopes: parseScopes(row.scopes),
    ownerRef: row.owner_ref,
    hint: row.key_hint,
    origin: row.origin as KeyOrigin,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

function parseScopes(text: string): Scope[] {
  return text.split(',').filter(isScope);
}

function checkName(name: unknown): string {
  const n = typeof name === 'string' ? name.trim() : '';
  if (n.length < 1 || n.length > 100 || /[\u0000-\u001f\u007f]/.test(n)) {
    throw new KeyInputError('name', 'name must be 1 to 100 printable characters');
  }
  return n;
}

function checkScopes(scopes: unknown): Scope[] {
  if (!Array.isArray(scopes) || scopes.length === 0) {
    throw new KeyInputError('scopes', `scopes must list at least one of ${SCOPES.join(', ')}`);
  }
  const out = new Set<Scope>();
  for (const s of scopes) {
    const v = typeof s === 'string' ? s.trim().toLowerCase() : '';
    if (!isScope(v)) throw new KeyInputError('scopes', `unknown scope ${JSON.stringify(s)}: allowed are ${SCOPES.join(', ')}`);
    out.add(v);
  }
  return SCOPES.filter((s) => out.has(s));
}

function checkOwnerRef(ownerRef: unknown): string | null {
  if (ownerRef === undefined || ownerRef === null) return null;
  if (typeof ownerRef !== 'string' || ownerRef.length < 1 || ownerRef.length > 200 || /\s/.test(ownerRef)) {
    throw new KeyInputError('owner_ref', 'owner_ref must be 1 to 200 characters without spaces');
  }
  return ownerRef;
}
