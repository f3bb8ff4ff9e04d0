// The admin key at start: TONWATCH_ADMIN_KEY when set (for automation), else one generated on the
// first start and handed back once so `serve` can print it. The variable is authoritative for the
// keys it created: changing or unsetting it revokes the previous one, and the result says which (the
// banner and the log repeat it: a client holding the old key otherwise meets a 401 it cannot explain).
// Keys made otherwise (generated, `keys create`, the admin API) are never revoked here.
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
  /** Keys from an earlier TONWATCH_ADMIN_KEY revoked by this start, and why. */
  revoked: Array<{ id: string; hint: string; reason: string }>;
}

export async function ensureAdminKey(
  store: Store,
  config: Pick<Config, 'adminKey'>,
  opts: { now?: () => number } = {},
): Promise<AdminKeyResult> {
  const keys = new ApiKeys(store, { now: opts.now });
  const active = await keys.listKeys({ includeRevoked: false, limit: 10_000 });
  const previousEnvKeys = active.filter((k) => k.origin === 'env');
  const revoked: AdminKeyResult['revoked'] = [];
  const revoke = async (old: ApiKeyInfo, reason: string) => {
    await keys.revokeKey(old.id);
    revoked.push({ id: old.id, hint: old.hint, reason });
  };

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
    for (const old of previousEnvKeys) {
      if (old.id !== key.id) await revoke(old, 'TONWATCH_ADMIN_KEY now holds another key (one admin key from the environment at a time)');
    }
    return { keyId: key.id, source: 'env', otherAdminKeys: otherAdmins(active, key.id), revoked };
  }

  for (const old of previousEnvKeys) await revoke(old, 'TONWATCH_ADMIN_KEY is no longer set');
  const admin = active.find((k) => k.origin !== 'env' && k.scopes.includes('admin'));
  if (admin) return { keyId: admin.id, source: 'existing', otherAdminKeys: otherAdmins(active, admin.id), revoked };
  const created = await keys.createKey({ name: 'admin (generated on first start)', scopes: ['admin'], origin: 'generated' });
  return { key: created.key, keyId: created.id, source: 'generated', otherAdminKeys: otherAdmins(active, created.id), revoked };
}

/** Active admin keys other than `keyId`; env keys were revoked above unless they are `keyId`. */
function otherAdmins(active: ApiKeyInfo[], keyId: string): Array<{ id: string; name: string }> {
  return active.filter((k) => k.id !== keyId && k.origin !== 'env' && k.scopes.includes('admin')).map((k) => ({ id: k.id, name: k.name }));
}

/** What the banner and the log say of a key this start revoked. */
export function revokedAdminKeyLine(k: AdminKeyResult['revoked'][number]): string {
  return `admin key ${k.id} (${k.hint}…, from TONWATCH_ADMIN_KEY) was revoked at this start: ${k.reason}; requests with it now get 401`;
}
