// A webhook delivery worker in its own process, for the cluster tests: one DeliveryEngine on the
// PostgreSQL schema given in the environment, sending with a user agent that names it. Prints
// `ready` once started; SIGTERM stops it cleanly (leases released), SIGKILL is a crash.
import { pino } from 'pino';
import { openStore } from '../../src/store/db.js';
import { DeliveryEngine } from '../../src/delivery/engine.js';

const env = process.env;
const store = await openStore({ databaseUrl: env.WORKER_DATABASE_URL, pgSchema: env.WORKER_SCHEMA, pgPoolSize: 4 });
const engine = new DeliveryEngine({
  store,
  allowLoopback: true,
  timeoutMs: Number(env.WORKER_TIMEOUT_MS),
  leaseMs: Number(env.WORKER_LEASE_MS),
  pollIntervalMs: 200,
  workerId: env.WORKER_NAME,
  userAgent: `tonwatch-webhooks/test ${env.WORKER_NAME}`,
  logger: pino({ level: env.WORKER_LOG_LEVEL ?? 'warn' }, pino.destination(2)),
});
await engine.start();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void (async () => {
    await engine.stop();
    await store.close();
    process.exit(0);
  })();
});
