import { afterEach, describe, expect, it } from 'vitest';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import type { Store } from '../store/db.js';
import { ConfigError } from '../config.js';
import { ensureAdminKey } from './admin-key.js';
import { ApiKeys, KeyInputError, hasScope, hashKey } from './keys.js';

describe.each(dialects)('API keys on %s', (dialect) => {
  let store: Store | undefined;
  afterEach(async () => {
    if (store) await dropTestStore(store);
    store = undefined;
  });

  it('creates a key shown once, stores only its hash, and verifies it', async () => {
    store = await openTestStore(dialect);
    const keys = new ApiKeys(store);
    const created = await keys.createKey({ name: ' hooks ', scopes: ['webhooks', 'streaming', 'webhooks'], ownerRef: 'app:7' });
    expect(created.key).toMatch(/^tw_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ name: 'hooks', scopes: ['streaming', 'webhooks'], ownerRef: 'app:7', origin: 'api', revokedAt: null });
    expect(created.hint).toBe(created.key.slice(0, 7));

    const rows = await store.db.selectFrom('api_keys').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(created.key);
    expect(rows[0].key_hash).toBe(hashKey(created.key));

    const principal = await keys.verify(created.key);
    expect(principal).toEqual({ keyId: created.id, name: 'hooks', scopes: ['streaming', 'webhooks'], ownerRef: 'app:7' });
    expect(hasScope(principal!, 'webhooks')).toBe(true);
    expect(hasScope(principal!, 'invoices')).toBe(false);
    expect(await keys.verify(created.key + 'x')).toBeNull();
    expect(await keys.verify('')).toBeNull();
    expect(await keys.verify('x'.repeat(10_000))).toBeNull();
  });

  it('admin holds every scope', async () => {
    store = await openTestStore(dialect);
    const keys = new ApiKeys(store);
    const admin = await keys.createKey({ name: 'root', scopes: ['admin'] });
    const p = (await keys.verify(admin.key))!;
    for (const s of ['streaming', 'webhooks', 'invoices', 'indexer', 'admin'] as const) expect(hasScope(p, s)).toBe(true);
  });

  it('revocation takes effect at once in-process, and within the cache time in another process', async () => {
    store = await openTestStore(dialect);
    let now = 1_000_000;
    const api = new ApiKeys(store, { now: () => now, cacheTtlMs: 10_000 });
    const other = new ApiKeys(store, { now: () => now, cacheTtlMs: 10_000 });
    const created = await api.createKey({ name: 'k', scopes: ['indexer'] });
    expect(await api.verify(created.key)).not.toBeNull();
    expect(await other.verify(created.key)).not.toBeNull();

    const revoked = await api.revokeKey(created.id);
    expect(revoked?.revokedAt).toBe(now);
    expect(await api.verify(created.key)).toBeNull();
    // `other` (think: the server, while the CLI revoked) still trusts its cache until the TTL passes.
    expect(await other.verify(created.key)).not.toBeNull();
    now += 10_001;
    expect(await other.verify(created.key)).toBeNull();

    // Idempotent; unknown ids answer null.
    expect((await api.revokeKey(created.id))?.revokedAt).toBe(1_000_000);
    expect(await api.revokeKey('key_missing')).toBeNull();
  });

  it('lists newest first, filters by owner and state, and records use sparingly', async () => {
    store = await openTestStore(dialect);
    let now = 5_000;
    const keys = new ApiKeys(store, { now: () => now, touchIntervalMs: 60_000 });
    const a = await keys.createKey({ name: 'a', scopes: ['invoices'], ownerRef: 'app:1' });
    now += 1;
    const b = await keys.createKey({ name: 'b', scopes: ['invoices'], ownerRef: 'app:2' });
    now += 1;
    const c = await keys.createKey({ name: 'c', scopes: ['webhooks'] });
    await keys.revokeKey(c.id);
    expect((await keys.listKeys()).map((k) => k.name)).toEqual(['c', 'b', 'a']);
    expect((await keys.listKeys({ includeRevoked: false })).map((k) => k.name)).toEqual(['b', 'a']);
    expect((await keys.listKeys({ ownerRef: 'app:1' })).map((k) => k.id)).toEqual([a.id]);
    expect((await keys.listKeys({ limit: 1, offset: 1 })).map((k) => k.id)).toEqual([b.id]);

    now = 100_000;
    await keys.verify(b.key);
    await waitFor(async () => (await keys.getKey(b.id))?.lastUsedAt === 100_000);
    now = 120_000; // within the touch interval: not written again
    await keys.verify(b.key);
    now = 170_000;
    await keys.verify(b.key);
    await waitFor(async () => (await keys.getKey(b.id))?.lastUsedAt === 170_000);
  });

  it('rejects bad input naming the field', async () => {
    store = await openTestStore(dialect);
    const keys = new ApiKeys(store);
    const fieldOf = async (input: Parameters<ApiKeys['createKey']>[0]) => {
      const err = await keys.createKey(input).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KeyInputError);
      return (err as KeyInputError).field;
    };
    expect(await fieldOf({ name: '', scopes: ['webhooks'] })).toBe('name');
    expect(await fieldOf({ name: 'x'.repeat(101), scopes: ['webhooks'] })).toBe('name');
    expect(await fieldOf({ name: 'n', scopes: [] })).toBe('scopes');
    expect(await fieldOf({ name: 'n', scopes: ['root'] })).toBe('scopes');
    expect(await fieldOf({ name: 'n', scopes: ['webhooks'], ownerRef: 'has space' })).toBe('owner_ref');
    expect(await keys.listKeys()).toHaveLength(0);
  });

  it('ensureAdminKey: generates once, then finds the existing one', async () => {
    store = await openTestStore(dialect);
    const first = await ensureAdminKey(store, { adminKey: undefined });
    expect(first.source).toBe('generated');
    expect(first.key).toMatch(/^tw_/);
    const keys = new ApiKeys(store);
    expect((await keys.verify(first.key!))?.scopes).toEqual(['admin']);
    const second = await ensureAdminKey(store, { adminKey: undefined });
    expect(second).toEqual({ keyId: first.keyId, source: 'existing', otherAdminKeys: [], revoked: [] });
    expect(await keys.listKeys()).toHaveLength(1);
  });

  it('ensureAdminKey: TONWATCH_ADMIN_KEY is the admin key; changing or unsetting it revokes the old one', async () => {
    store = await openTestStore(dialect);
    // A fresh ApiKeys per check: ensureAdminKey runs before the server's instance (and its cache) exists.
    const verify = (secret: string) => new ApiKeys(store!).verify(secret);
    const one = await ensureAdminKey(store, { adminKey: 'automation-key-0001' });
    expect(one.source).toBe('env');
    expect(one.key).toBeUndefined();
    expect((await verify('automation-key-0001'))?.scopes).toEqual(['admin']);
    expect((await ensureAdminKey(store, { adminKey: 'automation-key-0001' })).keyId).toBe(one.keyId);

    expect(one.revoked).toEqual([]);
    const two = await ensureAdminKey(store, { adminKey: 'automation-key-0002' });
    expect(two.keyId).not.toBe(one.keyId);
    // the start says which key it revoked and why
    expect(two.revoked).toEqual([{ id: one.keyId, hint: 'auto', reason: 'TONWATCH_ADMIN_KEY now holds another key (one admin key from the environment at a time)' }]);
    expect(await verify('automation-key-0001')).toBeNull();
    expect(await verify('automation-key-0002')).not.toBeNull();

    // Set back to a revoked env key: the variable is authoritative.
    await ensureAdminKey(store, { adminKey: 'automation-key-0001' });
    expect(await verify('automation-key-0001')).not.toBeNull();
    expect(await verify('automation-key-0002')).toBeNull();

    const unset = await ensureAdminKey(store, { adminKey: undefined });
    expect(unset.source).toBe('generated');
    expect(unset.revoked).toEqual([{ id: one.keyId, hint: 'auto', reason: 'TONWATCH_ADMIN_KEY is no longer set' }]);
    expect(await verify('automation-key-0001')).toBeNull();
    expect(await verify(unset.key!)).not.toBeNull();
  });

  it('ensureAdminKey: setting TONWATCH_ADMIN_KEY after a plain start leaves the generated key valid and says so', async () => {
    store = await openTestStore(dialect);
    const generated = await ensureAdminKey(store, { adminKey: undefined });
    const env = await ensureAdminKey(store, { adminKey: 'automation-key-0003' });
    expect(env.otherAdminKeys).toEqual([{ id: generated.keyId, name: 'admin (generated on first start)' }]);
    expect(env.revoked).toEqual([]);
    expect(await new ApiKeys(store).verify(generated.key!)).not.toBeNull();
    // Revoked as the banner says, it is no longer counted.
    await new ApiKeys(store).revokeKey(generated.keyId);
    expect((await ensureAdminKey(store, { adminKey: 'automation-key-0003' })).otherAdminKeys).toEqual([]);
  });

  it('ensureAdminKey refuses a TONWATCH_ADMIN_KEY equal to an existing key', async () => {
    store = await openTestStore(dialect);
    const keys = new ApiKeys(store);
    const hooks = await keys.createKey({ name: 'hooks', scopes: ['webhooks'] });
    const err = await ensureAdminKey(store, { adminKey: hooks.key }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/^TONWATCH_ADMIN_KEY: /);
    expect((await keys.verify(hooks.key))?.scopes).toEqual(['webhooks']);
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
