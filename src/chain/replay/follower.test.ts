// The replay source feeding the real follower into the real event log, on both store dialects:
// every trace that started early enough comes out complete, with exactly its transactions.
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { dialects, dropTestStore, openTestStore } from '../../../test/support/stores.js';
import type { TraceEvent, TransactionEvent } from '../../bus/events.js';
import { StoreEventLog } from '../../bus/store-log.js';
import { Follower } from '../../pipeline/follower.js';
import type { Store } from '../../store/db.js';
import type { HashHex } from '../model.js';
import { createReplaySource, type ReplaySource } from './source.js';

const BLOCKS = 25;
const RESTART_AT = 12;
/** The deepest shape (a jetton transfer) spans 4 blocks. */
const DEEPEST = 4;

describe.each(dialects)('follower over the replay source on %s', (dialect) => {
  let store: Store;
  let source: ReplaySource;
  let follower: Follower;
  afterEach(async () => {
    await follower?.stop();
    await source?.stop();
    await dropTestStore(store);
  });

  it('appends every block and completes every trace with exactly its transactions, across a restart', async () => {
    store = await openTestStore(dialect);
    const log = new StoreEventLog(store, { retentionMs: 3_600_000, recentBatches: 4 });
    await log.open();
    source = createReplaySource({ pace: 'manual', transactionsPerSecond: 120, accounts: 60, pendingShare: 0.2 });
    await source.start();
    const logger = pino({ level: 'silent' });
    follower = new Follower({ source, store, log, logger, startAt: 'oldest' });
    await follower.start();
    while (source.produceBlock().seqno < RESTART_AT);
    await follower.waitForSeqno(RESTART_AT, 30_000);
    // a restart in the middle: traces in flight come back from the store, none lost or repeated
    await follower.stop();
    expect(follower.status().tracesInFlight).toBeGreaterThan(10);
    while (source.produceBlock().seqno < BLOCKS);
    follower = new Follower({ source, store, log, logger, startAt: 'oldest' });
    await follower.start();
    await follower.waitForSeqno(BLOCKS, 30_000);

    // read back from the store (the in-memory window holds only 4 batches)
    const batches = await log.readAfter(-1, 10_000);
    const blocks = batches.filter((b) => b.kind === 'block');
    expect(blocks.map((b) => b.mcSeqno)).toEqual(Array.from({ length: BLOCKS }, (_, i) => i + 1));
    const mempool = batches.filter((b) => b.kind === 'mempool');
    expect(mempool.length).toBeGreaterThan(5);

    const events = blocks.flatMap((b) => b.events);
    const txs = events.filter((e): e is TransactionEvent => e.type === 'transaction').map((e) => e.tx);
    const traces = events.filter((e): e is TraceEvent => e.type === 'trace').map((e) => e.trace);
    expect(txs.length).toBe(source.stats().transactions);
    const txByHash = new Map(txs.map((t) => [t.hash, t]));

    const roots = txs.filter((t) => t.inMessage?.type === 'external-in');
    const traceByRoot = new Map(traces.map((t) => [t.hash, t]));
    expect(traceByRoot.size).toBe(traces.length); // no trace emitted twice
    const settled = roots.filter((r) => r.mcSeqno <= BLOCKS - DEEPEST + 1);
    expect(settled.length).toBeGreaterThan(100);
    for (const root of settled) {
      const trace = traceByRoot.get(root.hash);
      expect(trace, `trace of root ${root.hash} in block ${root.mcSeqno}`).toBeDefined();
      // walk the messages from the root: the trace must list exactly those transactions
      const expected: HashHex[] = [];
      const byIn = new Map(txs.filter((t) => t.inMessage).map((t) => [t.inMessage!.hash, t]));
      const queue = [root];
      while (queue.length > 0) {
        const tx = queue.shift()!;
        expected.push(tx.hash);
        for (const m of tx.outMessages) queue.push(byIn.get(m.hash)!);
      }
      expect([...trace!.transactions].sort()).toEqual(expected.sort());
      expect(trace!.accounts).toEqual([...new Set(expected.map((h) => txByHash.get(h)!.account))].sort());
      expect(trace!.startMcSeqno).toBe(root.mcSeqno);
      expect(trace!.endMcSeqno).toBe(Math.max(...expected.map((h) => txByHash.get(h)!.mcSeqno)));
    }
    // traces still in flight at the end are the ones started in the last blocks
    expect(follower.status().tracesInFlight).toBe(roots.length - traces.length);
    expect(roots.filter((r) => !traceByRoot.has(r.hash)).every((r) => r.mcSeqno > BLOCKS - DEEPEST + 1)).toBe(true);
  });
});
