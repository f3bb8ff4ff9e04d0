// The idle scavenge of the hub on a real server over a real event log: once a live block is written,
// a young generation holding garbage is collected in the moment after (a minor GC seen by V8's own
// performance entries), and not at all with TONWATCH_STREAM_IDLE_GC off.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { account, blockHeader, transaction } from '../../test/support/model.js';
import { dropTestStore, openTestStore } from '../../test/support/stores.js';
import { blockBatch, blockEvent, openRawStream, startStreamTestbed, txEvent, type StreamTestbed } from '../../test/support/streaming.js';
import { youngGenerationFill } from './idle-gc.js';

/** Fills the young generation to about half with garbage (nothing keeps it). */
function fillYoungGeneration(): void {
  let garbage: unknown[] = [];
  for (let round = 0; round < 10_000 && youngGenerationFill() < 0.5; round++) garbage = Array.from({ length: 1000 }, (_, i) => ({ i, s: `x${i}` }));
  expect(garbage).toBeDefined();
  expect(youngGenerationFill()).toBeGreaterThanOrEqual(0.5);
}

/** Minor collections V8 reports from now on. */
function watchMinorCollections(): { count(): number; stop(): void } {
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries() as Array<{ detail?: { kind?: number } }>) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) count++;
  });
  observer.observe({ entryTypes: ['gc'] });
  return { count: () => count, stop: () => observer.disconnect() };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

describe('idle scavenge after a live block', () => {
  let bed: StreamTestbed;
  afterEach(async () => {
    await bed?.close();
    await dropTestStore(bed.store);
  });

  for (const on of [true, false]) {
    it(`${on ? 'collects' : 'leaves'} the young generation after a block is written (TONWATCH_STREAM_IDLE_GC=${on})`, async () => {
      bed = await startStreamTestbed({ store: await openTestStore('sqlite'), config: { streamIdleGc: on } });
      const stream = await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=${account(1)}`);
      await stream.until((t) => t.includes('event: heartbeat'));
      const tx = transaction({ account: account(1), lt: 5n });
      await settle();
      fillYoungGeneration();
      const minor = watchMinorCollections();
      await bed.append(blockBatch(1, [blockEvent(blockHeader(1)), txEvent(tx)]));
      await stream.until((t) => t.includes(tx.hash));
      await settle();
      minor.stop();
      const scavenges = await bed.metrics.getSingleMetric('tonwatch_stream_idle_scavenges_total')!.get();
      expect(scavenges.values.reduce((s, v) => s + v.value, 0)).toBe(on ? 1 : 0);
      if (on) {
        expect(minor.count()).toBeGreaterThanOrEqual(1);
        expect(youngGenerationFill()).toBeLessThan(0.5);
      }
      stream.close();
    });
  }
});
