import { afterEach, describe, expect, it } from 'vitest';
import { blockHeader, transaction, account } from '../../test/support/model.js';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import type { Store } from '../store/db.js';
import { startConsumer } from './consumer.js';
import { makePosition, type ChainEvent, type EventBatch } from './events.js';
import { StoreEventLog } from './store-log.js';
import { tail } from './tail.js';

function blockBatch(seqno: number, txCount: number): EventBatch {
  const events: ChainEvent[] = [{ type: 'block', block: blockHeader(seqno), position: makePosition(seqno, 0), mcSeqno: seqno }];
  for (let i = 0; i < txCount; i++) {
    const tx = transaction({ account: account(i + 1), lt: BigInt(seqno * 1000 + i), mcSeqno: seqno });
    events.push({ type: 'transaction', tx, position: makePosition(seqno, i + 1), mcSeqno: seqno });
  }
  return { kind: 'block', mcSeqno: seqno, firstPosition: events[0]!.position, lastPosition: events.at(-1)!.position, events };
}

async function append(store: Store, log: StoreEventLog, batch: EventBatch) {
  await store.db.transaction().execute((trx) => log.append(trx, batch));
  log.published(batch);
}

const until = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe.each(dialects)('event log on %s', (dialect) => {
  let store: Store;
  afterEach(async () => dropTestStore(store));

  it('reads back exactly what was appended, from memory and from the store', async () => {
    store = await openTestStore(dialect);
    const log = new StoreEventLog(store, { retentionMs: 3_600_000, recentBatches: 2 });
    await log.open();
    for (let s = 1; s <= 5; s++) await append(store, log, blockBatch(s, 3));
    // The first batches left memory (window of 2): this read goes to the store, bigint intact.
    const fromStore = await log.readAfter(makePosition(1, 2), 10);
    expect(fromStore.map((b) => b.mcSeqno)).toEqual([1, 2, 3, 4, 5]);
    const tx = fromStore[1]!.events[1]!;
    expect(tx.type === 'transaction' && tx.tx.lt).toBe(2000n);
    const fresh = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await fresh.open();
    expect(fresh.headPosition()).toBe(makePosition(5, 3));
    expect(await fresh.readAfter(makePosition(4, 3), 10)).toHaveLength(1);
  });

  it('tail replays from a position inside a batch, then follows live, with no duplicates', async () => {
    store = await openTestStore(dialect);
    const log = new StoreEventLog(store, { retentionMs: 3_600_000, recentBatches: 1 });
    await log.open();
    await append(store, log, blockBatch(1, 2));
    await append(store, log, blockBatch(2, 2));
    const seen: number[] = [];
    const t = tail(log, makePosition(1, 1), (b) => void seen.push(...b.events.map((e) => e.position)));
    await until(() => seen.length === 4);
    await append(store, log, blockBatch(3, 1));
    await until(() => seen.length === 6);
    await t.stop();
    expect(seen).toEqual([makePosition(1, 2), makePosition(2, 0), makePosition(2, 1), makePosition(2, 2), makePosition(3, 0), makePosition(3, 1)]);
  });

  it('a durable consumer retries a failing batch and commits each batch exactly once', async () => {
    store = await openTestStore(dialect);
    await store.db.schema.createTable('seen').addColumn('position', 'bigint', (c) => c.primaryKey()).execute();
    const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await log.open();
    await append(store, log, blockBatch(1, 1));
    let failures = 1;
    const handle = async (batch: EventBatch, trx: any) => {
      for (const e of batch.events) await trx.insertInto('seen').values({ position: BigInt(e.position) }).execute();
      if (batch.mcSeqno === 2 && failures-- > 0) throw new Error('receiver down');
    };
    const consumer = await startConsumer({ name: 'test', log, store, startAt: 'oldest', handle });
    await append(store, log, blockBatch(2, 1));
    await until(() => consumer.position === makePosition(2, 1), 10_000);
    await consumer.stop();
    // A restarted consumer continues after its cursor: nothing is handled twice.
    await append(store, log, blockBatch(3, 1));
    const again = await startConsumer({ name: 'test', log, store, handle });
    await until(() => again.position === makePosition(3, 1));
    await again.stop();
    const rows = await store.db.selectFrom('seen').select('position').orderBy('position').execute();
    expect(rows.map((r: any) => Number(r.position))).toEqual([1, 2, 3].flatMap((s) => [makePosition(s, 0), makePosition(s, 1)]));
  });

  it('prunes past retention and reports a gap to a reader that asks for pruned history', async () => {
    store = await openTestStore(dialect);
    let now = 1_000_000;
    const log = new StoreEventLog(store, { retentionMs: 1000, now: () => now });
    await log.open();
    await append(store, log, blockBatch(1, 1));
    now += 5000;
    await append(store, log, blockBatch(2, 1));
    expect(await log.prune()).toBe(1);
    expect(await log.oldestPosition()).toBe(makePosition(2, 0));
    const gaps: number[] = [];
    const seen: number[] = [];
    const t = tail(log, makePosition(1, 0), (b) => void seen.push(...b.events.map((e) => e.position)), {
      onGap: (g) => void gaps.push(g.firstAvailable),
    });
    await until(() => seen.length === 2);
    await t.stop();
    expect(gaps).toEqual([makePosition(2, 0)]);
    expect(seen).toEqual([makePosition(2, 0), makePosition(2, 1)]);
  });
});
