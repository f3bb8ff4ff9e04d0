// The one way the console talks to tonwatch: same-origin fetch of the public APIs with the key in the
// Authorization header (never in a URL), JSON in and out, and the API's error shape
// `{"error", "field"?}` turned into an ApiFailure the forms show next to the field.

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The request field the API says is wrong, when it names one. */
    readonly field?: string,
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

export type Query = Record<string, string | number | boolean | undefined | null | ReadonlyArray<string>>;

export interface RequestOptions {
  query?: Query;
  json?: unknown;
  headers?: Record<string, string>;
  /** Another key than the session's (sign-in probes a key before keeping it). */
  key?: string;
  signal?: AbortSignal;
}

let currentKey: string | null = null;
/** Called when the API says the key is no longer valid (401): the app signs out. */
let onUnauthorized: (() => void) | null = null;

export function setApiKey(key: string | null): void {
  currentKey = key;
}

export function onKeyRejected(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

export function buildUrl(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const v of value) params.append(name, v);
    else params.append(name, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function send(method: string, path: string, opts: RequestOptions): Promise<Response> {
  const headers = new Headers(opts.headers);
  const key = opts.key ?? currentKey;
  if (key) headers.set('authorization', `Bearer ${key}`);
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers.set('content-type', 'application/json');
    body = JSON.stringify(opts.json);
  }
  let res: Response;
  try {
    res = await fetch(buildUrl(path, opts.query), { method, headers, body, signal: opts.signal, credentials: 'omit', cache: 'no-store' });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiFailure(0, 'tonwatch cannot be reached: check that the service is running');
  }
  if (!res.ok) throw await failureOf(res, key !== null && key === currentKey);
  return res;
}

async function failureOf(res: Response, usesSessionKey: boolean): Promise<ApiFailure> {
  let body: Record<string, unknown> | undefined;
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  const message = typeof body?.error === 'string' ? body.error : `${res.status} ${res.statusText || 'request failed'}`;
  const field = typeof body?.field === 'string' ? body.field : undefined;
  if (res.status === 401 && usesSessionKey) onUnauthorized?.();
  return new ApiFailure(res.status, message, field, body);
}

/** A JSON API call; an empty 2xx body resolves to `{}`. */
export async function call<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const res = await send(method, path, opts);
  const text = await res.text();
  return (text ? JSON.parse(text) : {}) as T;
}

/** A non-JSON answer (CSV, an image) as a Blob, with its headers. */
export async function callBlob(path: string, opts: RequestOptions = {}): Promise<{ blob: Blob; headers: Headers }> {
  const res = await send('GET', path, opts);
  return { blob: await res.blob(), headers: res.headers };
}

export const get = <T>(path: string, opts?: RequestOptions) => call<T>('GET', path, opts);
export const post = <T>(path: string, json?: unknown, opts?: RequestOptions) => call<T>('POST', path, { ...opts, json: json ?? {} });
export const patch = <T>(path: string, json?: unknown, opts?: RequestOptions) => call<T>('PATCH', path, { ...opts, json });
export const put = <T>(path: string, json?: unknown, opts?: RequestOptions) => call<T>('PUT', path, { ...opts, json });
export const del = <T>(path: string, opts?: RequestOptions) => call<T>('DELETE', path, opts);

/** A message for any error thrown by the calls above. */
export function errorText(err: unknown): string {
  if (err instanceof ApiFailure) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
