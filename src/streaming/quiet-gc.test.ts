// The quiet collection on this process's real V8: a young-generation collection on demand, made a
// while after a fan-out and only when the young generation would otherwise fill.
import fs from 'node:fs';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { minorCollection, QuietCollector, YOUNG_GENERATION_FLAGS, youngGeneration } from './quiet-gc.js';

/** V8's collections while `run` runs, as [kind, start ms] (kind: perf_hooks' NODE_PERFORMANCE_GC_*). */
async function collections(run: () => Promise<void>): Promise<Array<[number, number]>> {
  const seen: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => seen.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  await run();
  await new Promise((r) => setTimeout(r, 20)); // Node.js queues the entries after the collection
  seen.push(...observer.takeRecords());
  observer.disconnect();
  return seen.map((e) => [(e as unknown as { detail: { kind: number } }).detail.kind, e.startTime]);
}

/** Fills the young generation to `share` of its capacity with objects kept alive (returned). */
function fillYoung(share: number): unknown[] {
  const kept: unknown[] = [];
  while (youngGeneration().used < youngGeneration().capacity * share) {
    for (let i = 0; i < 1000; i++) kept.push({ i, s: `young ${i}` });
  }
  return kept;
}

describe('quiet young-generation collections', () => {
  let collector: QuietCollector | undefined;
  afterEach(() => collector?.stop());

  it('collects the young generation on demand (a minor collection, nothing more)', async () => {
    const collect = minorCollection();
    expect(collect).toBeTypeOf('function');
    const seen = await collections(async () => collect!());
    expect(seen.map(([kind]) => kind)).toEqual([constants.NODE_PERFORMANCE_GC_MINOR]);
    // not left on the global object for the rest of the process
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });

  it('after a fan-out, collects once its readers had their time, when the next interval would fill the young generation', async () => {
    minorCollection()!();
    let kept: unknown[] = [];
    const seen = await collections(async () => {
      collector = new QuietCollector({ delayMs: 60 });
      kept = fillYoung(0.6); // a block's worth: the next one would pass V8's own trigger (80 %)
      const asked = performance.now();
      collector.afterFanout();
      collector.afterFanout(); // a second fan-out meanwhile joins the same look
      await new Promise((r) => setTimeout(r, 40));
      expect(collector.collections).toBe(0);
      await new Promise((r) => setTimeout(r, 80));
      expect(collector.collections).toBe(1);
      expect(performance.now() - asked).toBeGreaterThanOrEqual(60);
    });
    expect(seen.filter(([kind]) => kind === constants.NODE_PERFORMANCE_GC_MINOR).length).toBeGreaterThanOrEqual(1);
    expect(kept.length).toBeGreaterThan(0);
  });

  it('leaves a young generation with room for another interval to V8', async () => {
    minorCollection()!();
    collector = new QuietCollector({ delayMs: 20 });
    collector.afterFanout();
    await new Promise((r) => setTimeout(r, 60));
    expect(collector.collections).toBe(0);
  });

  it('does nothing where V8 offers no collection on demand', async () => {
    collector = new QuietCollector({ delayMs: 1, collect: null });
    expect(collector.active).toBe(false);
    collector.afterFanout();
    await new Promise((r) => setTimeout(r, 20));
    expect(collector.collections).toBe(0);
  });

  it('npm start and npm run dev give the server the young generation it needs', () => {
    const scripts = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const script of [scripts.start!, scripts.dev!]) expect(script).toContain(`node scripts/node.mjs ${YOUNG_GENERATION_FLAGS.join(' ')} `);
  });
});
