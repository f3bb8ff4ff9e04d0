// Who owns a webhook: the API key that created it. Every webhooks route needs the `webhooks` scope.
import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../errors.js';

export const webhooksAuth = { auth: { scope: 'webhooks' as const } };

/** The key id of the caller; the routes' auth config guarantees one. */
export function ownerOf(request: FastifyRequest): string {
  if (!request.principal) throw unauthorized();
  return request.principal.keyId;
}
