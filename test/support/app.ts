// For tests of any component: the real app on a real port (0 → any free one) over a real store, with
// an admin key, and logs captured in memory instead of stdout.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import { ApiKeys, type Scope } from '../../src/auth/keys.js';
import { loadConfig } from '../../src/config.js';
import type { Store } from '../../src/store/db.js';
import { buildApp, type App, type AppComponent, type AppConfig, type BuildAppOptions } from '../../src/http/app.js';
import type { HealthProvider } from '../../src/http/health.js';

/** A pino logger whose JSON lines land in `lines`. */
export function captureLogger(level = 'info'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

export interface TestAppOptions {
  store: Store;
  components?: AppComponent[];
  config?: Partial<AppConfig>;
  health?: Record<string, HealthProvider>;
  healthTimeoutMs?: number;
  metrics?: Registry;
  keyCacheTtlMs?: number;
}

export interface TestApp {
  app: App;
  /** `http://127.0.0.1:<port>` */
  url: string;
  keys: ApiKeys;
  metrics: Registry;
  logs: Record<string, unknown>[];
  adminKey: string;
  /** Creates a key with the given scopes and returns the secret. */
  key(...scopes: Scope[]): Promise<string>;
  close(): Promise<void>;
}

export async function startTestApp(opts: TestAppOptions): Promise<TestApp> {
  const { logger, lines } = captureLogger();
  const metrics = opts.metrics ?? new Registry();
  const keys = new ApiKeys(opts.store, { cacheTtlMs: opts.keyCacheTtlMs });
  const config: AppConfig = { ...loadConfig({}), ...opts.config };
  const buildOpts: BuildAppOptions = {
    config,
    metrics,
    logger,
    keys,
    components: opts.components,
    health: opts.health,
    healthTimeoutMs: opts.healthTimeoutMs,
  };
  const app = await buildApp(buildOpts);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const admin = await keys.createKey({ name: 'test admin', scopes: ['admin'] });
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    keys,
    metrics,
    logs: lines,
    adminKey: admin.key,
    key: async (...scopes) => (await keys.createKey({ name: `test ${scopes.join('+')}`, scopes })).key,
    close: () => app.close(),
  };
}
