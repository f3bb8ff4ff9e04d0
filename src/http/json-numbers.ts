// Amounts, lts and other 64-bit values travel as strings of digits: a JSON number past 2^53 has already
// lost digits when the body is parsed, and Ajv's type coercion would then store the rounded value as a
// string. Before validation, a JSON number where the route's body schema wants a string is a 400 naming
// the field, and a number where it takes an integer or a string must be one that JSON carries exactly.
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../errors.js';

interface Schema {
  type?: string | string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  items?: Schema;
  pattern?: string;
}

/** The JSON types a schema accepts, unions included. */
function acceptedTypes(schema: Schema): Set<string> {
  const types = new Set<string>([schema.type ?? []].flat());
  for (const member of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) for (const t of acceptedTypes(member)) types.add(t);
  return types;
}

/** Throws the 400 for the first JSON number in `value` that the schema wants as a string, or that lost digits. */
export function checkJsonNumbers(schema: Schema | undefined, value: unknown, field = ''): void {
  if (!schema || value === null || value === undefined) return;
  if (typeof value === 'number') {
    const types = acceptedTypes(schema);
    if (!types.has('string')) return;
    const name = field || 'the body';
    if (!types.has('number') && !types.has('integer')) {
      const digits = /^\^?\[0-9\]|\\d/.test(schema.pattern ?? '') || /amount|_lt$|^lt$/.test(field);
      throw badRequest(
        digits
          ? `${name} must be a string of digits, not a JSON number (a JSON number past 2^53 loses digits)`
          : `${name} must be a string, not a JSON number`,
        field || undefined,
      );
    }
    if (!Number.isSafeInteger(value) && Number.isInteger(value)) {
      throw badRequest(`${name} is past 2^53 as a JSON number and has lost digits: send it as a string of digits`, field || undefined);
    }
    return;
  }
  const prefix = field ? `${field}.` : '';
  if (Array.isArray(value)) {
    const items = schema.items ?? [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].find((s) => s.items)?.items;
    value.forEach((v, i) => checkJsonNumbers(items, v, `${prefix}${i}`));
    return;
  }
  if (typeof value === 'object') {
    const members = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
    for (const [key, v] of Object.entries(value)) {
      const property = members.find((s) => s.properties?.[key])?.properties?.[key];
      checkJsonNumbers(property, v, `${prefix}${key}`);
    }
  }
}

/** preValidation hook: the body's JSON numbers against the route's body schema. */
export async function rejectLossyJsonNumbers(request: FastifyRequest): Promise<void> {
  const schema = (request.routeOptions.schema as { body?: Schema } | undefined)?.body;
  if (!schema || request.body === undefined) return;
  // The validator checks path parameters before the body: a bad one is the error to name, so leave it to it.
  const params = request.getValidationFunction('params');
  if (params && !params(structuredClone(request.params))) return;
  checkJsonNumbers(schema, request.body);
}
