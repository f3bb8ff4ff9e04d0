// `tonwatch serve` (= `npm start`): every API on one port, the chain source, the follower.
// SIGTERM/SIGINT stop gracefully; a second signal exits at once.
import { ConfigError, loadConfig } from '../../config.js';
import { componentFactories } from '../../components.js';
import { startService } from '../../service/service.js';
import { revokedAdminKeyLine } from '../../auth/admin-key.js';
import { ChainMismatchError } from '../../pipeline/chain-identity.js';
import { stopOnSignal } from '../signals.js';
import { GlobalConfigUnreachableError } from '../../chain/liteserver/config.js';
import { ListenError } from '../../service/starting.js';
import { StoreUnreachableError } from '../../store/db.js';
import { StoreInUseError } from '../../store/owner.js';
import { PROGRAM } from '../program.js';

export const summary = 'start tonwatch: the chain source, the follower and every HTTP API on one port';

const USAGE = `usage: ${PROGRAM} serve

Configuration comes from environment variables (and the JSON file named by TONWATCH_CONFIG);
see the README's configuration table. PORT (default 8080) serves every API, /docs and /metrics.`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  if (argv.length > 0) {
    console.error(`tonwatch serve: unexpected argument '${argv[0]}'\n\n${USAGE}`);
    return 2;
  }
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`tonwatch: invalid configuration\n${err.message}`);
      return 2;
    }
    throw err;
  }
  let service;
  try {
    service = await startService(config, {
      components: componentFactories,
      // a generated key is shown as soon as it is stored: the start may then wait a while for the chain
      onAdminKey: (generated) => {
        if (generated.key) console.error(`\n  admin key (shown once, store it now): ${generated.key}\n`);
      },
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`tonwatch: invalid configuration\n${err.message}`);
      return 2;
    }
    if (
      err instanceof ChainMismatchError ||
      err instanceof StoreInUseError ||
      err instanceof ListenError ||
      err instanceof StoreUnreachableError ||
      err instanceof GlobalConfigUnreachableError
    ) {
      console.error(`tonwatch: ${err.message}`);
      return 2;
    }
    throw err;
  }
  const { url, adminKey } = service;
  const lines = [
    '',
    `tonwatch is running on the ${service.source.network} chain`,
    `  API and docs     ${url}/docs`,
    `  health, metrics  ${url}/readyz  ${url}/metrics`,
    `  streams          ${url}/v2/sse/accounts/transactions?accounts=ALL`,
  ];
  if (service.source.network === 'devnet') lines.push(`  devnet control   ${url}/devnet/wallets`);
  for (const c of service.components) lines.push(...(c.banner?.() ?? []));
  if (config.chain === 'liteserver') lines.push(`  liteservers      ${PROGRAM} chain info   (trust level ${config.trust})`);
  if (adminKey.key) lines.push('', '  admin key: generated at this start, printed above (shown once)');
  else lines.push('', `  admin key: ${adminKey.source === 'env' ? 'from TONWATCH_ADMIN_KEY' : `as printed on first start (create more with \`${PROGRAM} keys\`)`}`);
  lines.push(...otherAdminKeyLines(adminKey.otherAdminKeys));
  lines.push(...adminKey.revoked.map((k) => `  ${revokedAdminKeyLine(k)}`));

  // The handlers are in place before the banner says the server runs: a SIGTERM right after it stops gracefully.
  const stopped = stopOnSignal(() => service.stop());
  console.error(lines.join('\n') + '\n');
  return stopped;
}

/** Admin keys besides the one in use stay valid (e.g. the generated one after TONWATCH_ADMIN_KEY is set): say so. */
export function otherAdminKeyLines(others: ReadonlyArray<{ id: string; name: string }>): string[] {
  if (others.length === 0) return [];
  const list = others.map((k) => `${k.id} "${k.name}"`).join(', ');
  return [
    `  ${others.length} other admin key${others.length === 1 ? ' is' : 's are'} also active: ${list}`,
    `  revoke one with \`${PROGRAM} keys revoke <id>\` (\`keys list\` shows them all)`,
  ];
}
