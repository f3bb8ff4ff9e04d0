// Prometheus metrics of the store: the SQLite WAL checkpointer's work, read from its counters at scrape time.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Store } from './db.js';

export function registerStoreMetrics(registry: Registry, store: Store): void {
  const stats = store.checkpoints;
  if (!stats) return;
  const registers = [registry];
  new Gauge({
    name: 'tonwatch_sqlite_wal_frames',
    help: 'Pages in the SQLite WAL at the last checkpoint (it restarts from zero once fully checkpointed)',
    registers,
    collect() {
      this.set(stats.walFrames);
    },
  });
  // Counters fed from the worker's running totals: each scrape adds what happened since the last.
  const counted = (name: string, help: string, read: () => number) => {
    let seen = 0;
    new Counter({
      name,
      help,
      registers,
      collect() {
        const now = read();
        if (now > seen) this.inc(now - seen);
        seen = now;
      },
    });
  };
  counted('tonwatch_sqlite_checkpoints_total', 'WAL checkpoints run by the checkpoint thread', () => stats.runs);
  counted('tonwatch_sqlite_wal_restarts_total', 'Checkpoints that made the writer wait so the WAL could restart (it had passed its bound)', () => stats.restarts);
}
