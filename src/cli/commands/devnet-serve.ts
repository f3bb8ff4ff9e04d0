// `tonwatch devnet serve`: runs a standalone devnet (src/service/devnet-serve.ts) until SIGTERM/SIGINT.
import { ConfigError, loadConfig } from '../../config.js';
import { startStandaloneDevnet } from '../../service/devnet-serve.js';
import { ListenError } from '../../service/starting.js';
import { stopOnSignal } from '../signals.js';
import { PROGRAM } from '../program.js';

export const USAGE = `usage: ${PROGRAM} devnet serve

Runs the devnet alone: its blocks, its liteserver (ADNL TCP on loopback, port TONWATCH_DEVNET_LITESERVER_PORT,
a free port when unset) and its control API on PORT — no store, follower or other APIs. Point other tonwatch
processes (TONWATCH_CHAIN=liteserver) and TON tools at it with \`${PROGRAM} devnet global-config\`.
Configuration: TONWATCH_DATA_DIR, TONWATCH_BLOCK_INTERVAL_MS, TONWATCH_DEVNET_MANUAL_BLOCKS, TONWATCH_DEVNET_CONTROL,
PORT, HOST (see the README's configuration table).`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  if (argv.length > 0) {
    console.error(`tonwatch devnet serve: unexpected argument '${argv[0]}'\n\n${USAGE}`);
    return 2;
  }
  let devnet;
  try {
    devnet = await startStandaloneDevnet(loadConfig(process.env));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`tonwatch: invalid configuration\n${err.message}`);
      return 2;
    }
    if (err instanceof ListenError) {
      console.error(`tonwatch: ${err.message}`);
      return 2;
    }
    throw err;
  }
  // The handlers are in place before the banner says the devnet runs.
  const stopped = stopOnSignal(() => devnet.stop());
  console.error(['', 'tonwatch devnet is running (standalone)', `  devnet control   ${devnet.url}/devnet/wallets`, ...devnet.banner, ''].join('\n'));
  return stopped;
}
