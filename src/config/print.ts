// The configuration as people read it: a value as an operator writes it (secrets hidden), the
// `--print-config` dump, and the README's configuration table (kept current by scripts/config-table.ts).
import type { Setting } from './setting.js';
import { settings, type Config, type ConfigKey, type ConfigSource } from './settings.js';

/** A value as an operator would write it, secrets hidden. */
export function displayValue(key: ConfigKey, value: unknown): string {
  const setting: Setting<unknown> = settings[key];
  if (value === undefined) return '(unset)';
  if (setting.secret) {
    if (key === 'databaseUrl') return String(value).replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
    return '***';
  }
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(',');
  return String(value);
}

/** The `--print-config` dump: one `NAME=value` line per setting, with where it came from. */
export function formatConfig(config: Config, sources?: Partial<Record<ConfigKey, ConfigSource>>): string {
  const keys = Object.keys(settings) as ConfigKey[];
  const width = Math.max(...keys.map((k) => settings[k].env.length));
  return keys
    .map((k) => {
      const line = `${settings[k].env.padEnd(width)} = ${displayValue(k, config[k])}`;
      return sources?.[k] ? `${line}  (${sources[k]})` : line;
    })
    .join('\n');
}

/** The README's configuration table (Markdown), generated from `settings`. */
export function configTableMarkdown(): string {
  const rows = [
    '| Variable | Default | Allowed | Description |',
    '|---|---|---|---|',
  ];
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  for (const [key, s] of Object.entries(settings) as [ConfigKey, Setting<unknown>][]) {
    const d = s.defaultDoc ?? (typeof s.default === 'function' ? 'computed' : `\`${displayValue(key, s.default)}\``);
    rows.push(`| \`${s.env}\` | ${cell(d)} | ${cell(s.allowed)} | ${cell(s.doc)} |`);
  }
  return rows.join('\n');
}
