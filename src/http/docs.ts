// The OpenAPI 3 document, built from the route schemas (the schema is the validation and the
// documentation), at `/docs/json` (and `/docs/yaml`), browsable at `/docs` with Swagger UI served
// from the package's own files (no CDN). Must be registered before any route.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export interface DocsOptions {
  version: string;
  description?: string;
  /** Filled while routes are added (http/auth.ts); read when the document is first built. */
  securitySchemes: Record<string, unknown>;
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
      // Shared by reference: swagger reads it when it first builds the document, after every route is added.
      components: { securitySchemes: opts.securitySchemes as Record<string, any> },
      tags: [{ name: 'service', description: 'Health, readiness, metrics' }, { name: 'admin', description: 'API keys (scope admin)' }],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, docExpansion: 'list' },
    staticCSP: true,
    logLevel: 'warn',
  });
}
