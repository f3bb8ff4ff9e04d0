// The benchmark's replay blocks as the follower appends them, for harnesses that drive a hub directly
// (ab.ts, v2-fanout.ts): the same blocks the full streaming bench publishes, without its server.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { EventBatch } from '../../src/bus/events.js';
import { StoreEventLog } from '../../src/bus/store-log.js';
import { createReplaySource } from '../../src/chain/replay/index.js';
import { Follower } from '../../src/pipeline/follower.js';
import { openBenchStore } from '../lib/store.js';

/** `n` blocks of the replay over `owners` (10,000 tx/s, 4 blocks/s), after its first, shallower ones. */
export async function replayBlocks(owners: string[], n: number): Promise<EventBatch[]> {
  const tmp = mkdtempSync(join(tmpdir(), 'replay-blocks-'));
  const { store, close } = await openBenchStore('sqlite', tmp, 'blocks');
  const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
  await log.open();
  const source = createReplaySource({ pace: 'unthrottled', transactionsPerSecond: 10_000, blocksPerSecond: 4, accountIds: owners, seed: 11, maxBlocks: n + 10 });
  const follower = new Follower({ source, store, log, logger: pino({ level: 'silent' }), startAt: 'oldest', pruneIntervalMs: 3_600_000 });
  const out: EventBatch[] = [];
  log.subscribe((b) => {
    if (b.kind === 'block') out.push(b);
  });
  await source.start();
  await follower.start();
  await follower.waitForSeqno(n + 10, 120_000);
  await follower.stop();
  await source.stop();
  await close();
  return out.slice(8, 8 + n);
}
