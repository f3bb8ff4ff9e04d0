// Finality levels on the devnet (#32): how long after a transfer is sent its trace is seen pending,
// confirmed and finalized, p50/p99, against the block interval. The devnet runs on its timer (1 s blocks,
// each shard block shown half an interval before its masterchain block); the real follower appends into a
// SQLite store and the tracker is fed as in the service. Transfers go out at random moments of the interval.
import { join } from 'node:path';
import { internal } from '@ton/core';
import pino from 'pino';
import { StoreEventLog } from '../src/bus/store-log.js';
import { startDevnet } from '../src/chain/devnet/index.js';
import { sendFromWallet } from '../src/chain/devnet/sender.js';
import { Follower } from '../src/pipeline/follower.js';
import { FinalityFeed } from '../src/pipeline/finality/feed.js';
import { FinalityTracker } from '../src/pipeline/finality/tracker.js';
import type { Benchmark, BenchRow } from './harness.js';
import { percentile } from './lib/stats.js';
import { openBenchStore } from './lib/store.js';

const BLOCK_INTERVAL_MS = 1000;
const TRANSFERS = 60;

const bench: Benchmark = {
  name: 'finality',
  description: 'Devnet on its timer: send → pending, send → confirmed, send → finalized (p50/p99) of wallet transfers, against the block interval.',
  issue: 32,
  budgetSeconds: 120,
  async run(ctx) {
    const { chain, directory } = await startDevnet({ dataDir: join(ctx.tmpDir, 'devnet'), blockIntervalMs: BLOCK_INTERVAL_MS });
    const { store, close } = await openBenchStore('sqlite', ctx.tmpDir);
    const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await log.open();
    const tracker = new FinalityTracker();
    const feed = new FinalityFeed({ source: chain, tracker });
    const follower = new Follower({ source: chain, store, log, logger: pino({ level: 'silent' }), startAt: chain.masterchainSeqno + 1, onFinalized: (b) => tracker.finalizedBlock(b) });
    // when each level of each trace was seen, and which message started it; matched with send times at the end
    const sentAt = new Map<string, number>();
    const levelsAt = new Map<string, { messageHash: string; pending?: number; confirmed?: number; finalized?: number }>();
    tracker.subscribe((e) => {
      if (e.finality === 'invalidated') return;
      const entry = levelsAt.get(e.trace) ?? { messageHash: e.messageHash };
      entry[e.finality] = performance.now();
      levelsAt.set(e.trace, entry);
    });
    feed.start();
    await follower.start();
    try {
      const senders = directory.wallets.filter((w) => w.name !== 'mallory' && w.name !== 'faucet');
      const count = Math.max(10, Math.round(TRANSFERS * ctx.scale));
      for (let i = 0; i < count; i++) {
        await new Promise((r) => setTimeout(r, Math.random() * BLOCK_INTERVAL_MS));
        const from = senders[i % senders.length]!;
        const to = senders[(i + 1) % senders.length]!;
        const started = performance.now();
        sentAt.set(await sendFromWallet(chain, from, [internal({ to: to.address, value: 1_000_000n, bounce: false })]), started);
        if (i % 10 === 9) ctx.progress(`${i + 1}/${count} transfers sent`);
      }
      const finalizedCount = () => [...levelsAt.values()].filter((l) => l.finalized !== undefined && sentAt.has(l.messageHash)).length;
      const until = Date.now() + 10 * BLOCK_INTERVAL_MS;
      while (finalizedCount() < count && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      const seen = { pending: [] as number[], confirmed: [] as number[], finalized: [] as number[] };
      for (const l of levelsAt.values()) {
        const started = sentAt.get(l.messageHash);
        if (started === undefined) continue;
        for (const level of ['pending', 'confirmed', 'finalized'] as const) if (l[level] !== undefined) seen[level].push(l[level]! - started);
      }
      const rows: BenchRow[] = [];
      for (const level of ['pending', 'confirmed', 'finalized'] as const) {
        const values = seen[level];
        for (const p of [50, 99]) {
          const ms = percentile(values, p);
          rows.push({
            metric: `send → ${level} p${p}`,
            value: ms,
            unit: 'ms',
            baseline: { name: 'block interval', value: BLOCK_INTERVAL_MS },
            ratio: ms / BLOCK_INTERVAL_MS,
            note: `${values.length} of ${count} transfers seen ${level}; confirmation lag ${chain.confirmationLagMs} ms`,
          });
        }
      }
      return rows;
    } finally {
      feed.stop();
      await follower.stop();
      await chain.stop();
      await close();
    }
  },
};

export default bench;
