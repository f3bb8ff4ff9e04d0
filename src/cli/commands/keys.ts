// `tonwatch keys create|list|revoke`: API keys, straight on the configured store (same configuration
// as `serve`), so it works while the server is down. Running servers see a new key and a revocation at
// once: on SQLite by the file's data version, on PostgreSQL by the announcement sent here (src/auth/keys.ts).
import { parseArgs } from 'node:util';
import { API_KEYS_TOPIC, ApiKeys, KeyInputError, SCOPE_DESCRIPTIONS, SCOPES, type ApiKeyInfo } from '../../auth/keys.js';
import { storeChangeFeed } from '../../bus/changes.js';
import { ConfigError, loadConfig, storeOptions } from '../../config.js';
import { keyJson } from '../../http/admin-keys.js';
import { openStore } from '../../store/db.js';
import { allMigrations } from '../../components.js';
import { migrate } from '../../store/migrate.js';
import { PROGRAM } from '../program.js';

export const summary = 'create, list and revoke API keys (works while the server is down)';

const USAGE = `usage:
  ${PROGRAM} keys create --name <name> --scope <scope> [--scope <scope> …] [--owner-ref <ref>] [--json]
  ${PROGRAM} keys list [--owner-ref <ref>] [--active] [--json]
  ${PROGRAM} keys revoke <id> [--json]

scopes:
${SCOPES.map((s) => `  ${s.padEnd(10)} ${SCOPE_DESCRIPTIONS[s]}`).join('\n')}
The store is the one \`tonwatch serve\` uses: DATABASE_URL, or TONWATCH_DATA_DIR/tonwatch.sqlite
(settings also from the JSON file in TONWATCH_CONFIG).`;

class UsageError extends Error {}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (!sub || sub === '--help' || sub === '-h' || sub === 'help') {
    console.log(USAGE);
    return sub ? 0 : 2;
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        scope: { type: 'string', multiple: true },
        'owner-ref': { type: 'string' },
        active: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (!['create', 'list', 'revoke'].includes(sub)) throw new UsageError(`unknown keys command '${sub}'`);
    if (sub !== 'revoke' && positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    if (sub === 'revoke' && positionals.length !== 1) throw new UsageError('revoke takes exactly one key id');
    if (sub === 'create' && !values.name) throw new UsageError('--name is required');
    if (sub === 'create' && !values.scope?.length) throw new UsageError('at least one --scope is required');

    const config = loadConfig(process.env);
    const store = await openStore(storeOptions(config));
    try {
      await migrate(store, allMigrations);
      const changes = await storeChangeFeed(store);
      const keys = new ApiKeys(store, { onRevoke: (keyId) => changes.announce(API_KEYS_TOPIC, keyId) });
      const json = values.json === true;
      if (sub === 'create') {
        const created = await keys.createKey({ name: values.name!, scopes: values.scope!, ownerRef: values['owner-ref'], origin: 'cli' });
        if (json) console.log(JSON.stringify({ ...keyJson(created), key: created.key }));
        else {
          console.log(`created key ${created.id} "${created.name}" with scopes ${created.scopes.join(', ')}`);
          console.log(`key (shown only now): ${created.key}`);
        }
        return 0;
      }
      if (sub === 'list') {
        const list = await keys.listKeys({ ownerRef: values['owner-ref'], includeRevoked: !values.active, limit: 10_000 });
        console.log(json ? JSON.stringify({ keys: list.map(keyJson) }) : formatTable(list));
        return 0;
      }
      const revoked = await keys.revokeKey(positionals[0]!);
      if (!revoked) {
        console.error(`tonwatch keys: no API key with id '${positionals[0]}'`);
        return 1;
      }
      console.log(json ? JSON.stringify(keyJson(revoked)) : `revoked key ${revoked.id} "${revoked.name}"; running servers refuse it from now on`);
      return 0;
    } finally {
      await store.close();
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`tonwatch keys: ${(err as Error).message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof ConfigError || err instanceof KeyInputError) {
      console.error(`tonwatch keys: ${err.message}`);
      return 2;
    }
    throw err;
  }
}

function formatTable(list: ApiKeyInfo[]): string {
  if (list.length === 0) return 'no API keys';
  const date = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'));
  const rows = [
    ['ID', 'NAME', 'SCOPES', 'OWNER', 'KEY', 'CREATED', 'LAST USED', 'REVOKED'],
    ...list.map((k) => [k.id, k.name, k.scopes.join(','), k.ownerRef ?? '-', `${k.hint}…`, date(k.createdAt), date(k.lastUsedAt), date(k.revokedAt)]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}
