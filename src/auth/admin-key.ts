// The admin key at start: TONWATCH_ADMIN_KEY when set (for automation), else one generated on the
// first start and handed back once so `serve` can print it. The variable is authoritative for the
// keys it created: changing or unsetting it revokes the previous one.
import { ConfigError, type Config } from '../config.js';
import type { Store } from '../store/db.js';
import { ApiKeys } from './keys.js';

export interface AdminKeyResult {
  /** The secret, only when it was generated just now. */
  key?: string;
  keyId: string;
  source: 'env' | 'generated' | 'existing';
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
    return { keyId: key.id, source: 'env' };
  }

  for (const old of previousEnvKeys) await keys.revokeKey(old.id);
  const admin = active.find((k) => k.origin !== 'env' && k.scopes.includes('admin'));
  if (admin) return { keyId: admin.id, source: 'existing' };
  const created = await keys.createKey({ name: 'admin (generated on first start)', scopes: ['admin'], origin: 'generated' });
  return { key: created.key, keyId: created.id, source: 'generated' };
}
