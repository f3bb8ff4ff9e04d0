// Fastify side of API keys. A route says what it needs in its config:
//   config: { auth: { scope: 'webhooks' } }
//   config: { auth: { scope: 'streaming', anonymous: true } }      // key optional, anonymous use limited
//   config: { auth: { scope: 'invoices', queryParams: ['api_key'] } }
// The key is taken from `Authorization: Bearer <key>` (scheme case-insensitive), then from the query
// parameters (default `token`). Routes without `config.auth` are public (health, docs, metrics).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { hasScope, type Principal, type Scope } from '../auth/keys.js';
import { ApiError, errorResponseSchema, forbidden, unauthorized } from '../errors.js';

export interface RouteAuth {
  /** Scope the key must hold; with a list, any one of them (admin holds every scope). */
  scope: Scope | readonly Scope[];
  /** Allows calls without a key (`request.principal` is null), limited per client address. */
  anonymous?: boolean;
  /** Query parameters that may carry the key, after the Authorization header. Default `['token']`. */
  queryParams?: readonly string[];
  /** Request headers that may carry the key as it is (e.g. `x-api-key`, lower case), after the Authorization header. */
  headers?: readonly string[];
  /** Callers on this machine need no key (see `isLocalCaller`); everyone else does. */
  localWithoutKey?: boolean;
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

/**
 * A caller on this machine, not a web page from elsewhere: a loopback client address, and no Origin
 * header, or one naming this same loopback host (a page of another site, or a DNS-rebound name,
 * sends its own origin even when the browser runs here).
 */
export function isLocalCaller(request: FastifyRequest): boolean {
  return notLocalBecause(request) === null;
}

/** Why a caller is not local, in words for the 401 (null: it is local). */
function notLocalBecause(request: FastifyRequest): string | null {
  const ip = request.ip;
  if (!(ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.'))) return `a caller on another machine (${ip}) needs one; callers on this machine need none`;
  const origin = request.headers.origin;
  if (origin === undefined) return null;
  const host = request.headers.host ?? '';
  if (LOOPBACK_HOST.test(host) && (origin === `http://${host}` || origin === `https://${host}`)) return null;
  return `a request from a web page (Origin ${origin.slice(0, 200)}) needs one, even from this machine`;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    /** The caller's key, or null on public routes and for allowed anonymous use. */
    principal: Principal | null;
  }
}

export interface KeyVerifier {
  verify(secret: string): Promise<Principal | null>;
}

export interface AuthOptions {
  keys: KeyVerifier;
  /** Concurrent anonymous requests (streams) one client address may hold on `anonymous` routes; 0 = key required. */
  anonymousLimit: number;
  /** The OpenAPI document's security schemes, completed here for every way a route accepts a key. */
  securitySchemes?: Record<string, unknown>;
}

/** Counts open anonymous streams per client address. */
export class ConcurrencyLimiter {
  private readonly open = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** A release function when a slot was free, else null. Release is idempotent. */
  tryAcquire(address: string): (() => void) | null {
    const n = this.open.get(address) ?? 0;
    if (n >= this.limit) return null;
    this.open.set(address, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(address) ?? 1) - 1;
      if (left > 0) this.open.set(address, left);
      else this.open.delete(address);
    };
  }

  inUse(address: string): number {
    return this.open.get(address) ?? 0;
  }
}

/** `Bearer <key>` with the scheme in any case; anything else is no key. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = header ? /^\s*bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}

function headerToken(request: FastifyRequest, names: readonly string[]): string | undefined {
  for (const name of names) {
    const v = request.headers[name];
    if (typeof v === 'string' && v.length > 0) return v;
  }
  return undefined;
}

function queryToken(query: unknown, names: readonly string[]): string | undefined {
  if (!query || typeof query !== 'object') return undefined;
  for (const name of names) {
    let v = (query as Record<string, unknown>)[name];
    if (Array.isArray(v)) v = v[0];
    if (typeof v === 'string' && v.length > 0) return v;
  }
  return undefined;
}

/** Adds `request.principal`, the key check and the OpenAPI security notes. Call on the root instance. */
export function registerAuth(app: FastifyInstance, opts: AuthOptions): ConcurrencyLimiter {
  const limiter = new ConcurrencyLimiter(opts.anonymousLimit);
  app.decorateRequest('principal', null);
  app.addHook('onRoute', (route) => documentAuth(route, opts.securitySchemes ?? {}));
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const auth = request.routeOptions.config.auth;
    if (!auth) return;
    const queryParams = auth.queryParams ?? ['token'];
    const secret = bearerToken(request.headers.authorization) ?? headerToken(request, auth.headers ?? []) ?? queryToken(request.query, queryParams);
    if (secret === undefined) {
      const notLocal = auth.localWithoutKey ? notLocalBecause(request) : null;
      if (auth.localWithoutKey && notLocal === null) {
        request.principal = null;
        return;
      }
      if (!auth.anonymous) {
        const where = queryParams.map((p) => `?${p}=<key>`).join(' or ');
        // a caller refused for being remote or a web page is told which of the two
        const why = notLocal ? `: ${notLocal};` : ':';
        throw unauthorized(`missing API key${why} send Authorization: Bearer <key> or ${where}`);
      }
      const release = limiter.tryAcquire(request.ip);
      if (!release) {
        throw new ApiError(
          401,
          `you have reached the limit of streaming connections without an API key (${limiter.limit} per client address): use an API key`,
          { error_code: 'anonymous_limit' },
        );
      }
      releaseWhenClosed(request, reply, release);
      request.principal = null;
      return;
    }
    const principal = await opts.keys.verify(secret);
    if (!principal) throw unauthorized('invalid or revoked API key');
    const scopes: readonly Scope[] = typeof auth.scope === 'string' ? [auth.scope] : auth.scope;
    if (!scopes.some((s) => hasScope(principal, s))) {
      throw forbidden(`this API key lacks the scope ${scopes.map((s) => `'${s}'`).join(' or ')}`);
    }
    request.principal = principal;
  });
  return limiter;
}

/** Frees the slot when the response ends or the connection goes (SSE) — or the socket, for WebSockets. */
export function releaseWhenClosed(request: FastifyRequest, reply: FastifyReply, release: () => void): void {
  const socket = request.raw.socket;
  const done = () => {
    release();
    reply.raw.off('close', done);
    socket?.off('close', done);
  };
  reply.raw.once('close', done);
  socket?.once('close', done);
}

/** Marks authenticated routes in the OpenAPI document: security requirements and 401/403 answers. */
function documentAuth(route: RouteOptions, schemes: Record<string, unknown>): void {
  const auth = route.config?.auth;
  if (!auth) return;
  const schema = (route.schema ??= {}) as Record<string, unknown>;
  schemes.bearerAuth ??= { type: 'http', scheme: 'bearer', description: 'API key: `Authorization: Bearer tw_…` (scheme in any case)' };
  const security: Record<string, string[]>[] = [{ bearerAuth: [] }];
  for (const p of auth.queryParams ?? ['token']) {
    schemes[`query_${p}`] ??= { type: 'apiKey', in: 'query', name: p, description: `API key in the \`${p}\` query parameter` };
    security.push({ [`query_${p}`]: [] });
  }
  if (auth.anonymous) security.push({});
  schema.security ??= security;
  const response = (schema.response ??= {}) as Record<string, unknown>;
  response[401] ??= { ...errorResponseSchema, description: 'Missing, unknown or revoked API key' };
  response[403] ??= { ...errorResponseSchema, description: 'The key lacks the scope' };
}
