// What the CLI commands that talk to a running server share: their command line (positionals,
// `--name value` / `--name=value` options, boolean flags, -h) and one JSON call to the server's API
// with its errors said in words.
import { loadConfig, settings } from '../config.js';

/** A command line the command cannot run; printed with the command's help. */
export class UsageError extends Error {}

export interface CommandLine {
  positionals: string[];
  /** Every value given for each option, in order (repeatable options keep them all). */
  options: Record<string, string[]>;
  flags: Set<string>;
}

/** Splits argv; names in `flagNames` take no value, every other `--name` takes one. */
export function parseCommandLine(argv: readonly string[], flagNames: ReadonlySet<string>): CommandLine {
  const positionals: string[] = [];
  const options: Record<string, string[]> = {};
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h') {
      flags.add('help');
      continue;
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
    if (flagNames.has(name)) {
      flags.add(name);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    (options[name] ??= []).push(value);
  }
  return { positionals, options, flags };
}

/** The last value given for an option (a repeated single-valued option: the last one wins). */
export function lastOption(line: CommandLine, name: string): string | undefined {
  return line.options[name]?.at(-1);
}

/** The server to talk to: --url, else $TONWATCH_URL, else this machine on the port the server chose. */
export function serverUrl(line: CommandLine, env: NodeJS.ProcessEnv = process.env): string {
  return (lastOption(line, 'url') ?? (env.TONWATCH_URL?.trim() || localServerUrl(env))).replace(/\/+$/, '');
}

/** The server's own PORT and HOST (environment, else TONWATCH_CONFIG's file, else defaults). */
function localServerUrl(env: NodeJS.ProcessEnv): string {
  let port: number;
  let host: string;
  try {
    ({ port, host } = loadConfig(env));
  } catch {
    // Some other setting is wrong: the server would not start with it, but PORT may still be right.
    port = settings.port.parse(env.PORT?.trim() ?? '') ?? (settings.port.default as number);
    host = '0.0.0.0';
  }
  // A server on every interface (the default) answers on loopback.
  const address = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${address}:${port}`;
}

export interface ApiCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  /** Admin or API key, sent as a bearer token. */
  key?: string;
}

/**
 * Calls the API and returns its JSON answer (null for an empty body), or prints why it failed,
 * prefixed with `tool`, and returns undefined.
 */
export async function callApi(tool: string, url: string, call: ApiCall): Promise<unknown> {
  const headers: Record<string, string> = {};
  if (call.key) headers.authorization = `Bearer ${call.key}`;
  if (call.body) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url + call.path, { method: call.method, headers, body: call.body ? JSON.stringify(call.body) : undefined });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
    console.error(`${tool}: cannot reach tonwatch at ${url}: ${cause}`);
    return undefined;
  }
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    console.error(`${tool}: ${url} answered ${res.status} with a non-JSON body`);
    return undefined;
  }
  if (!res.ok) {
    const field = json?.field ? ` (field: ${json.field})` : '';
    console.error(`${tool}: ${res.status} ${json?.error ?? (text || res.statusText)}${field}`);
    return undefined;
  }
  return json;
}
