// Unknown query parameters are refused, never ignored: `?status=paid` on a route that takes
// `filter_status` would otherwise answer every invoice as if it had been filtered. The names a route
// takes are its querystring schema's properties and the parameters its auth reads a key from (`token`,
// `api_key`). Checked before validation on every documented route; hidden routes (docs assets, the
// console's files) take what their plugins take.
import type { FastifyRequest, RouteOptions } from 'fastify';
import { badRequest } from '../errors.js';
import { propertiesOf, type JsonSchema } from './finite-numbers.js';

/** The query parameter names a route takes, or null when its schema leaves them open. */
export function queryNames(route: Pick<RouteOptions, 'schema' | 'config'>): string[] | null {
  const schema = route.schema as { querystring?: JsonSchema; hide?: boolean } | undefined;
  if (!schema || schema.hide === true) return null;
  const query = schema.querystring;
  // a schema that allows more than its properties (or is not an object's) is not a list of names
  if (query && (query.additionalProperties === true || typeof query.additionalProperties === 'object' || query.patternProperties || query.anyOf || query.oneOf)) return null;
  const auth = route.config?.auth;
  const keyParams = auth ? (auth.queryParams ?? ['token']) : [];
  return [...new Set([...Object.keys(propertiesOf(query)), ...keyParams])];
}

/** The 400 for `name`, listing what the route takes. */
export function unknownQueryName(name: string, names: readonly string[]): Error {
  const takes = names.length === 0 ? 'this route takes no query parameters' : `this route takes ${names.join(', ')}`;
  return badRequest(`unknown query parameter '${name}': ${takes}`, name);
}

/** A preValidation hook refusing names the route does not take, or null when it takes any. */
export function queryNamesHook(route: Pick<RouteOptions, 'schema' | 'config'>): ((request: FastifyRequest) => Promise<void>) | null {
  const names = queryNames(route);
  if (names === null) return null;
  const known = new Set(names);
  return async (request) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (!query || typeof query !== 'object') return;
    for (const name of Object.keys(query)) if (!known.has(name)) throw unknownQueryName(name, names);
  };
}

/** Adds the check to a route as it is registered (call from an onRoute hook on the root instance). */
export function guardQueryNames(route: RouteOptions): void {
  const hook = queryNamesHook(route);
  if (!hook) return;
  route.preValidation = [hook, ...[route.preValidation ?? []].flat()] as RouteOptions['preValidation'];
}
