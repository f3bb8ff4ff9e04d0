// What one setting is — where it comes from, how its raw text is checked, what it means — and the kinds
// of setting the table is made of (integers in a range, one of a list, booleans, patterns, origins).
/** One setting: where it comes from, how it is checked, what it means. */
export interface Setting<T> {
  /** Environment variable (also the key in the JSON config file). */
  env: string;
  /** One line for the README and `--help`. */
  doc: string;
  /** What is allowed, as a phrase: "an integer from 1 to 65535". */
  allowed: string;
  /** Default value, or a function of the settings above it in the table; undefined = unset. */
  default?: T | ((resolved: Record<string, unknown>) => T);
  /** How the default reads in the docs, when it is computed. */
  defaultDoc?: string;
  /** Hidden in dumps (keys, passwords). */
  secret?: boolean;
  /** Parses a raw (non-empty, trimmed) string; returns undefined when it is not allowed. */
  parse(raw: string): T | undefined;
}

export type Def<T> = Omit<Setting<T>, 'parse' | 'allowed'>;

export function int(def: Def<number> & { min: number; max: number }): Setting<number> {
  return {
    ...def,
    allowed: def.max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${def.min}` : `an integer from ${def.min} to ${def.max}`,
    parse: (raw) => {
      if (!/^-?\d+$/.test(raw)) return undefined;
      const n = Number(raw);
      return Number.isSafeInteger(n) && n >= def.min && n <= def.max ? n : undefined;
    },
  };
}

export function oneOf<const V extends string>(def: Def<V> & { values: readonly V[] }): Setting<V> {
  return {
    ...def,
    allowed: `one of ${def.values.join(', ')}`,
    parse: (raw) => def.values.find((v) => v === raw.toLowerCase()),
  };
}

export function bool(def: Def<boolean>): Setting<boolean> {
  return {
    ...def,
    allowed: 'true or false (also 1/0, yes/no, on/off)',
    parse: (raw) => {
      const v = raw.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) return true;
      if (['false', '0', 'no', 'off'].includes(v)) return false;
      return undefined;
    },
  };
}

export function text(def: Def<string> & { allowed: string; pattern: RegExp }): Setting<string> {
  return { ...def, parse: (raw) => (def.pattern.test(raw) ? raw : undefined) };
}

export function optionalText(def: Def<string | undefined> & { allowed: string; pattern: RegExp }): Setting<string | undefined> {
  return { ...def, parse: (raw) => (def.pattern.test(raw) ? raw : undefined) };
}

const ORIGIN = /^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/i;

/** `*` (any origin), `none` (no CORS headers) or a comma list of origins; stored as a list. */
export function origins(def: Def<string[]>): Setting<string[]> {
  return {
    ...def,
    allowed: '"*", "none", or a comma-separated list of origins like https://app.example.com',
    parse: (raw) => {
      if (raw === '*') return ['*'];
      if (raw.toLowerCase() === 'none') return [];
      const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
      return list.length > 0 && list.every((o) => ORIGIN.test(o)) ? list : undefined;
    },
  };
}
