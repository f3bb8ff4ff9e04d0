// `tonwatch apps <command>`: invoicing applications of a running server, through its public API
// (/api/v1/services/invoices/app…, docs/INVOICES.md) with the admin key. Human-readable output by
// default, the server's JSON with --json.
import { UsageError, callApi, lastOption, parseCommandLine, serverUrl, type CommandLine } from '../client.js';
import { PROGRAM } from '../program.js';

export const summary = 'invoicing applications of a running server: create, list, show, update, delete, token, webhooks';

const HELP = `usage: ${PROGRAM} apps <command> [arguments] [options]

Manages invoicing applications through the API of a running tonwatch server (admin key).

commands:
  create --name <name> --recipient <wallet address> [--description <text>] [--webhook <url>]…
                                   create an application; prints its API token once
  list                             every application
  show <app id>                    one application with its webhook URLs
  update <app id> [--name <name>] [--description <text>] [--recipient <address>]
  delete <app id>                  delete it with its invoices, webhooks and token
  token <app id>                   the token's metadata (tokens are stored hashed)
  token <app id> --regenerate      a new token, printed once; the old one stops working
  webhook list <app id>
  webhook add <app id> <url>       prints the signing secret receivers verify with
  webhook edit <app id> <webhook id> <url>
  webhook remove <app id> <webhook id>

options:
  --url <url>   the server (default: $TONWATCH_URL, else http://127.0.0.1:$PORT, PORT as
                tonwatch serve reads it, default 8080)
  --key <key>   admin key (default: $TONWATCH_ADMIN_KEY)
  --json        print the server's JSON answer
  -h, --help    this help`;

const FLAGS = new Set(['json', 'help', 'regenerate']);
const BASE = '/api/v1/services/invoices';

type Parsed = CommandLine;

interface Request {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  /** How to print the answer. */
  show: (json: any) => string;
}

function id(value: string | undefined, what: string): string {
  if (value === undefined || !/^[1-9][0-9]{0,15}$/.test(value)) throw new UsageError(`${what} must be a positive integer${value === undefined ? ' (missing)' : `, got '${value}'`}`);
  return value;
}

function appLines(a: any): string {
  const lines = [`application ${a.id}: ${a.name}`, `  recipient ${a.recipient_address}`];
  if (a.description) lines.push(`  description ${a.description}`);
  if (a.usdt_jetton_wallet) lines.push(`  USDT jetton wallet ${a.usdt_jetton_wallet}`);
  for (const w of a.webhooks ?? []) lines.push(`  webhook ${w.id}: ${w.url} (${w.status})`);
  return lines.join('\n');
}

function webhookLines(w: any): string {
  return `webhook ${w.id}: ${w.url} (${w.status})\n  signing secret ${w.signing_secret}`;
}

function requestFor(p: Parsed): Request {
  const one = (name: string) => lastOption(p, name);
  const [command, ...rest] = p.positionals;
  switch (command) {
    case 'create': {
      const body: Record<string, unknown> = { name: one('name'), recipient_address: one('recipient') };
      if (body.name === undefined) throw new UsageError('create needs --name');
      if (body.recipient_address === undefined) throw new UsageError('create needs --recipient <wallet address>');
      if (one('description') !== undefined) body.description = one('description');
      if (p.options.webhook) body.webhooks = p.options.webhook;
      return {
        method: 'POST',
        path: `${BASE}/app`,
        body,
        show: (j) => `${appLines(j.app)}\nAPI token (shown only now): ${j.token}`,
      };
    }
    case 'list':
      return { method: 'GET', path: `${BASE}/app`, show: (j) => (j.apps.length ? j.apps.map(appLines).join('\n') : 'no applications') };
    case 'show':
      return { method: 'GET', path: `${BASE}/app/${id(rest[0], 'app id')}`, show: (j) => appLines(j.app) };
    case 'update': {
      const body: Record<string, unknown> = {};
      if (one('name') !== undefined) body.name = one('name');
      if (one('description') !== undefined) body.description = one('description');
      if (one('recipient') !== undefined) body.recipient_address = one('recipient');
      if (Object.keys(body).length === 0) throw new UsageError('update needs --name, --description or --recipient');
      return { method: 'PATCH', path: `${BASE}/app/${id(rest[0], 'app id')}`, body, show: (j) => appLines(j.app) };
    }
    case 'delete':
      return { method: 'DELETE', path: `${BASE}/app/${id(rest[0], 'app id')}`, show: () => `application ${rest[0]} deleted` };
    case 'token': {
      const path = `${BASE}/token?app_id=${id(rest[0], 'app id')}`;
      if (p.flags.has('regenerate')) {
        return { method: 'PATCH', path, show: (j) => `new API token (shown only now; the previous one no longer works): ${j.token}` };
      }
      return {
        method: 'GET',
        path,
        show: (j) =>
          j.token
            ? `token ${j.token.id}: ${j.token.prefix} created ${new Date(j.token.created_at * 1000).toISOString()}` +
              (j.token.last_used_at ? `, last used ${new Date(j.token.last_used_at * 1000).toISOString()}` : '')
            : 'no valid token: regenerate one with --regenerate',
      };
    }
    case 'webhook': {
      const [sub, app, a, b] = rest;
      const base = `${BASE}/app/${id(app, 'app id')}/webhook`;
      switch (sub) {
        case 'list':
          return { method: 'GET', path: base, show: (j) => (j.webhooks.length ? j.webhooks.map(webhookLines).join('\n') : 'no webhooks') };
        case 'add':
          if (!a) throw new UsageError('webhook add needs <app id> <url>');
          return { method: 'POST', path: base, body: { url: a }, show: (j) => webhookLines(j.webhook) };
        case 'edit':
          if (!b) throw new UsageError('webhook edit needs <app id> <webhook id> <url>');
          return { method: 'PATCH', path: `${base}/${id(a, 'webhook id')}`, body: { url: b }, show: (j) => webhookLines(j.webhook) };
        case 'remove':
          return { method: 'DELETE', path: `${base}/${id(a, 'webhook id')}`, show: () => `webhook ${a} removed` };
        default:
          throw new UsageError(sub ? `unknown webhook command '${sub}'` : 'webhook needs list, add, edit or remove');
      }
    }
    default:
      throw new UsageError(command ? `unknown apps command '${command}'` : 'which apps command? (see --help)');
  }
}

export async function run(argv: string[]): Promise<number> {
  let parsed: Parsed;
  let request: Request;
  try {
    parsed = parseCommandLine(argv, FLAGS);
    if (parsed.flags.has('help') || parsed.positionals[0] === 'help') {
      console.log(HELP);
      return 0;
    }
    request = requestFor(parsed);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`tonwatch apps: ${err.message}\n\n${HELP}`);
    return 1;
  }
  const key = lastOption(parsed, 'key') ?? process.env.TONWATCH_ADMIN_KEY;
  if (!key) {
    console.error('tonwatch apps: the admin key is needed: --key <key> or TONWATCH_ADMIN_KEY');
    return 1;
  }
  const json = await callApi('tonwatch apps', serverUrl(parsed), { ...request, key });
  if (json === undefined) return 1;
  console.log(parsed.flags.has('json') ? JSON.stringify(json, null, 2) : request.show(json));
  return 0;
}
