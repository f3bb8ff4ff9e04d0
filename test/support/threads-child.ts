// Run as its own process by src/store/threads.test.ts: starts the whole service (its threads: the
// SQLite WAL checkpointer, the webhook sender) and stops it, several times, with garbage statements
// collected in between; then exits normally. A native addon that aborts when a thread holding its
// objects ends (or at process exit) kills this process instead of the test runner.
import { startTestService } from './service.js';

const rounds = Number(process.argv[2] ?? 3);
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
for (let round = 1; round <= rounds; round++) {
  const service = await startTestService();
  // Writes through the main connection, and at least one checkpoint by the worker's connection.
  await service.api('/webhooks', { method: 'POST', json: { endpoint: 'http://127.0.0.1:9/hook' } });
  await service.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: 'bob', amount: '1000000' } });
  await service.settle();
  const readyz = (await (await fetch(`${service.url}/readyz`)).json()) as unknown;
  collect();
  await service.close();
  collect();
  console.log(`round ${round}: ${JSON.stringify(readyz).includes('"sender":"thread"') ? 'sender thread' : 'no sender thread'} started and stopped`);
}
console.log('all rounds done');
