// The event-log conformance suite: what any implementation of EventLog + EventLogWriter must do
// for the follower and the consumers to stay correct. Each check is a plain async function over
// a fresh store, so a test file runs them as `it`s (src/bus/conformance.test.ts) and a test can
// run them against a deliberately broken log to show they catch it.
import { expect } from 'vitest';
import { readCursor, writeCursor } from '../../src/bus/cursors.js';
import { makePosition, type ChainEvent, type EventBatch, type Position } from '../../src/bus/events.js';
import type { EventLog, EventLogWriter } from '../../src/bus/types.js';
import type { Store } from '../../src/store/db.js';
import { account, blockHeader, transaction } from './model.js';

export type ConformingLog = EventLog & EventLogWriter;

/**
 * Opens the log under test over `store`. Called again on the same store, it stands for the
 * process after a restart: a new instance that knows only what the store kept.
 */
export type OpenLog = (store: Store) => Promise<ConformingLog>;

export interface ConformanceCheck {
  name: string;
  run(store: Store, open: OpenLog): Promise<void>;
}

const CURSOR = 'conformance';

/** A block batch at masterchain `seqno`: the block event and `txCount` transactions. */
export function blockBatch(seqno: number, txCount = 2): EventBatch {
  const events: ChainEvent[] = [{ type: 'block', block: blockHeader(seqno), position: makePosition(seqno, 0), mcSeqno: seqno }];
  for (let i = 0; i < txCount; i++) {
    const tx = transaction({ account: account(i + 1), lt: BigInt(seqno * 1000 + i), mcSeqno: seqno });
    events.push({ type: 'transaction', tx, position: makePosition(seqno, i + 1), mcSeqno: seqno });
  }
  return { kind: 'block', mcSeqno: seqno, firstPosition: events[0]!.position, lastPosition: events.at(-1)!.position, events };
}

/** Appends as the follower does: the batch with the follower's cursor in the same transaction. */
function appendWithCursor(log: EventLogWriter, batch: EventBatch): Promise<void> {
  return log.appendBatch(batch, (trx) => writeCursor(trx, CURSOR, batch.mcSeqno));
}

/** Every position the log holds after `after`, read to the end in pages of `page` batches. */
async function positionsAfter(log: EventLog, after: Position, page = 2): Promise<Position[]> {
  const out: Position[] = [];
  let from = after;
  for (;;) {
    const batches = await log.readAfter(from, page);
    const fresh = batches.flatMap((b) => b.events.map((e) => e.position)).filter((p) => p > from);
    if (fresh.length === 0) return out;
    out.push(...fresh);
    from = fresh.at(-1)!;
  }
}

export const eventLogChecks: ConformanceCheck[] = [
  {
    name: 'positions strictly increase: a batch at or before the head is refused and leaves nothing behind',
    async run(store, open) {
      const log = await open(store);
      await appendWithCursor(log, blockBatch(1));
      await appendWithCursor(log, blockBatch(2));
      await expect(appendWithCursor(log, blockBatch(2))).rejects.toThrow();
      await expect(appendWithCursor(log, blockBatch(1))).rejects.toThrow();
      const all = await positionsAfter(log, -1);
      expect(all).toEqual([...blockBatch(1).events, ...blockBatch(2).events].map((e) => e.position));
      expect(all.every((p, i) => i === 0 || p > all[i - 1]!)).toBe(true);
      expect(await readCursor(store.db, CURSOR)).toBe(2);
    },
  },
  {
    name: 'a batch and the writer cursor commit in one transaction: a failure after the append keeps neither',
    async run(store, open) {
      const log = await open(store);
      await appendWithCursor(log, blockBatch(1));
      const seen: Position[] = [];
      log.subscribe((b) => seen.push(b.lastPosition));
      await expect(
        log.appendBatch(blockBatch(2), async (trx) => {
          await writeCursor(trx, CURSOR, 2);
          throw new Error('the writer failed inside the transaction');
        }),
      ).rejects.toThrow('the writer failed');
      expect(seen).toEqual([]);
      expect(log.headPosition()).toBe(blockBatch(1).lastPosition);
      expect(await readCursor(store.db, CURSOR)).toBe(1);
      const restarted = await open(store);
      expect(await positionsAfter(restarted, -1)).toEqual(blockBatch(1).events.map((e) => e.position));
      // the same batch again, as a restarted follower would send it, now goes in once
      await appendWithCursor(restarted, blockBatch(2));
      expect(await readCursor(store.db, CURSOR)).toBe(2);
      expect((await positionsAfter(restarted, -1)).length).toBe(6);
    },
  },
  {
    name: 'nothing is visible to readers before the commit; everything is, in order, right after it',
    async run(store, open) {
      const log = await open(store);
      await appendWithCursor(log, blockBatch(1));
      const before = log.headPosition();
      const published: Position[] = [];
      log.subscribe((b) => published.push(b.lastPosition));
      let insideTransaction: { published: number; head: Position | null; fromMemory: number } | null = null;
      await log.appendBatch(blockBatch(2), async (trx) => {
        await writeCursor(trx, CURSOR, 2);
        // before the commit: no listener called, the head unchanged, no read returns the batch
        insideTransaction = {
          published: published.length,
          head: log.headPosition(),
          // readAfter(head) must not wait for the store here: a log serves it without a query
          fromMemory: (await log.readAfter(before!, 10)).length,
        };
      });
      expect(insideTransaction).toEqual({ published: 0, head: before, fromMemory: 0 });
      expect(published).toEqual([blockBatch(2).lastPosition]);
      expect(log.headPosition()).toBe(blockBatch(2).lastPosition);
      expect(await positionsAfter(log, before!)).toEqual(blockBatch(2).events.map((e) => e.position));
    },
  },
  {
    name: 'resumes from any position, in this process and after a restart',
    async run(store, open) {
      const log = await open(store);
      const batches = [1, 2, 3, 4].map((s) => blockBatch(s, s % 3));
      for (const b of batches) await appendWithCursor(log, b);
      const all = batches.flatMap((b) => b.events.map((e) => e.position));
      const restarted = await open(store);
      for (const from of [-1, ...all]) {
        const expected = all.filter((p) => p > from);
        expect(await positionsAfter(log, from)).toEqual(expected);
        expect(await positionsAfter(restarted, from, 1)).toEqual(expected);
      }
      expect(restarted.headPosition()).toBe(all.at(-1));
    },
  },
  {
    name: 'a crash between append and publish loses nothing and repeats nothing',
    async run(store, open) {
      const log = await open(store);
      await appendWithCursor(log, blockBatch(1));
      // killed inside the transaction (before commit): the restarted writer sees block 1 only
      await expect(
        log.appendBatch(blockBatch(2), async () => {
          throw new Error('killed before commit');
        }),
      ).rejects.toThrow();
      let restarted = await open(store);
      expect(restarted.headPosition()).toBe(blockBatch(1).lastPosition);
      // killed after the commit, before any listener ran: the restarted log has the batch once,
      // and the writer resuming from its cursor cannot append it a second time
      await appendWithCursor(restarted, blockBatch(2));
      restarted = await open(store);
      expect(await readCursor(store.db, CURSOR)).toBe(2);
      await expect(appendWithCursor(restarted, blockBatch(2))).rejects.toThrow();
      await appendWithCursor(restarted, blockBatch(3));
      const positions = await positionsAfter(restarted, -1);
      expect(positions).toEqual([1, 2, 3].flatMap((s) => blockBatch(s).events.map((e) => e.position)));
      expect(new Set(positions).size).toBe(positions.length);
    },
  },
];
