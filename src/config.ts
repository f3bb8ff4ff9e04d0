// Configuration: one declarative table of settings (config/settings.ts, of the kinds in
// config/setting.ts), loaded from environment variables and an optional JSON file (config/load.ts), and
// shown as the `--print-config` dump and the README's table (config/print.ts). This module is the
// configuration's one public face: the rest of tonwatch imports from here.
export { ROLES, settings, type Config, type ConfigKey, type ConfigSource, type Role } from './config/settings.js';
export type { Setting } from './config/setting.js';
export { ConfigError, loadConfig, loadConfigDetailed, storeOptions, type ConfigProblem, type LoadConfigOptions } from './config/load.js';
export { configTableMarkdown, displayValue, formatConfig } from './config/print.js';
