// The server side of the streaming benchmark: the real app with the streaming component over a real
// event log (SQLite in the benchmark's temp dir), and a hook on the log that records when each
// block's events were published — registered before the hub, so it runs just before the fan-out.
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { StoreEventLog } from '../../src/bus/store-log.js';
import { POSITION_STRIDE, type EventBatch } from '../../src/bus/events.js';
import { loadConfig } from '../../src/config.js';
import { buildApp, type App } from '../../src/http/app.js';
import { createStreaming } from '../../src/streaming/index.js';
import type { Store } from '../../src/store/db.js';
import { sharedNow } from './protocol.js';
import { openBenchStore } from '../lib/store.js';

export interface BenchServer {
  url: string;
  app: App;
  store: Store;
  log: StoreEventLog;
  streaming: ReturnType<typeof createStreaming>;
  registry: Registry;
  /** When the block batch of this masterchain seqno was published (shared clock). */
  publishedAt(mcSeqno: number): number;
  /** The process's CPU time (user + system, all threads) used since that block batch was published, in ms. */
  cpuSincePublished(mcSeqno: number): number;
  /** Called with [masterchain seqno, published at] entries, in batches. */
  onPublished(listener: (entries: Array<[number, number]>) => void): void;
  /** Sum of a counter or gauge over its labels. */
  metric(name: string): Promise<number>;
  close(): Promise<void>;
}

export async function startBenchServer(tmpDir: string): Promise<BenchServer> {
  const { store, close: closeStore } = await openBenchStore('sqlite', tmpDir, 'streaming');
  const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
  await log.open();
  let pending: Array<[number, number]> = [];
  const publishedAt = new Map<number, number>();
  const cpuAt = new Map<number, NodeJS.CpuUsage>();
  let listener: ((entries: Array<[number, number]>) => void) | null = null;
  // Before the hub subscribes: this runs first for every batch, right before the fan-out.
  log.subscribe((batch: EventBatch) => {
    if (batch.kind !== 'block') return;
    const at = sharedNow();
    publishedAt.set(batch.mcSeqno, at);
    cpuAt.set(batch.mcSeqno, process.cpuUsage());
    pending.push([Math.floor(batch.firstPosition / POSITION_STRIDE), at]);
    if (pending.length === 1) {
      setImmediate(() => {
        const entries = pending;
        pending = [];
        listener?.(entries);
      });
    }
  });
  const registry = new Registry();
  const config = {
    ...loadConfig({}),
    logLevel: 'silent' as const,
    // Every client of the benchmark comes from 127.0.0.1 without a key.
    streamAnonLimit: 100_000,
    clientConnectionLimit: 0,
    streamBufferBytes: 16 * 1024 * 1024,
  };
  const logger = pino({ level: 'silent' });
  const streaming = createStreaming({ events: log, config, metrics: registry, logger });
  const app = await buildApp({ config, metrics: registry, logger, components: [streaming], defaultMetrics: false });
  await app.listen({ port: 0, host: '127.0.0.1', backlog: 4096 });
  await streaming.start!();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    store,
    log,
    streaming,
    registry,
    publishedAt: (mcSeqno) => publishedAt.get(mcSeqno) ?? Number.NaN,
    cpuSincePublished: (mcSeqno) => {
      const used = process.cpuUsage(cpuAt.get(mcSeqno));
      return (used.user + used.system) / 1000;
    },
    onPublished: (l) => {
      listener = l;
    },
    metric: async (name) => {
      const m = registry.getSingleMetric(name);
      if (!m) return 0;
      return (await m.get()).values.reduce((s, v) => s + v.value, 0);
    },
    close: async () => {
      await streaming.stop!();
      await app.close();
      await closeStore();
    },
  };
}
