// The HTTP app every API lives in: one JSON error shape, body and header limits, CORS, request logs,
// the OpenAPI document at /docs, /healthz, /readyz, /metrics, API-key auth and the admin key API.
// Components register their routes as encapsulated plugins. `buildApp` does not listen.
import fs from 'node:fs';
import type http from 'node:http';
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerFactory } from 'fastify';
import cors from '@fastify/cors';
import websocket from '@fastify/websocket';
import { pino, type Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import type { ApiKeys } from '../auth/keys.js';
import { adminKeyRoutes } from './admin-keys.js';
import { registerAuth, type ConcurrencyLimiter, type KeyVerifier } from './auth.js';
import { registerDocs } from './docs.js';
import { toErrorResponse, type ErrorBody } from '../errors.js';
import { isStoreUnavailable, STORE_UNAVAILABLE } from '../store/faults.js';
import { guardNumbers } from './finite-numbers.js';
import { guardQueryNames } from './query-names.js';
import { registerHealth, type HealthProvider } from './health.js';
import { rejectLossyJsonNumbers } from './json-numbers.js';
import { registerClientLimits } from './limits.js';
import { registerMetrics } from './metrics.js';

/** Node's default 16 KiB fits only ~240 addresses in a streaming GET URL. */
export const MAX_HEADER_BYTES = 1024 * 1024;

export type AppConfig = Pick<
  Config,
  | 'bodyLimitBytes' | 'corsOrigins' | 'logLevel' | 'trustProxy' | 'streamAnonLimit' | 'wsMaxAccounts'
  | 'headersTimeoutMs' | 'requestTimeoutMs' | 'bodyTimeoutMs' | 'clientConnectionLimit'
>;

/** What the app needs of a component: its routes and its readiness (the service's Component is one). */
export interface AppComponent {
  name: string;
  /** Registers the component's routes (an encapsulated Fastify plugin, schemas on every route). */
  routes?(app: FastifyInstance): Promise<void>;
  /** Extra facts for /readyz, and false `ok` when the component cannot serve. */
  health?(): Promise<{ ok: boolean; [fact: string]: unknown }>;
}

export interface BuildAppOptions {
  config: AppConfig;
  /** Registry `/metrics` serves; components register their metrics in it too. */
  metrics: Registry;
  /** Defaults to a JSON pino logger at `config.logLevel`. */
  logger?: Logger;
  /** API keys; enables the admin key API. Without it, every route that needs a key answers 401. */
  keys?: ApiKeys;
  /** Registered in order, each as an encapsulated plugin; their `health` joins /readyz. */
  components?: AppComponent[];
  /** Extra /readyz checks by name (chain head, follower lag, store). */
  health?: Record<string, HealthProvider>;
  /** Add the process's default metrics to the registry (once per registry). Default true. */
  defaultMetrics?: boolean;
  /** Longest a /readyz check may take before it counts as failed. Default 2000 ms. */
  healthTimeoutMs?: number;
  /** A server that already listens (made with `httpServerOptions`): the app is built on it and does not listen itself. */
  serverFactory?: FastifyServerFactory;
}

/** The HTTP server's limits: Node checks both timeouts every connectionsCheckingInterval; headers may not outlast the request. */
export function httpServerOptions(config: Pick<AppConfig, 'headersTimeoutMs' | 'requestTimeoutMs'>): http.ServerOptions {
  const requestTimeout = config.requestTimeoutMs;
  const headersTimeout = Math.min(config.headersTimeoutMs, requestTimeout);
  return {
    maxHeaderSize: MAX_HEADER_BYTES,
    requestTimeout,
    headersTimeout,
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
}

export interface RegisteredRoute {
  method: string;
  url: string;
  /** Hidden from the OpenAPI document (docs assets, WebSocket upgrades, CORS preflight). */
  hidden: boolean;
}

export type App = FastifyInstance & {
  /** Open anonymous streams per client address (see http/auth.ts). */
  anonymousStreams: ConcurrencyLimiter;
  /** Requests in progress per client address, keyed or not (see http/limits.ts). */
  clientRequests: ConcurrencyLimiter;
  /** Every route added, in order (HEAD twins included), for checks like "the docs list every route". */
  registeredRoutes: RegisteredRoute[];
};

const noKeys: KeyVerifier = { verify: async () => null };

function packageVersion(): string {
  try {
    return JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** Keys may travel in the query string: never write them to the logs. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:token|api_key)=)[^&#]*/gi, '$1***');
}

const serializers = {
  req: (req: { method?: string; url?: string; ip?: string; socket?: { remotePort?: number } }) => ({
    method: req.method,
    url: req.url ? redactUrl(req.url) : req.url,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
};

export async function buildApp(opts: BuildAppOptions): Promise<App> {
  const { config } = opts;
  const logger = opts.logger
    ? opts.logger.child({}, { serializers })
    : pino({ level: config.logLevel, serializers });

  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.requestTimeoutMs,
    http: httpServerOptions(config),
    ...(opts.serverFactory ? { serverFactory: opts.serverFactory } : {}),
    trustProxy: config.trustProxy,
    routerOptions: { maxParamLength: 256 },
    genReqId: () => randomBytes(8).toString('hex'),
  }) as unknown as FastifyInstance; // components pick their type provider with app.withTypeProvider()

  const registeredRoutes: RegisteredRoute[] = [];
  app.addHook('onRoute', (route) => {
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    for (const method of [route.method].flat()) registeredRoutes.push({ method, url: route.url, hidden });
    // The schema is the validation and the documentation: a route without one is a bug to fix.
    if (!route.schema && !hidden && route.method !== 'HEAD') app.log.warn({ method: route.method, url: route.url }, 'route without a schema');
    guardNumbers(route);
    guardQueryNames(route); // before the numbers: a name the route does not take is the first thing wrong
    // Path and query numbers first, then the body's, the order the validator reports them in.
    route.preValidation = [...[route.preValidation ?? []].flat(), rejectLossyJsonNumbers] as typeof route.preValidation;
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // One rule for bodies: JSON only. Fastify's text/plain parser would hand a JSON body sent as text to the
  // schema as a string ("must be object"); without it, any other type (or none) is a 415 saying what to send.
  app.removeContentTypeParser('text/plain');

  app.setErrorHandler((err, request, reply) => {
    const { statusCode, body, headers } = isStoreUnavailable(err) ? { ...STORE_UNAVAILABLE, body: { ...STORE_UNAVAILABLE.body } as ErrorBody } : toErrorResponse(err);
    if (statusCode >= 500) {
      request.log.error({ err, reqId: request.id }, 'request failed');
      body.request_id = request.id;
    }
    reply.code(statusCode).headers(headers).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    reply.code(404).send({ error: `no route ${request.method} ${path}` });
  });

  // Swagger collects routes as they are added, so it comes before every route.
  const securitySchemes: Record<string, unknown> = {};
  await registerDocs(app, { version: packageVersion(), securitySchemes });

  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: config.corsOrigins[0] === '*' ? '*' : [...config.corsOrigins],
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Last-Event-ID', 'Idempotency-Key'],
      exposedHeaders: ['Retry-After', 'X-Request-Id', 'Location'],
      credentials: false,
      maxAge: 600,
    });
  }

  await app.register(websocket, { options: { maxPayload: config.bodyLimitBytes } });

  const clientRequests = registerClientLimits(app, config);
  const anonymousStreams = registerAuth(app, { keys: opts.keys ?? noKeys, anonymousLimit: config.streamAnonLimit, securitySchemes });
  registerMetrics(app, opts.metrics, { defaultMetrics: opts.defaultMetrics });

  const components = opts.components ?? [];
  const providers: Record<string, HealthProvider> = { ...opts.health };
  for (const c of components) if (c.health) providers[c.name] = () => c.health!();
  registerHealth(app, providers, { timeoutMs: opts.healthTimeoutMs });

  if (opts.keys) await app.register(adminKeyRoutes(opts.keys));
  for (const component of components) {
    if (component.routes) await app.register(async (child: FastifyInstance) => component.routes!(child));
  }

  return Object.assign(app, { anonymousStreams, clientRequests, registeredRoutes });
}
