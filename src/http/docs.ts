// The OpenAPI 3 document, built from the route schemas (the schema is the validation and the
// documentation), at `/docs/json` (and `/docs/yaml`), browsable at `/docs` with Swagger UI served
// from the package's own files (no CDN). Must be registered before any route.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export interface DocsOptions {
  version: string;
  description?: string;
}

type OpenApiDoc = {
  paths?: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
  components?: { securitySchemes?: Record<string, unknown> };
};

/** Declares every security scheme that routes use: `bearerAuth` and `query_<param>` (see http/auth.ts). */
function addSecuritySchemes(doc: OpenApiDoc): OpenApiDoc {
  const schemes: Record<string, unknown> = {};
  for (const methods of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(methods)) {
      for (const requirement of op.security ?? []) {
        for (const name of Object.keys(requirement)) {
          if (name === 'bearerAuth') {
            schemes[name] = { type: 'http', scheme: 'bearer', description: 'API key: `Authorization: Bearer tw_…`' };
          } else if (name.startsWith('query_')) {
            const param = name.slice('query_'.length);
            schemes[name] = { type: 'apiKey', in: 'query', name: param, description: `API key in the \`${param}\` query parameter` };
          }
        }
      }
    }
  }
  doc.components = { ...doc.components, securitySchemes: { ...doc.components?.securitySchemes, ...schemes } };
  return doc;
}

export async function registerDocs(app: FastifyInstance, opts: DocsOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'tonwatch',
        version: opts.version,
        description:
          opts.description ??
          'Notifications, payment tracking and deposit indexing for the TON blockchain. Errors are JSON: `{"error": "...", "field"?: "..."}`.',
      },
      tags: [{ name: 'service', description: 'Health, readiness, metrics' }, { name: 'admin', description: 'API keys (scope admin)' }],
    },
    transformObject: (doc: any) => addSecuritySchemes(doc.openapiObject as OpenApiDoc) as any,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, docExpansion: 'list' },
    staticCSP: true,
    logLevel: 'warn',
  });
}
