// The event log shared by processes: the fenced writer (a deposed leader cannot append) and the
// announcements that bring other members' logs up to date. Two stores on one PostgreSQL schema stand
// for two processes (separate pools and sessions); the fence also runs on SQLite.
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { blockHeader } from '../../test/support/model.js';
import { dialects, dropTestStore, openTestStore, PG_URL } from '../../test/support/stores.js';
import { openStore, type Store } from '../store/db.js';
import { startConsumer } from './consumer.js';
import { readCursor, writeCursor } from './cursors.js';
import { makePosition, type EventBatch } from './events.js';
import { currentLeader, FencedError, takeTerm } from './leadership.js';
import { followStore } from './store-follow.js';
import { StoreEventLog, WRITER_ROLE } from './store-log.js';

function blockBatch(seqno: number): EventBatch {
  const position = makePosition(seqno, 0);
  return { kind: 'block', mcSeqno: seqno, firstPosition: position, lastPosition: position, events: [{ type: 'block', block: blockHeader(seqno), position, mcSeqno: seqno }] };
}

async function storedPositions(store: Store): Promise<number[]> {
  const rows = await store.db.selectFrom('event_batches').select('first_position').orderBy('first_position').execute();
  return rows.map((r) => Number(r.first_position));
}

/** Another process's view of the same store: its own pool (and sessions) on the same PostgreSQL schema. */
async function sameSchema(store: Store): Promise<Store> {
  const schema = /\(schema ([a-z0-9_]+)\)/.exec(store.description)![1]!;
  return openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 2 });
}

const until = async (cond: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe.each(dialects)('fenced event-log writer on %s', (dialect) => {
  const opened: Store[] = [];
  afterEach(async () => {
    for (const s of opened.splice(1).reverse()) await s.close();
    await dropTestStore(opened.pop()!);
  });

  it('a deposed leader cannot append: its batch and its cursor roll back, the new leader continues', async () => {
    const store = await openTestStore(dialect);
    opened.push(store);
    const other = dialect === 'postgres' ? await sameSchema(store) : store;
    if (other !== store) opened.push(other);
    const old = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await old.open();
    const oldTerm = await takeTerm(store.db, WRITER_ROLE, 'old', 1);
    old.lead(oldTerm);
    const cursorWith = (seqno: number) => (trx: any) => writeCursor(trx, 'follower', seqno);
    await old.appendBatch(blockBatch(1), cursorWith(1));

    // another process takes over: the next term, then the cursor as the old leader committed it
    const next = new StoreEventLog(other, { retentionMs: 3_600_000 });
    await next.open();
    const newTerm = await takeTerm(other.db, WRITER_ROLE, 'new', 2);
    expect(newTerm).toBe(oldTerm + 1);
    next.lead(newTerm);
    expect(await readCursor(other.db, 'follower')).toBe(1);

    // the old leader still runs and tries the next block: refused in its transaction, nothing written
    const refused = await old.appendBatch(blockBatch(2), cursorWith(2)).then(() => null, (err) => err);
    expect(refused).toBeInstanceOf(FencedError);
    expect(refused.message).toMatch(/term 1 was taken over by another process/);
    expect(old.headPosition()).toBe(makePosition(1, 0));
    expect(await readCursor(store.db, 'follower')).toBe(1);

    await next.appendBatch(blockBatch(2), cursorWith(2));
    await next.appendBatch(blockBatch(3), cursorWith(3));
    expect(await storedPositions(store)).toEqual([1, 2, 3].map((s) => makePosition(s, 0)));
    expect(await currentLeader(store.db, WRITER_ROLE)).toEqual({ term: newTerm, holder: 'new', takenAt: 2 });

    // a leader that noticed its loss refuses before touching the store
    next.depose();
    await expect(next.appendBatch(blockBatch(4))).rejects.toBeInstanceOf(FencedError);
    expect(await storedPositions(store)).toHaveLength(3);
  });
});

describe.runIf(dialects.includes('postgres'))('event log across processes on PostgreSQL', () => {
  const opened: Store[] = [];
  afterEach(async () => {
    for (const s of opened.splice(1).reverse()) await s.close();
    await dropTestStore(opened.pop()!);
  });

  /** Two processes on one schema: the first leads (term 1) with its log open. */
  const leaderAndOther = async () => {
    const store = await openTestStore('postgres');
    const other = await sameSchema(store);
    opened.push(store, other);
    const old = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await old.open();
    old.lead(await takeTerm(store.db, WRITER_ROLE, 'old', 1));
    return { store, other, old };
  };

  it("a takeover waits for the append in flight, then reads a cursor that includes it; the term's other writes do not wait", async () => {
    const { store, other, old } = await leaderAndOther();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inTransaction!: () => void;
    const entered = new Promise<void>((r) => (inTransaction = r));
    const appending = old.appendBatch(blockBatch(7), async (trx) => {
      await writeCursor(trx, 'follower', 7);
      inTransaction();
      await held;
    });
    await entered;
    // a singleton's step of the same term commits while the append is held (the check's lock is shared)
    await store.db.transaction().execute(async (trx) => {
      await old.fence(trx);
      await writeCursor(trx, 'consumer:router', 6);
    });
    let tookOver = false;
    const takeover = takeTerm(other.db, WRITER_ROLE, 'new', 2).then((term) => {
      tookOver = true;
      return term;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(tookOver).toBe(false);
    release();
    await appending;
    expect(await takeover).toBe(2);
    expect(await readCursor(other.db, 'follower')).toBe(7);
  });

  it("a deposed leader's consumer cannot commit a step: its work and its cursor roll back, the new leader's consumer applies the batch once", async () => {
    const { store, other, old } = await leaderAndOther();
    await old.appendBatch(blockBatch(1));
    // a singleton's step: its work (a row per batch) and its cursor in one transaction
    const applied = (trx: any, batch: EventBatch) => writeCursor(trx, `applied:${batch.mcSeqno}`, batch.lastPosition);
    const errors: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void errors.push(line) });
    const paused = await startConsumer({ name: 'router', log: old, store, logger, startAt: 'oldest', handle: (batch, trx) => applied(trx, batch) });
    try {
      await until(() => paused.position === makePosition(1, 0), 'the first batch applied');

      // another process takes the next term while the old leader is paused (it has not noticed)
      const next = new StoreEventLog(other, { retentionMs: 3_600_000 });
      await next.open();
      next.lead(await takeTerm(other.db, WRITER_ROLE, 'new', 2));
      await next.appendBatch(blockBatch(2));
      // the old leader wakes up and reads the new batch: its consumer's step is refused in its transaction
      await old.catchUp();
      await until(() => errors.length > 0 || paused.position > makePosition(1, 0), "the old leader's step");
      expect(paused.position).toBe(makePosition(1, 0));
      expect(errors.join('')).toMatch(/term 1 was taken over by another process/);
      // refused on every retry, said once (a warning, not an error a second until it is stopped)
      await new Promise((r) => setTimeout(r, 2500));
      expect(paused.position).toBe(makePosition(1, 0));
      expect(errors.map((line) => JSON.parse(line) as { level: number; msg: string })).toEqual([expect.objectContaining({ level: 40, msg: expect.stringMatching(/^consumer step refused: another process leads now/) })]);
      expect(await readCursor(store.db, 'consumer:router')).toBe(makePosition(1, 0));
      expect(await readCursor(store.db, 'applied:2')).toBeNull();

      // the new leader's consumer continues from the committed cursor and applies batch 2 once
      const leading = await startConsumer({ name: 'router', log: next, store: other, handle: (batch, trx) => applied(trx, batch) });
      try {
        await until(() => leading.position === makePosition(2, 0), "the new leader's step");
        expect(await readCursor(other.db, 'applied:2')).toBe(makePosition(2, 0));
        expect(await readCursor(other.db, 'consumer:router')).toBe(makePosition(2, 0));
      } finally {
        await leading.stop();
      }
    } finally {
      await paused.stop();
    }
  });

  it("another member's log publishes every announced batch once, in order, and a slow poll covers a missed announcement", async () => {
    const store = await openTestStore('postgres');
    const other = await sameSchema(store);
    opened.push(store, other);
    const writer = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await writer.open();
    await writer.appendBatch(blockBatch(1));
    await writer.announceChannel();

    const reader = new StoreEventLog(other, { retentionMs: 3_600_000 });
    await reader.open();
    expect(reader.headPosition()).toBe(makePosition(1, 0));
    const seen: number[] = [];
    reader.subscribe((b) => seen.push(b.mcSeqno));
    const follow = await followStore(reader, other, { pollMs: 60_000 });
    try {
      for (let s = 2; s <= 30; s++) await writer.appendBatch(blockBatch(s));
      await until(() => seen.length >= 29, 'announced batches published');
      expect(seen).toEqual(Array.from({ length: 29 }, (_, i) => i + 2));
      expect(await reader.readAfter(makePosition(10, 0), 3)).toEqual([blockBatch(11), blockBatch(12), blockBatch(13)]);
    } finally {
      await follow.stop();
    }

    // a writer that does not announce (an announcement lost): the poll finds its batch
    const quiet = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await quiet.open();
    const polling = await followStore(reader, other, { pollMs: 100 });
    try {
      await quiet.appendBatch(blockBatch(31));
      await until(() => seen.length === 30, 'polled batch published');
      expect(seen.at(-1)).toBe(31);
    } finally {
      await polling.stop();
    }
  });
});
