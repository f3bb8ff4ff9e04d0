// Provisional events across a cluster: two stores on one PostgreSQL schema stand for two processes (their
// own pools, their own LISTEN connections). The leader's tracker relays; the member's mirror shows the
// same levels, finalizes from the event log it follows after the leader is gone, and expires what nobody
// ends; a member started late picks up the traces in flight.
import { Address, beginCell, storeMessage, type Message } from '@ton/core';
import { afterEach, describe, expect, it } from 'vitest';
import v8 from 'node:v8';
import { account, blockHeader, hashOf, message, transaction } from '../../../test/support/model.js';
import { dialects, dropTestStore, openTestStore, PG_URL } from '../../../test/support/stores.js';
import { storeChangeFeed } from '../../bus/changes.js';
import { makePosition, type EventBatch } from '../../bus/events.js';
import { takeTerm } from '../../bus/leadership.js';
import { followStore, type StoreFollow } from '../../bus/store-follow.js';
import { StoreEventLog, WRITER_ROLE } from '../../bus/store-log.js';
import { decodeMessage } from '../../chain/decode/message.js';
import type { TransactionModel } from '../../chain/model.js';
import { openStore, type Store } from '../../store/db.js';
import { FinalityRelay } from './relay.js';
import { FinalityTracker } from './tracker.js';
import type { ConfirmedEvent, PendingEvent, ProvisionalEvent } from './types.js';

const wallet = account(9);

function external(seqno: number) {
  const message: Message = {
    info: { type: 'external-in', src: null, dest: Address.parseRaw(wallet), importFee: 0n },
    init: null,
    body: beginCell().storeUint(0xabcd, 32).storeUint(seqno, 32).endCell(),
  };
  return beginCell().store(storeMessage(message, { forceRef: true })).endCell();
}

const shard = (seqno: number) => ({ workchain: 0, shard: '8000000000000000', seqno, rootHash: 'a'.repeat(64), fileHash: 'f'.repeat(64) });

const until = async (cond: () => boolean, what: string, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

interface Node {
  store: Store;
  tracker: FinalityTracker;
  relay: FinalityRelay;
  log: StoreEventLog;
  follow: StoreFollow;
  seen: ProvisionalEvent[];
  term: number | null;
}

describe.runIf(dialects.includes('postgres'))('provisional events in a cluster (PostgreSQL)', () => {
  const stores: Store[] = [];
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const s of stops.splice(0).reverse()) await s();
    for (const s of stores.splice(1).reverse()) await s.close();
    if (stores.length) await dropTestStore(stores.pop()!);
  });

  async function node(store: Store, term: number | null, maxAgeMs = 60_000): Promise<Node> {
    const tracker = new FinalityTracker({ maxAgeMs });
    const seen: ProvisionalEvent[] = [];
    tracker.subscribe((e) => seen.push(e));
    const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
    await log.open();
    const changes = await storeChangeFeed(store);
    const follow = await followStore(log, store, { changes, pollMs: 200 });
    const n = { store, tracker, log, follow, seen, term } as Node;
    n.relay = new FinalityRelay({ db: store.db, tracker, changes, log, term: () => n.term, now: Date.now, sweepIntervalMs: 20 });
    await n.relay.start();
    stops.push(async () => {
      await n.relay.stop();
      await follow.stop();
    });
    return n;
  }

  async function processes(): Promise<[Store, Store]> {
    const first = await openTestStore('postgres');
    stores.push(first);
    const schema = /\(schema ([a-z0-9_]+)\)/.exec(first.description)![1]!;
    const second = await openStore({ databaseUrl: PG_URL, pgSchema: schema, pgPoolSize: 2 });
    stores.push(second);
    return [first, second];
  }

  it('reach a member in order; the leader gone, the member finalizes from the log and expires the rest', async () => {
    const [leaderStore, memberStore] = await processes();
    const leader = await node(leaderStore, await takeTerm(leaderStore.db, WRITER_ROLE, 'leader', 1));
    const member = await node(memberStore, null, 1500);

    const landing = external(1);
    const pending = leader.tracker.pending({ boc: landing.toBoc().toString('base64'), origin: 'mempool', involvedAccounts: [wallet], opcodes: [0xabcd] })!;
    const tx: TransactionModel = { ...transaction({ account: wallet, lt: 10n, inMsg: decodeMessage(landing) }), block: shard(5) };
    leader.tracker.nonFinalBlock({ id: shard(5), genUtime: 1, signed: true, transactions: [tx] });
    const lost = external(2);
    const rejected = leader.tracker.pending({ boc: lost.toBoc().toString('base64'), origin: 'mempool' })!;
    leader.tracker.invalidate(rejected.trace, 'rejected', 'seqno used');
    await until(() => member.seen.length === 4, 'four events on the member');
    expect(member.seen.map((e) => [e.trace, e.finality])).toEqual([
      [pending.trace, 'pending'],
      [pending.trace, 'confirmed'],
      [rejected.trace, 'pending'],
      [rejected.trace, 'invalidated'],
    ]);
    // a confirmed event arrives whole: its transaction with exact bigints, its block
    const confirmed = member.seen[1]!;
    expect(confirmed.finality === 'confirmed' && confirmed.transaction.lt).toBe(10n);
    expect(confirmed.finality === 'confirmed' && confirmed.block.seqno).toBe(5);
    expect(member.seen[3]).toMatchObject({ reason: 'rejected', from: 'pending', detail: 'seqno used' });
    expect(member.tracker.inFlight().map((e) => [e.trace, e.finality])).toEqual([[pending.trace, 'confirmed']]);

    // a third trace pending, then the leader stops mid-trace; a new leader's log append finalizes the first
    const hanging = leader.tracker.pending({ boc: external(3).toBoc().toString('base64'), origin: 'mempool' })!;
    await until(() => member.seen.length === 5, 'the third pending on the member');
    await leader.relay.stop();
    const log = new StoreEventLog(leaderStore, { retentionMs: 3_600_000 });
    await log.open();
    log.lead(await takeTerm(leaderStore.db, WRITER_ROLE, 'next leader', 2));
    const position = makePosition(7, 0);
    const batch: EventBatch = {
      kind: 'block',
      mcSeqno: 7,
      firstPosition: position,
      lastPosition: position + 1,
      events: [
        { type: 'block', block: blockHeader(7), position, mcSeqno: 7 },
        { type: 'transaction', tx: { ...tx, mcSeqno: 7 }, position: position + 1, mcSeqno: 7 },
      ],
    };
    await log.appendBatch(batch, async () => {});
    await until(() => member.seen.some((e) => e.trace === pending.trace && e.finality === 'finalized'), 'the first trace finalized from the log');
    // nobody ends the third: the member's own bound does
    await until(() => member.seen.some((e) => e.trace === hanging.trace && e.finality === 'invalidated'), 'the third trace expired', 5000);
    expect(member.seen.slice(4).map((e) => [e.trace, e.finality])).toEqual([
      [hanging.trace, 'pending'],
      [pending.trace, 'finalized'],
      [hanging.trace, 'invalidated'],
    ]);
    expect(member.seen.at(-1)).toMatchObject({ reason: 'expired', from: 'pending' });
    expect(member.tracker.inFlight()).toEqual([]);
  }, 30_000);

  it('a member started later gets the traces in flight from the table, and not the ended ones', async () => {
    const [leaderStore, memberStore] = await processes();
    const leader = await node(leaderStore, await takeTerm(leaderStore.db, WRITER_ROLE, 'leader', 1));
    const inFlight = leader.tracker.pending({ boc: external(1).toBoc().toString('base64'), origin: 'mempool' })!;
    const ended = leader.tracker.pending({ boc: external(2).toBoc().toString('base64'), origin: 'mempool' })!;
    leader.tracker.invalidate(ended.trace, 'rejected', 'refused');
    // the leader's writes are in the table before the member starts
    const rows = async () => Number((await leaderStore.db.selectFrom('finality_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const end = Date.now() + 5000;
    while ((await rows()) < 3 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    const member = await node(memberStore, null);
    expect(member.tracker.inFlight().map((e) => [e.trace, e.finality])).toEqual([[inFlight.trace, 'pending']]);
    expect(member.tracker.stateOf(ended.trace)).toBe('invalidated');
  }, 30_000);

  it('carries the emulated trace and a confirmed trace that grows; rows written before the lists existed still read', async () => {
    const [leaderStore, memberStore] = await processes();
    const leader = await node(leaderStore, await takeTerm(leaderStore.db, WRITER_ROLE, 'leader', 1));
    const member = await node(memberStore, null);
    const landing = external(4);
    const out = message(hashOf('hop'), 'internal', wallet, account(10));
    const root: TransactionModel = { ...transaction({ account: wallet, lt: 10n, inMsg: decodeMessage(landing), out: [out] }), block: shard(6) };
    const hop: TransactionModel = { ...transaction({ account: account(10), lt: 20n, inMsg: out }), block: shard(7) };
    leader.tracker.pending({ boc: landing.toBoc().toString('base64'), origin: 'mempool', transactions: [root, hop] });
    leader.tracker.nonFinalBlock({ id: shard(6), genUtime: 1, signed: true, transactions: [root] });
    leader.tracker.nonFinalBlock({ id: { ...shard(7), seqno: 7 }, genUtime: 1, signed: true, transactions: [hop] });
    await until(() => member.seen.length === 3, 'pending, confirmed and its growth on the member');
    const [pending, first, grown] = member.seen as [PendingEvent, ConfirmedEvent, ConfirmedEvent];
    expect(pending.transactions.map((t) => t.lt)).toEqual([10n, 20n]);
    expect([first.transactions.length, grown.transactions.length]).toEqual([1, 2]);
    expect(grown.emulated!.transactions.map((t) => t.lt)).toEqual([10n, 20n]);
    expect((member.tracker.inFlight()[0] as ConfirmedEvent).transactions).toHaveLength(2);

    // rows an older version wrote: a pending event without transactions, a confirmed one without the lists
    const older = external(5);
    const olderTx: TransactionModel = { ...transaction({ account: wallet, lt: 30n, inMsg: decodeMessage(older) }), block: shard(8) };
    const scratch = new FinalityTracker();
    const { transactions: _t, truncated: _u, ...oldPending } = scratch.pending({ boc: older.toBoc().toString('base64'), origin: 'mempool' })!;
    const { transactions: _c, truncated: _d, emulated: _e, ...oldConfirmed } = scratch.nonFinalBlock({ id: shard(8), genUtime: 1, signed: true, transactions: [olderTx] })[0]!;
    const term = leader.term!;
    for (const [i, event] of [oldPending, oldConfirmed].entries()) {
      await leaderStore.db.insertInto('finality_events').values({ id: term * 2 ** 32 + 1000 + i, at: Date.now(), payload: v8.serialize(event) }).execute();
    }
    // read as the leader announces: a member that sees another announcement reads every new row
    leader.tracker.pending({ boc: external(6).toBoc().toString('base64'), origin: 'mempool' });
    await until(() => member.seen.some((e) => e.trace === oldConfirmed.trace && e.finality === 'confirmed'), 'the old rows on the member');
    const read = member.seen.filter((e) => e.trace === oldConfirmed.trace);
    expect(read.map((e) => e.finality)).toEqual(['pending', 'confirmed']);
    expect((read[0] as PendingEvent).transactions).toEqual([]);
    expect((read[1] as ConfirmedEvent).transactions.map((t) => t.lt)).toEqual([30n]);
  }, 30_000);
});
