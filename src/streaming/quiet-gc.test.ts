// The quiet collection: a young-generation collection on demand from this process's real V8, made a
// while after a fan-out and only when the young generation would otherwise fill.
import fs from 'node:fs';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { minorCollection, QuietCollector, YOUNG_GENERATION_FLAGS } from './quiet-gc.js';

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

describe('quiet young-generation collections', () => {
  let collector: QuietCollector | undefined;
  afterEach(() => collector?.stop());

  it('collects the young generation on demand (a minor collection, nothing more)', async () => {
    const collect = minorCollection();
    expect(collect).toBeTypeOf('function');
    const seen = (await collections(async () => collect!())).map(([kind]) => kind);
    expect(seen).toContain(constants.NODE_PERFORMANCE_GC_MINOR);
    expect(seen).not.toContain(constants.NODE_PERFORMANCE_GC_MAJOR);
    // not left on the global object for the rest of the process
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
  });

  // What the young generation holds is given (V8 sizes it by its own rules, and other work in this
  // process collects it at its own times); the collection made is V8's own.
  it('after a fan-out, collects once its readers had their time, when the next interval would fill the young generation', async () => {
    const capacity = 32e6;
    let used = 0.6 * capacity; // a block's worth: the next one would pass V8's own trigger (80 %)
    let made = 0;
    const seen = await collections(async () => {
      const collect = minorCollection()!;
      collector = new QuietCollector({ delayMs: 60, measure: () => ({ used, capacity }), collect: () => (collect(), (used = 0.1 * capacity)), onCollect: () => made++ });
      const asked = performance.now();
      collector.afterFanout();
      collector.afterFanout(); // a second fan-out meanwhile joins the same look
      await new Promise((r) => setTimeout(r, 30));
      expect(made).toBe(0);
      await new Promise((r) => setTimeout(r, 90));
      expect(made).toBe(1);
      expect(performance.now() - asked).toBeGreaterThanOrEqual(60);
    });
    expect(seen.filter(([kind]) => kind === constants.NODE_PERFORMANCE_GC_MINOR).length).toBeGreaterThanOrEqual(1);
  });

  it('leaves a young generation with room for another interval to V8, and collects once an interval would fill it', async () => {
    const capacity = 32e6;
    let used = 0.1 * capacity;
    const made: number[] = [];
    let told = 0;
    collector = new QuietCollector({ delayMs: 5, measure: () => ({ used, capacity }), collect: () => void made.push(used), onCollect: () => told++ });
    const look = async () => {
      collector!.afterFanout();
      await new Promise((r) => setTimeout(r, 20));
    };
    await look(); // 10 %, and ~10 % an interval: room for several more
    used = 0.2 * capacity;
    await look(); // 20 % after an interval that added 10 %
    expect(made).toEqual([]);
    used = 0.45 * capacity; // an interval added 25 %: 45 % + 1.5 × 25 % passes 80 %
    await look();
    expect(made).toEqual([0.45 * capacity]);
    expect(told).toBe(1);
  });

  it('does nothing where V8 offers no collection on demand', async () => {
    let told = 0;
    collector = new QuietCollector({ delayMs: 1, collect: null, measure: () => ({ used: 1, capacity: 1 }), onCollect: () => told++ });
    collector.afterFanout();
    await new Promise((r) => setTimeout(r, 20));
    expect(told).toBe(0);
  });

  it('npm start and npm run dev give the server the young generation it needs', () => {
    const scripts = (JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const script of [scripts.start!, scripts.dev!]) expect(script).toContain(`node scripts/node.mjs ${YOUNG_GENERATION_FLAGS.join(' ')} `);
  });
});
