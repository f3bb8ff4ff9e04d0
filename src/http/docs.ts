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

interface OpenApiDocument {
  paths?: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: { required?: string[] } }> }> }>>;
}

/**
 * A route's `produces` (CSV, PNG) is applied by swagger to every answer, its JSON errors too: an error
 * answer documented in the error shape is JSON, whatever the route's success type.
 */
function jsonErrors<T extends OpenApiDocument>(doc: T): T {
  for (const methods of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(methods)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const content = Object.values(response.content ?? {});
        if (Number(status) < 400 || content.length === 0 || response.content!['application/json']) continue;
        if (content.every((c) => c.schema?.required?.includes('error'))) response.content = { 'application/json': content[0]! };
      }
    }
  }
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
      // Shared by reference: swagger reads it when it first builds the document, after every route is added.
      components: { securitySchemes: opts.securitySchemes as Record<string, any> },
      tags: [{ name: 'service', description: 'Health, readiness, metrics' }, { name: 'admin', description: 'API keys (scope admin)' }],
    },
    transformObject: (doc) => jsonErrors(('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject) as OpenApiDocument) as object,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, docExpansion: 'list' },
    staticCSP: true,
    logLevel: 'warn',
  });
}
