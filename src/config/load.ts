// Loading the configuration: values from environment variables and an optional JSON file
// (`TONWATCH_CONFIG=path`); environment variables win over the file, the file over defaults. Every value
// is checked against the settings table, and every problem is reported at once, naming the setting.
import fs from 'node:fs';
import path from 'node:path';
import type { StoreOptions } from '../store/db.js';
import type { Setting } from './setting.js';
import { ROLES, settings, type Config, type ConfigKey, type ConfigSource } from './settings.js';

export interface ConfigProblem {
  /** The setting's environment variable name (or TONWATCH_CONFIG for file problems). */
  setting: string;
  message: string;
}

/** A configuration value that is not allowed; the message names the setting and what is allowed. */
export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(problems.map((p) => p.message).join('\n'));
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions {
  /** JSON file with settings (keys: env names or config keys); defaults to `env.TONWATCH_CONFIG`. */
  file?: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, opts: LoadConfigOptions = {}): Config {
  return loadConfigDetailed(env, opts).config;
}

/** Like `loadConfig`, also telling where each value came from (for `--print-config`). */
export function loadConfigDetailed(
  env: NodeJS.ProcessEnv = process.env,
  opts: LoadConfigOptions = {},
): { config: Config; sources: Record<ConfigKey, ConfigSource> } {
  const problems: ConfigProblem[] = [];
  const file = opts.file ?? nonEmpty(env.TONWATCH_CONFIG);
  const fromFile = file ? readConfigFile(file, problems) : {};
  const resolved: Record<string, unknown> = {};
  const sources = {} as Record<ConfigKey, ConfigSource>;
  for (const [key, setting] of Object.entries(settings) as [ConfigKey, Setting<unknown>][]) {
    const envRaw = nonEmpty(env[setting.env]);
    const fileRaw = fromFile[setting.env];
    const raw = envRaw ?? fileRaw;
    if (raw === undefined) {
      const d = setting.default;
      resolved[key] = typeof d === 'function' ? (d as (r: Record<string, unknown>) => unknown)(resolved) : d;
      sources[key] = 'default';
      continue;
    }
    sources[key] = envRaw !== undefined ? 'env' : 'file';
    const value = setting.parse(raw);
    if (value === undefined) {
      const where = sources[key] === 'file' ? ` (in ${file})` : '';
      const shown = setting.secret ? `a value of ${raw.length} characters` : JSON.stringify(raw);
      problems.push({ setting: setting.env, message: `${setting.env}${where}: must be ${setting.allowed}, got ${shown}` });
    }
    resolved[key] = value;
  }
  const lease = resolved.workerLeaseSeconds as number | undefined;
  const timeout = resolved.webhookTimeoutMs as number | undefined;
  if (lease !== undefined && timeout !== undefined && lease * 1000 < 3 * timeout + 1000) {
    problems.push({
      setting: 'TONWATCH_WORKER_LEASE_SECONDS',
      message: `TONWATCH_WORKER_LEASE_SECONDS: must be at least 3 × TONWATCH_WEBHOOK_TIMEOUT_MS + 1 s = ${Math.ceil((3 * timeout + 1000) / 1000)} s (an attempt must end before another worker may take its key), got ${lease}`,
    });
  }
  if (problems.length === 0) problems.push(...clusterProblems(resolved as Config));
  if (problems.length > 0) throw new ConfigError(problems);
  return { config: Object.freeze(resolved) as Config, sources };
}

/** Settings that only make sense together: a cluster needs PostgreSQL, and a subset of roles needs a cluster. */
function clusterProblems(config: Config): ConfigProblem[] {
  if (config.cluster && !config.databaseUrl) {
    return [{ setting: 'TONWATCH_CLUSTER', message: 'TONWATCH_CLUSTER: a cluster needs PostgreSQL (set DATABASE_URL); SQLite serves one process only' }];
  }
  if (config.cluster && config.chain === 'devnet') {
    return [{ setting: 'TONWATCH_CLUSTER', message: 'TONWATCH_CLUSTER: the embedded devnet is one process\'s own chain, which other processes cannot follow; set TONWATCH_CHAIN to a chain every process reaches (replay, or liteserver)' }];
  }
  if (!config.cluster && config.roles.length < ROLES.length) {
    return [{ setting: 'TONWATCH_ROLES', message: `TONWATCH_ROLES: a process with only some roles (${config.roles.join(',')}) is part of a cluster; set TONWATCH_CLUSTER=true (with DATABASE_URL) or leave TONWATCH_ROLES unset` }];
  }
  return [];
}

function nonEmpty(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

/** Reads the JSON file into env-name → raw string; problems name TONWATCH_CONFIG or the setting. */
function readConfigFile(file: string, problems: ConfigProblem[]): Record<string, string> {
  const fail = (message: string) => {
    problems.push({ setting: 'TONWATCH_CONFIG', message: `TONWATCH_CONFIG: ${message}` });
    return {};
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return fail(e.code ? `cannot read ${file}: ${e.code}` : `${file} is not valid JSON: ${e.message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail(`${file} must hold a JSON object of settings, like {"PORT": 8080}`);
  }
  const byName = new Map<string, Setting<unknown>>();
  for (const [key, s] of Object.entries(settings) as [string, Setting<unknown>][]) {
    byName.set(s.env, s);
    byName.set(key, s);
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    const setting = byName.get(name);
    if (!setting) {
      fail(`unknown setting "${name}" in ${file} (settings are listed in the README's configuration table)`);
      continue;
    }
    const raw = fileValue(value);
    if (raw === undefined) {
      problems.push({ setting: setting.env, message: `${setting.env} (in ${file}): must be ${setting.allowed}, got ${JSON.stringify(value)}` });
      continue;
    }
    if (raw !== '') out[setting.env] = raw;
  }
  return out;
}

/** JSON numbers, booleans and string arrays become the same text an environment variable would hold. */
function fileValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(',');
  if (value === null) return '';
  return undefined;
}

/** Where the store lives: PostgreSQL when DATABASE_URL is set, else `<data dir>/tonwatch.sqlite`. */
export function storeOptions(config: Pick<Config, 'databaseUrl' | 'dataDir'>): StoreOptions {
  return config.databaseUrl
    ? { databaseUrl: config.databaseUrl }
    : { sqlitePath: path.join(config.dataDir, 'tonwatch.sqlite') };
}
