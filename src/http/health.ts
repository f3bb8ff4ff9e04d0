// `/healthz` (liveness: the process answers) and `/readyz` (readiness: every health provider — chain
// head, follower lag, store, components — reports ok; else 503 with the facts of each check).
import type { FastifyInstance } from 'fastify';

export interface HealthReport {
  ok: boolean;
  [fact: string]: unknown;
}

export type HealthProvider = () => HealthReport | Promise<HealthReport>;

const reportSchema = {
  type: 'object',
  required: ['ok'],
  properties: { ok: { type: 'boolean' } },
  additionalProperties: true,
} as const;

const readySchema = {
  type: 'object',
  required: ['ok', 'checks'],
  properties: {
    ok: { type: 'boolean', description: 'True when every check is ok' },
    checks: { type: 'object', additionalProperties: reportSchema, description: 'One report per health provider' },
  },
} as const;

/** Runs one provider, bounded in time; a throw or a timeout is a failed check, never a failed request. */
async function runCheck(provider: HealthProvider, timeoutMs: number): Promise<HealthReport> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HealthReport>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, error: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    const report = await Promise.race([Promise.resolve().then(provider), timeout]);
    if (!report || typeof report !== 'object') return { ok: false, error: 'health provider returned no report' };
    return jsonSafe({ ...report, ok: report.ok === true });
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Facts may hold bigints (seqnos, lt): numbers when exact, strings otherwise. */
function jsonSafe(report: HealthReport): HealthReport {
  return JSON.parse(
    JSON.stringify(report, (_k, v) => (typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v)),
  );
}

export function registerHealth(
  app: FastifyInstance,
  providers: Record<string, HealthProvider>,
  opts: { timeoutMs?: number } = {},
): void {
  const timeoutMs = opts.timeoutMs ?? 2000;
  const started = Date.now();

  app.get(
    '/healthz',
    {
      logLevel: 'warn',
      config: { probe: true },
      schema: {
        tags: ['service'],
        summary: 'Liveness: the process is up and answering',
        response: {
          200: {
            type: 'object',
            required: ['ok', 'uptime_seconds'],
            properties: { ok: { type: 'boolean' }, uptime_seconds: { type: 'integer' } },
          },
        },
      },
    },
    async () => ({ ok: true, uptime_seconds: Math.floor((Date.now() - started) / 1000) }),
  );

  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      config: { probe: true },
      schema: {
        tags: ['service'],
        summary: 'Readiness: chain head, follower lag, store and components; 503 when a check fails',
        response: { 200: readySchema, 503: readySchema },
      },
    },
    async (_request, reply) => {
      const names = Object.keys(providers);
      const reports = await Promise.all(names.map((n) => runCheck(providers[n]!, timeoutMs)));
      const checks = Object.fromEntries(names.map((n, i) => [n, reports[i]!]));
      const ok = reports.every((r) => r.ok);
      reply.code(ok ? 200 : 503);
      return { ok, checks };
    },
  );
}
