// Numbers in query strings and paths must be numbers. Ajv's type coercion turns "Infinity", "-Infinity"
// and "1e400" into ±Infinity and then skips `integer`, `minimum` and `maximum` (they apply to finite
// numbers only), and it turns "9223372036854775808" into a float that SQLite and BigInt refuse. This
// check runs before validation on every route whose querystring or path schema has a numeric field:
// such values answer 400 naming the field, like any other validation error.
import type { FastifyRequest, RouteOptions } from 'fastify';
import { badRequest } from '../errors.js';

type Part = 'querystring' | 'params';

interface NumericField {
  part: Part;
  name: string;
  integer: boolean;
  minimum?: number;
  maximum?: number;
}

export interface JsonSchema {
  type?: string | string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  minimum?: number;
  maximum?: number;
}

/** 'integer' or 'number' when every value the schema allows is numeric (null aside); else null. */
function numericKind(schema: JsonSchema): 'integer' | 'number' | null {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const kinds = branches.filter((b) => b.type !== 'null').map(numericKind);
    if (kinds.length === 0 || kinds.some((k) => k === null)) return null;
    return kinds.every((k) => k === 'integer') ? 'integer' : 'number';
  }
  const types = [schema.type ?? []].flat().filter((t) => t !== 'null');
  if (types.length === 0 || !types.every((t) => t === 'integer' || t === 'number')) return null;
  return types.every((t) => t === 'integer') ? 'integer' : 'number';
}

/** An object schema's properties, those of `allOf` parts (TypeBox's Intersect) included. */
export function propertiesOf(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  if (!schema) return {};
  return Object.assign({}, ...(schema.allOf ?? []).map(propertiesOf), schema.properties);
}

/** The numeric fields of a route's querystring and path schemas. */
export function numericFields(schema: RouteOptions['schema']): NumericField[] {
  const fields: NumericField[] = [];
  for (const part of ['querystring', 'params'] as const) {
    const properties = propertiesOf(schema?.[part] as JsonSchema | undefined);
    for (const [name, property] of Object.entries(properties)) {
      const kind = numericKind(property);
      if (kind) fields.push({ part, name, integer: kind === 'integer', minimum: property.minimum, maximum: property.maximum });
    }
  }
  return fields;
}

/** Null when `raw` is fine for the field (or not a number at all: Ajv says so); else what is wrong. */
export function numberProblem(raw: unknown, field: NumericField): string | null {
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  const n = Number(raw);
  if (Number.isNaN(n)) return null;
  const unsafe = field.integer && Number.isInteger(n) && !Number.isSafeInteger(n);
  if (Number.isFinite(n) && !unsafe) return null;
  const from = field.minimum ?? -Number.MAX_SAFE_INTEGER;
  const to = field.maximum ?? Number.MAX_SAFE_INTEGER;
  return `must be ${field.integer ? 'an integer' : 'a finite number'} from ${from} to ${to}`;
}

/** A preValidation hook for a route with numeric fields, or null for a route without any. */
export function finiteNumbersHook(schema: RouteOptions['schema']): ((request: FastifyRequest) => Promise<void>) | null {
  const fields = numericFields(schema);
  if (fields.length === 0) return null;
  return async (request) => {
    for (const field of fields) {
      const values = (field.part === 'querystring' ? request.query : request.params) as Record<string, unknown> | undefined;
      for (const raw of [values?.[field.name]].flat()) {
        const problem = numberProblem(raw, field);
        if (problem) throw badRequest(`invalid ${field.part} field '${field.name}': ${problem}`, field.name);
      }
    }
  };
}

/** Adds the check to a route as it is registered (call from an onRoute hook on the root instance). */
export function guardNumbers(route: RouteOptions): void {
  const hook = finiteNumbersHook(route.schema);
  if (!hook) return;
  route.preValidation = [hook, ...[route.preValidation ?? []].flat()] as RouteOptions['preValidation'];
}
