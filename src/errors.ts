// Errors any layer may throw, and the one JSON error shape of every API they become:
// `{"error": "<what is wrong>", ...details}`. Ground level: domain code (chain, components) throws
// ApiError without knowing HTTP; the app's error handler (src/http/) turns it, and Fastify's own
// validation, size and not-found errors, into that shape.

export interface ErrorBody {
  error: string;
  /** The request field the error is about (query/body/path parameter name), when there is one. */
  field?: string;
  /** Machine-readable code, when a client may want to branch on it. */
  error_code?: string;
  [detail: string]: unknown;
}

/** JSON schema of ErrorBody, for route `response` schemas and the OpenAPI document. */
export const errorResponseSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string', description: 'What is wrong, in words' },
    field: { type: 'string', description: 'The request field the error is about' },
    error_code: { type: 'string', description: 'Machine-readable code' },
  },
  additionalProperties: true,
} as const;

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly details: { field?: string; error_code?: string; [k: string]: unknown } = {},
    /** Extra response headers, e.g. Retry-After on 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  body(): ErrorBody {
    return { error: this.message, ...this.details };
  }
}

export const badRequest = (message: string, field?: string) => new ApiError(400, message, field ? { field } : {});
export const unauthorized = (message = 'missing or invalid API key') => new ApiError(401, message);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (message = 'not found') => new ApiError(404, message);
export const conflict = (message: string) => new ApiError(409, message);

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message: string;
  validation?: Array<{ keyword?: string; instancePath?: string; params?: Record<string, unknown>; message?: string }>;
  validationContext?: string;
}

/** Name of the request field a Fastify/Ajv validation error is about. */
function validationField(err: FastifyLikeError): string | undefined {
  const first = err.validation?.[0];
  if (!first) return undefined;
  const missing = first.params?.missingProperty ?? first.params?.additionalProperty;
  const path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  if (typeof missing === 'string') return path ? `${path}.${missing}` : missing;
  return path || undefined;
}

export const UNSUPPORTED_MEDIA_TYPE = 'the request body must be JSON: send content-type: application/json';

/** Maps any error to the status code and JSON body we answer with. */
export function toErrorResponse(err: unknown): { statusCode: number; body: ErrorBody; headers: Record<string, string> } {
  if (err instanceof ApiError) return { statusCode: err.statusCode, body: err.body(), headers: err.headers };
  const e = err as FastifyLikeError;
  if (e?.validation) {
    const field = validationField(e);
    const first = e.validation[0];
    // Ajv says "must be equal to one of the allowed values": name them.
    const allowed = first?.keyword === 'enum' ? first.params?.allowedValues : undefined;
    const what = Array.isArray(allowed) ? `must be one of ${allowed.join(', ')}` : (first?.message ?? 'is invalid');
    const where = e.validationContext ?? 'request';
    const message = field ? `invalid ${where} field '${field}': ${what}` : `invalid ${where}: ${what}`;
    return { statusCode: 400, body: field ? { error: message, field } : { error: message }, headers: {} };
  }
  const status = typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 600 ? e.statusCode : 500;
  // Every body this API takes is JSON (the app parses no other type): say what to send.
  if (e?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return { statusCode: 415, body: { error: UNSUPPORTED_MEDIA_TYPE, error_code: 'unsupported_media_type' }, headers: {} };
  if (status === 413) return { statusCode: 413, body: { error: 'request body is too large' }, headers: {} };
  if (status >= 500) return { statusCode: status, body: { error: 'internal server error' }, headers: {} };
  return { statusCode: status, body: { error: e?.message || 'bad request' }, headers: {} };
}
