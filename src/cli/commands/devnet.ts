// `tonwatch devnet <command>`: a thin HTTP client of the devnet control API of a running server
// (src/chain/devnet/http.ts). Human-readable output by default, the server's JSON with --json.
import { fromNano, toNano } from '@ton/core';
import { UsageError, callApi, lastOption, parseCommandLine, serverUrl, type CommandLine } from '../client.js';
import { PROGRAM } from '../program.js';

export const summary = 'drive the devnet of a running server (wallets, send, pay, block, validators, scenarios, global-config), or run one alone (serve)';

const HELP = `usage: ${PROGRAM} devnet <command> [options]

Drives the embedded devnet of a running tonwatch server through its control API. Amounts are
integers in minimal units (nanoton, jetton units); --ton takes TON with decimals instead.

commands:
  wallets              named wallets with TON and jetton balances
  info                 head block, block interval, jettons, DNS names
  send                 --from <wallet> --to <wallet|address> (--amount <nanoton> | --ton <TON>)
                       [--comment <text> | --payload-boc <base64>] [--bounce | --no-bounce]
  jetton-send          --from <wallet> --jetton <usdt|gram|fake-usdt|master> --to <wallet|address>
                       --amount <units> [--comment <text> [--comment-in-ref]] [--payload-boc <base64>]
                       [--forward-ton-amount <nanoton>]
  pay                  --from <wallet> --link <ton://transfer/...> [--ignore-expiry]
  block                produce a block now
  serve                run the devnet alone (blocks, liteserver, control API) in this process;
                       see \`${PROGRAM} devnet serve --help\`
  global-config        print a global.config.json for the devnet's liteserver (the server must run
                       it: TONWATCH_DEVNET_LITESERVER_PORT, or \`${PROGRAM} devnet serve\`)
  validators           the validator set that signs masterchain blocks
  rotate-validators    a new validator set: the next masterchain block is the key block naming it
  bounce               --from <wallet> [--to <address without code>] [--amount <nanoton>]
  fail-jetton          --from <wallet> --jetton <jetton> --to <wallet|address>
  forge-internal       --from <wallet> --jetton <jetton> --to <owner> [--amount <units>] [--comment <text>]
  forge-notification   --from <wallet> --to <wallet|address> [--amount <units>] [--comment <text>] [--sender <who>]
  deploy               --from <wallet> [--amount <nanoton>]

options:
  --url <url>   the server (default: $TONWATCH_URL, else http://127.0.0.1:$PORT, PORT as
                tonwatch serve reads it, default 8080)
  --json        print the server's JSON answer
  -h, --help    this help`;

const FLAGS = new Set(['json', 'help', 'comment-in-ref', 'ignore-expiry', 'bounce', 'no-bounce']);

/** The command line with the single command and single-valued options this tool takes. */
interface Parsed {
  command: string | undefined;
  options: Record<string, string>;
  flags: Set<string>;
  line: CommandLine;
}

function parseArgs(argv: string[]): Parsed {
  const line = parseCommandLine(argv, FLAGS);
  if (line.positionals.length > 1) throw new UsageError(`unexpected argument '${line.positionals[1]}'`);
  const options: Record<string, string> = {};
  for (const name of Object.keys(line.options)) options[name] = lastOption(line, name)!;
  return { command: line.positionals[0], options, flags: line.flags, line };
}

function tonToNano(value: string): string {
  if (!/^[0-9]+(\.[0-9]{1,9})?$/.test(value)) throw new UsageError(`--ton must be a TON amount like 1.5, got "${value}"`);
  return toNano(value).toString();
}

/** Request body for each command: option names map to the API's fields. */
function requestFor(p: Parsed): { method: 'GET' | 'POST'; path: string; body?: Record<string, unknown> } {
  const o = p.options;
  const pick = (...names: string[]) => {
    const body: Record<string, unknown> = {};
    for (const name of names) if (o[name] !== undefined) body[name.replace(/-/g, '_')] = o[name];
    return body;
  };
  switch (p.command) {
    case 'wallets':
      return { method: 'GET', path: '/devnet/wallets' };
    case 'info':
      return { method: 'GET', path: '/devnet/info' };
    case 'block':
      return { method: 'POST', path: '/devnet/blocks' };
    case 'global-config':
      return { method: 'GET', path: '/devnet/liteserver' };
    case 'validators':
      return { method: 'GET', path: '/devnet/validators' };
    case 'rotate-validators':
      return { method: 'POST', path: '/devnet/validators/rotate' };
    case 'send': {
      const body = pick('from', 'to', 'amount', 'comment', 'payload-boc');
      if (o.ton !== undefined) body.amount = tonToNano(o.ton);
      if (p.flags.has('bounce')) body.bounce = true;
      if (p.flags.has('no-bounce')) body.bounce = false;
      return { method: 'POST', path: '/devnet/send', body };
    }
    case 'jetton-send': {
      const body = pick('from', 'jetton', 'to', 'amount', 'comment', 'payload-boc', 'forward-ton-amount');
      if (p.flags.has('comment-in-ref')) body.comment_in_ref = true;
      return { method: 'POST', path: '/devnet/jetton/send', body };
    }
    case 'pay': {
      const body = pick('from', 'link');
      if (p.flags.has('ignore-expiry')) body.ignore_expiry = true;
      return { method: 'POST', path: '/devnet/pay', body };
    }
    case 'bounce':
      return { method: 'POST', path: '/devnet/scenarios/bounce', body: withTon(pick('from', 'to', 'amount'), o) };
    case 'fail-jetton':
      return { method: 'POST', path: '/devnet/scenarios/failed-jetton-transfer', body: pick('from', 'jetton', 'to') };
    case 'forge-internal':
      return { method: 'POST', path: '/devnet/scenarios/forged-internal-transfer', body: pick('from', 'jetton', 'to', 'amount', 'comment') };
    case 'forge-notification':
      return { method: 'POST', path: '/devnet/scenarios/forged-notification', body: pick('from', 'to', 'amount', 'comment', 'sender') };
    case 'deploy':
      return { method: 'POST', path: '/devnet/scenarios/deploy', body: withTon(pick('from', 'amount'), o) };
    default:
      throw new UsageError(p.command ? `unknown devnet command '${p.command}'` : 'which devnet command? (see --help)');
  }
}

function withTon(body: Record<string, unknown>, o: Record<string, string>): Record<string, unknown> {
  if (o.ton !== undefined) body.amount = tonToNano(o.ton);
  return body;
}

function units(amount: string, decimals: number): string {
  const v = BigInt(amount);
  const scale = 10n ** BigInt(decimals);
  const frac = (v % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return frac ? `${v / scale}.${frac}` : `${v / scale}`;
}

interface WalletJson {
  name: string;
  version: string;
  friendly: string;
  status: string;
  balance: string;
  jettons: Array<{ symbol: string; key: string; decimals: number; balance: string }>;
}

function human(command: string, json: any): string {
  switch (command) {
    case 'wallets': {
      // the version column as wide as its widest entry (highload-v2)
      const width = Math.max(5, ...(json as WalletJson[]).map((w) => w.version.length));
      return (json as WalletJson[])
        .map((w) => {
          const jettons = w.jettons
            .filter((j) => j.balance !== '0')
            .map((j) => `${units(j.balance, j.decimals)} ${j.key === 'fake-usdt' ? 'USDT (look-alike)' : j.symbol}`);
          return `${w.name.padEnd(9)} ${w.version.padEnd(width)} ${w.friendly}  ${fromNano(w.balance)} TON${jettons.length ? '  ' + jettons.join(', ') : ''}${w.status === 'active' ? '' : `  (${w.status})`}`;
        })
        .join('\n');
    }
    case 'info':
      return [
        `head: masterchain block ${json.head.seqno} at ${new Date(json.head.gen_utime * 1000).toISOString()}`,
        `blocks: ${json.manual ? 'manual (POST /devnet/blocks)' : `every ${json.block_interval_ms} ms`}; mempool ${json.mempool_size}, in flight ${json.inflight_messages}`,
        ...json.jettons.map((j: any) => `jetton ${j.key}: ${j.symbol} (${j.decimals} decimals) master ${j.master}`),
        `dns root ${json.dns.root}, .ton zone ${json.dns.zone}: ${Object.keys(json.dns.names).join(', ')}`,
      ].join('\n');
    case 'global-config':
      return (json.global_config as string).trimEnd();
    case 'block':
      return `produced masterchain block ${json.seqno} (root hash ${json.root_hash})`;
    case 'validators':
    case 'rotate-validators': {
      const lines = [
        ...(command === 'rotate-validators'
          ? [json.key_block ? `key block ${json.key_block.seqno} names the new set` : 'the next masterchain block will be the key block naming the new set']
          : []),
        `validator set ${json.set}, catchain session ${json.catchain_seqno}, set hash ${json.set_hash}${json.rotation_pending ? ' (rotation pending)' : ''}`,
        ...json.public_keys.map((k: string, i: number) => `  ${i}: ${k}`),
      ];
      return lines.join('\n');
    }
    default: {
      const extra = ['to', 'amount', 'target', 'address']
        .filter((k) => json[k] !== undefined)
        .map((k) => `${k === 'address' ? 'deployed at' : k} ${json[k]}`);
      return `submitted external message ${json.message_hash}; it runs in the next block${extra.length ? ` (${extra.join(', ')})` : ''}`;
    }
  }
}

export async function run(argv: string[]): Promise<number> {
  // The one command that runs here rather than asking a running server.
  if (argv[0] === 'serve') return (await import('./devnet-serve.js')).run(argv.slice(1));
  let parsed: Parsed;
  let request: ReturnType<typeof requestFor>;
  try {
    parsed = parseArgs(argv);
    if (parsed.flags.has('help') || parsed.command === 'help') {
      console.log(HELP);
      return 0;
    }
    request = requestFor(parsed);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`tonwatch devnet: ${err.message}\n\n${HELP}`);
    return 1;
  }
  const json = await callApi('tonwatch devnet', serverUrl(parsed.line), request);
  if (json === undefined) return 1;
  console.log(parsed.flags.has('json') ? JSON.stringify(json, null, 2) : human(parsed.command!, json));
  return 0;
}
