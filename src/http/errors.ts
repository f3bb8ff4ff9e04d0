// The one JSON error shape of every HTTP API: `{"error": "<what is wrong>", ...details}`.
// Throw ApiError from handlers; the app's error handler turns it (and Fastify's own
// validation, size and not-found errors) into that shape.

export interface ErrorBody {
  error: string;
  /** The request field the error is about (query/body/path parameter name), when there is one. */
  field?: string;
  /** Machine-readable code, when a client may want to branch on it. */
  error_code?: string;
  [detail: string]: unknown;
}

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
