// Module API of auth: API keys with scopes, stored hashed (keys.ts), and the admin key at start.
// The Fastify side (route `config.auth`, `request.principal`, the admin API) is src/http/auth.ts.
export {
  ApiKeys,
  KeyInputError,
  SCOPES,
  generateKey,
  hasScope,
  hashKey,
  isScope,
  type ApiKeyInfo,
  type ApiKeysOptions,
  type CreatedKey,
  type KeyOrigin,
  type NewKey,
  type Principal,
  type Scope,
} from './keys.js';
export { ensureAdminKey, revokedAdminKeyLine, type AdminKeyResult } from './admin-key.js';
export { authMigrations } from './migrations.js';
