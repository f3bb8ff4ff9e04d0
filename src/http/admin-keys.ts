// Admin API for API keys (scope admin): create (the key is shown once), list, show, revoke.
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { KeyInputError, SCOPE_DESCRIPTIONS, SCOPES, type ApiKeyInfo, type ApiKeys, type Scope } from '../auth/keys.js';
import { badRequest, errorResponseSchema, notFound } from '../errors.js';

const admin = { auth: { scope: 'admin' as const } };

const ScopeSchema = Type.Unsafe<Scope>({
  type: 'string',
  enum: [...SCOPES],
  description: SCOPES.map((s) => `${s}: ${SCOPE_DESCRIPTIONS[s]}`).join('; '),
});

const KeyInfo = Type.Object({
  id: Type.String({ description: 'Key id (not secret), used to revoke it' }),
  name: Type.String(),
  scopes: Type.Array(ScopeSchema),
  owner_ref: Type.Union([Type.String(), Type.Null()], { description: 'What the key is bound to, e.g. app:<id>' }),
  hint: Type.String({ description: 'First characters of the key' }),
  origin: Type.String({ description: 'api, cli, env (TONWATCH_ADMIN_KEY) or generated (first start)' }),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const CreatedKey = Type.Intersect([KeyInfo, Type.Object({ key: Type.String({ description: 'The secret: shown only in this response' }) })]);

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function keyJson(k: ApiKeyInfo) {
  return {
    id: k.id,
    name: k.name,
    scopes: k.scopes,
    owner_ref: k.ownerRef,
    hint: k.hint,
    origin: k.origin,
    created_at: iso(k.createdAt)!,
    last_used_at: iso(k.lastUsedAt),
    revoked_at: iso(k.revokedAt),
  };
}

export function adminKeyRoutes(keys: ApiKeys) {
  return async function routes(parent: FastifyInstance): Promise<void> {
    const app = parent.withTypeProvider<TypeBoxTypeProvider>();

    app.post(
      '/admin/keys',
      {
        config: admin,
        schema: {
          tags: ['admin'],
          summary: 'Create an API key; the response is the only time the key is shown',
          body: Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: 100 }),
              scopes: Type.Array(ScopeSchema, { minItems: 1, maxItems: SCOPES.length }),
              owner_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            },
            { additionalProperties: false },
          ),
          response: { 201: CreatedKey, 400: errorResponseSchema },
        },
      },
      async (request, reply) => {
        try {
          const created = await keys.createKey({ name: request.body.name, scopes: request.body.scopes, ownerRef: request.body.owner_ref, origin: 'api' });
          reply.code(201);
          return { ...keyJson(created), key: created.key };
        } catch (err) {
          if (err instanceof KeyInputError) throw badRequest(err.message, err.field);
          throw err;
        }
      },
    );

    app.get(
      '/admin/keys',
      {
        config: admin,
        schema: {
          tags: ['admin'],
          summary: 'List API keys, newest first (secrets are never shown again)',
          querystring: Type.Object({
            limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
            offset: Type.Integer({ minimum: 0, default: 0 }),
            owner_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            include_revoked: Type.Boolean({ default: true }),
          }),
          response: { 200: Type.Object({ keys: Type.Array(KeyInfo) }) },
        },
      },
      async (request) => {
        const q = request.query;
        const list = await keys.listKeys({ limit: q.limit, offset: q.offset, ownerRef: q.owner_ref, includeRevoked: q.include_revoked });
        return { keys: list.map(keyJson) };
      },
    );

    const byId = { params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }) };

    app.get(
      '/admin/keys/:id',
      {
        config: admin,
        schema: { tags: ['admin'], summary: 'Show one API key', ...byId, response: { 200: KeyInfo, 404: errorResponseSchema } },
      },
      async (request) => {
        const key = await keys.getKey(request.params.id);
        if (!key) throw notFound(`no API key with id '${request.params.id}'`);
        return keyJson(key);
      },
    );

    app.delete(
      '/admin/keys/:id',
      {
        config: admin,
        schema: {
          tags: ['admin'],
          summary: 'Revoke an API key, effective at once',
          ...byId,
          response: { 200: KeyInfo, 404: errorResponseSchema },
        },
      },
      async (request) => {
        const key = await keys.revokeKey(request.params.id);
        if (!key) throw notFound(`no API key with id '${request.params.id}'`);
        return keyJson(key);
      },
    );
  };
}
