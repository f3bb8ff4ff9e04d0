// fast-check generators from the service's own OpenAPI document: for each operation, requests whose
// parameters and bodies follow the schema, and requests with one parameter or the body made wrong.
// The fuzz test (test/fuzz/api.test.ts) sends them; here is only what a request looks like.
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  $ref?: string;
}

export interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** OpenAPI path template: /webhooks/{webhook_id}/logs */
  path: string;
  parameters: Parameter[];
  body?: { schema: JsonSchema; required: boolean };
  /** Documented response codes and the content types each may carry. */
  responses: Record<string, string[]>;
  /** Needs a key (has a security requirement without the empty alternative). */
  keyed: boolean;
}

export interface Mutation {
  /** The parameter made wrong, when the request is wrong in one named parameter. */
  field: string;
  where: 'path' | 'query';
}

export interface FuzzRequest {
  op: Operation;
  method: string;
  url: string;
  body?: string;
  contentType?: string;
  auth: 'admin' | 'none' | 'bogus';
  /** Set when exactly one parameter is invalid by its schema: a 400 must name it. */
  mutation?: Mutation;
  /** A one-line description for failure messages. */
  label: string;
}

/** Every operation of an OpenAPI 3 document, local $refs resolved. */
export function operationsOf(doc: { paths: Record<string, Record<string, any>>; components?: { schemas?: Record<string, JsonSchema> } }): Operation[] {
  const resolve = (s: JsonSchema | undefined, depth = 0): JsonSchema => {
    if (!s || depth > 20) return {};
    if (s.$ref) return resolve(doc.components?.schemas?.[s.$ref.replace('#/components/schemas/', '')], depth + 1);
    const out: JsonSchema = { ...s };
    if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, resolve(v, depth + 1)]));
    if (s.items) out.items = resolve(s.items, depth + 1);
    for (const k of ['anyOf', 'oneOf', 'allOf'] as const) if (s[k]) out[k] = s[k]!.map((v) => resolve(v, depth + 1));
    return out;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const json = op.requestBody?.content?.['application/json']?.schema;
      const security: Array<Record<string, unknown>> | undefined = op.security;
      ops.push({
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []).map((p: Parameter) => ({ ...p, schema: resolve(p.schema) })),
        body: json ? { schema: resolve(json), required: op.requestBody.required === true } : undefined,
        responses: Object.fromEntries(Object.entries(op.responses ?? {}).map(([code, r]: [string, any]) => [code, Object.keys(r?.content ?? {})])),
        keyed: Array.isArray(security) && security.length > 0 && !security.some((s) => Object.keys(s).length === 0),
      });
    }
  }
  return ops;
}

const types = (s: JsonSchema): string[] => [s.type ?? []].flat();

/** Values that follow the schema (patterns and formats aside: those are the handlers' to check). */
export function valid(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches && branches.length > 0) return fc.oneof(...branches.map((b) => valid(b, depth + 1)));
  if (schema.allOf?.length) return valid(Object.assign({}, ...schema.allOf), depth + 1);
  const t = types(schema).filter((x) => x !== 'null');
  const kind = t[0] ?? (schema.properties ? 'object' : undefined);
  switch (kind) {
    case 'integer': {
      // Mostly small numbers near the lower bound (ids that exist), sometimes anywhere in range.
      const lo = schema.minimum ?? -Number.MAX_SAFE_INTEGER;
      const hi = schema.maximum ?? Number.MAX_SAFE_INTEGER;
      const base = Math.min(Math.max(lo, 0), hi);
      return fc.oneof({ weight: 3, arbitrary: fc.integer({ min: base, max: Math.min(base + 3, hi) }) }, { weight: 1, arbitrary: fc.integer({ min: lo, max: hi }) });
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum, max: schema.maximum });
    case 'boolean':
      return fc.boolean();
    case 'string':
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 80), unit: 'grapheme' });
    case 'array':
      return depth > 4 ? fc.constant([]) : fc.array(valid(schema.items ?? {}, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case 'object': {
      if (depth > 4 || !schema.properties) return fc.constant({});
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(schema.properties)) record[k] = valid(v, depth + 1);
      return fc.record(record, { requiredKeys: (schema.required ?? []).filter((k) => k in record) });
    }
    default:
      return depth > 3 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 });
  }
}

/** Query or path values that break the schema, by construction; empty when none is sure to. */
export function invalidText(schema: JsonSchema): string[] {
  const t = types(schema);
  if (schema.anyOf || schema.oneOf || t.includes('string') && !schema.enum && schema.maxLength === undefined) return [];
  const out: string[] = [];
  if (schema.enum) out.push('zz-not-one-of-them');
  if (t.includes('integer') || t.includes('number')) {
    out.push('Infinity', '-Infinity', '1e400', 'NaN', 'abc', '1.5e-3x', '0x1g');
    if (t.includes('integer')) out.push('1.5', '9223372036854775808', '-9223372036854775809', '18446744073709551616');
    if (schema.minimum !== undefined) out.push(String(schema.minimum - 1));
    if (schema.maximum !== undefined) out.push(String(schema.maximum + 1));
  }
  if (t.includes('boolean')) out.push('maybe', '2');
  if (t.includes('string') && schema.maxLength !== undefined) out.push('x'.repeat(schema.maxLength + 1));
  return out;
}

/** Query and path text anything may send. */
const hostileText = fc.oneof(
  fc.constantFrom('', ' ', '0', '-0', '-1', 'Infinity', '1e400', 'null', 'true', '[]', '{}', '..', '%00', '\u0000', '\u202e', '𝕋𝕆ℕ', "' or 1=1 --", '${7*7}', '<script>'),
  fc.string({ maxLength: 30, unit: 'binary' }),
  fc.constantFrom(9223372036854775807n, 2n ** 64n, -(2n ** 63n)).map(String),
);

/** Bodies that break the schema or are not JSON at all. */
const invalidBody = fc.oneof(
  fc.constantFrom('{', '[]', 'null', '"text"', '1e400', '{"a":1e400}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', ''),
  fc.constantFrom(50, 2000).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? 'null'),
  fc.string({ maxLength: 60, unit: 'binary' }),
);

/** A body that follows the schema except one property set to a value of another kind. */
function wrongProperty(schema: JsonSchema): fc.Arbitrary<string> {
  const names = Object.keys(schema.properties ?? {});
  if (names.length === 0) return invalidBody;
  return fc
    .tuple(valid(schema) as fc.Arbitrary<Record<string, unknown>>, fc.constantFrom(...names), fc.constantFrom('1e400', '9223372036854775808', '-1', '""', '[]', '{}', 'null', 'true', '"Infinity"', '1.5'))
    .map(([body, name, raw]) => {
      const text = JSON.stringify({ ...body, [name]: '__WRONG__' });
      return text.replace('"__WRONG__"', raw);
    });
}

const fill = (template: string, path: Record<string, string>) =>
  template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(path[name] ?? 'x'));

/** Requests for one operation: valid ones, one-parameter mutations, wrong bodies, hostile text, other auth. */
export function requestFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  const params = op.parameters.filter((p) => p.in === 'path' || p.in === 'query');
  const validParams = fc.tuple(
    ...params.map((p) => {
      const value = valid(p.schema).map((v) => (Array.isArray(v) ? v.map(String) : String(v)));
      return p.in === 'path' || p.required ? value.map((v) => v as string | string[] | undefined) : fc.option(value, { nil: undefined });
    }),
  );
  const mutable = params.filter((p) => invalidText(p.schema).length > 0 && !p.name.endsWith('[]'));
  const mode = fc.constantFrom(...(['valid', 'valid', 'hostile', 'body', ...(mutable.length ? ['mutate', 'mutate', 'mutate'] : [])] as const));
  const bodyArb = op.body ? fc.oneof({ weight: 3, arbitrary: valid(op.body.schema).map((v) => JSON.stringify(v) ?? 'null') }, { weight: 1, arbitrary: wrongProperty(op.body.schema) }) : fc.constant(undefined);
  return fc
    .record({
      mode,
      values: validParams,
      body: bodyArb,
      badBody: invalidBody,
      hostile: hostileText,
      which: fc.nat(),
      bad: fc.nat(),
      auth: fc.constantFrom('admin', 'admin', 'admin', 'admin', 'admin', 'admin', 'none', 'bogus') as fc.Arbitrary<FuzzRequest['auth']>,
      contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'application/json', 'text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded'),
    })
    .map(({ mode, values, body, badBody, hostile, which, bad, auth, contentType }) => {
      const path: Record<string, string> = {};
      const query: Array<[string, string]> = [];
      params.forEach((p, i) => {
        const v = values[i];
        if (v === undefined) return;
        if (p.in === 'path') path[p.name] = String(v);
        else for (const one of [v].flat()) query.push([p.name, String(one)]);
      });
      let mutation: Mutation | undefined;
      let sendBody = body as string | undefined;
      if (mode === 'mutate') {
        const target = mutable[which % mutable.length]!;
        const choices = invalidText(target.schema);
        const text = choices[bad % choices.length]!;
        mutation = { field: target.name, where: target.in as 'path' | 'query' };
        if (target.in === 'path') path[target.name] = text;
        else {
          for (let i = query.length - 1; i >= 0; i--) if (query[i]![0] === target.name) query.splice(i, 1);
          query.push([target.name, text]);
        }
        // The body is checked before the query string: a 400 about the body would hide the named one.
        if (target.in === 'query' && op.body) mutation = undefined;
      } else if (mode === 'hostile' && params.length > 0) {
        const target = params[which % params.length]!;
        if (target.in === 'path') path[target.name] = hostile;
        else query.push([target.name, hostile]);
      } else if (mode === 'body') {
        sendBody = badBody;
      }
      const search = new URLSearchParams(query).toString();
      const url = fill(op.path, path) + (search ? `?${search}` : '');
      const withBody = op.method !== 'GET' && op.method !== 'DELETE' && (sendBody !== undefined || mode === 'body');
      return {
        op,
        method: op.method,
        url,
        body: withBody ? sendBody : undefined,
        contentType: withBody ? (mode === 'valid' || mode === 'mutate' ? 'application/json' : contentType) : undefined,
        auth: mode === 'mutate' ? 'admin' : auth,
        mutation,
        label: `${op.method} ${url}${withBody ? ` body=${JSON.stringify(sendBody).slice(0, 200)}` : ''} [${mode}]`,
      };
    });
}
