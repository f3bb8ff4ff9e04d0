// The admin key at start: TONWATCH_ADMIN_KEY when set (for automation), else one generated on the
// first start and handed back once so `serve` can print it. The variable is authoritative for the
// keys it created: changing or unsetting it revokes the previous one.
import { ConfigError, type Config } from '../config.js';
import type { Store } from '../store/db.js';
import { ApiKeys, type ApiKeyInfo } from './keys.js';

export interface AdminKeyResult {
  /** The secret, only when it was generated just now. */
  key?: string;
  keyId: string;
  source: 'env' | 'generated' | 'existing';
  /** Other active keys with the admin scope (a generated key stays valid when TONWATCH_ADMIN_KEY is set later). */
  otherAdminKeys: Array<{ id: string; name: string }>;
}

export async function ensureAdminKey(
  store: Store,
  config: Pick<Config, 'adminKey'>,
  opts: { now?: () => number } = {},
): Promise<AdminKeyResult> {
  const keys = new ApiKeys(store, { now: opts.now });
  const active = await keys.listKeys({ includeRevoked: false, limit: 10_000 });
  const previousEnvKeys = active.filter((k) => k.origin === 'env');

  if (config.adminKey) {
    let key = await keys.findBySecret(config.adminKey);
    if (key && key.origin !== 'env') {
      throw new ConfigError([
        {
          setting: 'TONWATCH_ADMIN_KEY',
          message: `TONWATCH_ADMIN_KEY: must not be a key that already exists (it is key ${key.id}, "${key.name}")`,
        },
      ]);
    }
    if (!key) {
      key = await keys.createKey({ name: 'admin (TONWATCH_ADMIN_KEY)', scopes: ['admin'], origin: 'env' }, config.adminKey);
    } else if (key.revokedAt !== null) {
      await keys.restoreKey(key.id);
    }
    for (const old of previousEnvKeys) if (old.id !== key.id) await keys.revokeKey(old.id);
    return { keyId: key.id, source: 'env', otherAdminKeys: otherAdmins(active, key.id) };
  }

  for (const old of previousEnvKeys) await keys.revokeKey(old.id);
  const admin = active.find((k) => k.origin !== 'env' && k.scopes.includes('admin'));
  if (admin) return { keyId: admin.id, source: 'existing', otherAdminKeys: otherAdmins(active, admin.id) };
  const created = await keys.createKey({ name: 'admin (generated on first start)', scopes: ['admin'], origin: 'generated' });
  return { key: created.key, keyId: created.id, source: 'generated', otherAdminKeys: otherAdmins(active, created.id) };
}

/** Active admin keys other than `keyId`; env keys were revoked above unless they are `keyId`. */
function otherAdmins(active: ApiKeyInfo[], keyId: string): Array<{ id: string; name: string }> {
  return active.filter((k) => k.id !== keyId && k.origin !== 'env' && k.scopes.includes('admin')).map((k) => ({ id: k.id, name: k.name }));
}
