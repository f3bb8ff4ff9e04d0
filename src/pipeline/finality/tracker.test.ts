// The tracker on real message cells (built with @ton/core, read back by the chain decoders): one trace
// key across serialisations, monotonic levels, each emitted once, invalidation reasons, the bound.
import { Address, beginCell, Cell, storeMessage, type Message } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { decodeMessage } from '../../chain/decode/message.js';
import { normalizedExternalHash, normalizedHashOfMessage, normalizedHashOfModel } from '../../chain/message-boc.js';
import type { BlockHeader, FinalizedBlock, TransactionModel } from '../../chain/model.js';
import type { NonFinalBlock } from '../../chain/source.js';
import { account, hashOf, message, transaction } from '../../../test/support/model.js';
import { FinalityMetrics } from './metrics.js';
import { FinalityTracker } from './tracker.js';
import { currentEvent, MAX_PROVISIONAL_TRANSACTIONS, type ConfirmedEvent, type PendingEvent, type ProvisionalEvent } from './types.js';

const wallet = account(7);
const body = (seqno: number) => beginCell().storeUint(0x12345678, 32).storeUint(seqno, 32).storeRef(beginCell().storeUint(seqno, 8)).endCell();

function externalCell(seqno: number, opts: { inlineBody?: boolean; init?: boolean } = {}): Cell {
  const message: Message = {
    info: { type: 'external-in', src: null, dest: Address.parseRaw(wallet), importFee: 0n },
    init: opts.init ? { code: beginCell().storeUint(1, 8).endCell(), data: beginCell().endCell() } : null,
    body: body(seqno),
  };
  return beginCell().store(storeMessage(message, { forceRef: !opts.inlineBody })).endCell();
}

function txOf(cell: Cell, lt: bigint, block: { workchain: number; shard: string; seqno: number }): TransactionModel {
  return { ...transaction({ account: wallet, lt, inMsg: decodeMessage(cell) }), block };
}

const shardId = (seqno: number, root: string) => ({ workchain: 0, shard: '8000000000000000', seqno, rootHash: root.repeat(64), fileHash: 'f'.repeat(64) });
const header = (id: ReturnType<typeof shardId>, mcSeqno: number): BlockHeader => ({ ...id, genUtime: 1, startLt: 0n, endLt: 1n, mcSeqno });
const nonFinal = (seqno: number, root: string, txs: TransactionModel[]): NonFinalBlock => ({ id: shardId(seqno, root), genUtime: 1, signed: true, transactions: txs });
const finalized = (mcSeqno: number, shards: BlockHeader[], txs: TransactionModel[]): FinalizedBlock => ({
  masterchain: header({ ...shardId(mcSeqno, 'c'), workchain: -1 }, mcSeqno),
  shards,
  transactions: txs.map((tx) => ({ ...tx, boc: '' })),
});

function tracked(maxAgeMs = 60_000) {
  let now = 1_000;
  const registry = new Registry();
  const tracker = new FinalityTracker({ maxAgeMs, now: () => now, metrics: new FinalityMetrics(registry) });
  const seen: ProvisionalEvent[] = [];
  tracker.subscribe((e) => seen.push(e));
  return { tracker, seen, registry, advance: (ms: number) => (now += ms) };
}

describe('normalised external message hash (TEP-467)', () => {
  it('is one value for every serialisation of one message: body inline or in a ref, with or without init, any src', () => {
    const refd = externalCell(1);
    const inline = externalCell(1, { inlineBody: true });
    const withInit = externalCell(1, { init: true });
    const withSrc = beginCell()
      .storeUint(0b10, 2)
      .storeUint(0b01, 2) // addr_extern$01
      .storeUint(8, 9)
      .storeUint(0xab, 8)
      .storeAddress(Address.parseRaw(wallet))
      .storeCoins(5n)
      .storeBit(false)
      .storeBit(true)
      .storeRef(body(1))
      .endCell();
    expect(new Set([refd, inline, withInit, withSrc].map((c) => c.hash().toString('hex'))).size).toBe(4);
    const norms = [refd, inline, withInit, withSrc].map((c) => normalizedHashOfMessage(c));
    expect(new Set(norms).size).toBe(1);
    // the same from the decoded model (destination and body BoC), and equal to the definition
    expect(normalizedHashOfModel(decodeMessage(inline))).toBe(norms[0]);
    expect(norms[0]).toBe(normalizedExternalHash(wallet, body(1)));
    // and differs when the body does
    expect(normalizedHashOfMessage(externalCell(2))).not.toBe(norms[0]);
  });

  it('is null for messages that are not external-in', () => {
    const internal = beginCell()
      .store(storeMessage({ info: { type: 'internal', ihrDisabled: true, bounce: false, bounced: false, src: Address.parseRaw(account(1)), dest: Address.parseRaw(wallet), value: { coins: 1n }, ihrFee: 0n, forwardFee: 0n, createdLt: 0n, createdAt: 0 }, body: body(1) }))
      .endCell();
    expect(normalizedHashOfMessage(internal)).toBeNull();
  });
});

describe('FinalityTracker', () => {
  it('moves a trace pending → confirmed → finalized, each once, whatever is reported twice', () => {
    const { tracker, seen } = tracked();
    const cell = externalCell(1);
    const tx = txOf(externalCell(1, { inlineBody: true }), 10n, shardId(5, 'a'));
    expect(tracker.pending({ boc: cell.toBoc().toString('base64'), origin: 'mempool' })).not.toBeNull();
    expect(tracker.pending({ boc: cell.toBoc().toString('base64'), origin: 'overlay' })).toBeNull();
    tracker.nonFinalBlock(nonFinal(5, 'a', [tx]));
    tracker.nonFinalBlock(nonFinal(5, 'a', [tx]));
    expect(tracker.inFlight().map((e) => e.finality)).toEqual(['confirmed']);
    tracker.finalizedBlock(finalized(3, [header(shardId(5, 'a'), 3)], [tx]));
    tracker.finalizedBlock(finalized(3, [header(shardId(5, 'a'), 3)], [tx]));
    // a late pending report cannot move it back
    tracker.pending({ boc: cell.toBoc().toString('base64'), origin: 'overlay' });
    expect(seen.map((e) => e.finality)).toEqual(['pending', 'confirmed', 'finalized']);
    expect(new Set(seen.map((e) => e.trace))).toEqual(new Set([normalizedHashOfMessage(cell)]));
    expect(tracker.inFlight()).toEqual([]);
  });

  it('skips levels it never saw and never goes down', () => {
    const { tracker, seen } = tracked();
    const tx = txOf(externalCell(3), 10n, shardId(6, 'a'));
    tracker.finalizedBlock(finalized(4, [], [tx]));
    tracker.nonFinalBlock(nonFinal(6, 'a', [tx]));
    expect(seen.map((e) => e.finality)).toEqual(['finalized']);
  });

  it('invalidates a pending trace its source dropped, with the reason, and nothing after', () => {
    const { tracker, seen, registry } = tracked();
    const cell = externalCell(4);
    tracker.pending({ boc: cell.toBoc().toString('base64'), origin: 'mempool' });
    tracker.dropped({ hash: cell.hash().toString('hex'), boc: cell.toBoc().toString('base64'), reason: 'exit code 33' });
    tracker.finalizedBlock(finalized(5, [], [txOf(cell, 1n, shardId(7, 'a'))]));
    expect(seen.map((e) => e.finality)).toEqual(['pending', 'invalidated']);
    expect(seen[1]).toMatchObject({ reason: 'rejected', detail: 'exit code 33', from: 'pending' });
    return registry.getSingleMetricAsString('tonwatch_finality_invalidations_total').then((text) => expect(text).toMatch(/reason="rejected"} 1/));
  });

  it('invalidates a confirmed trace whose block lost its place to another block (candidate_lost)', () => {
    const { tracker, seen } = tracked();
    const tx = txOf(externalCell(5), 10n, shardId(8, 'a'));
    tracker.nonFinalBlock(nonFinal(8, 'a', [tx]));
    // the masterchain commits shard seqno 8 with another root hash, without the transaction
    tracker.finalizedBlock(finalized(6, [header(shardId(8, 'b'), 6)], []));
    expect(seen.map((e) => [e.finality, (e as { reason?: string }).reason])).toEqual([
      ['confirmed', undefined],
      ['invalidated', 'candidate_lost'],
    ]);
  });

  it('bounds a provisional trace: past maxAge it is invalidated as expired, then forgotten a bound later', () => {
    const { tracker, seen, advance } = tracked(5_000);
    const cell = externalCell(6);
    tracker.pending({ boc: cell.toBoc().toString('base64'), origin: 'mempool' });
    advance(4_999);
    tracker.sweep();
    expect(seen).toHaveLength(1);
    advance(1);
    tracker.sweep();
    expect(seen[1]).toMatchObject({ finality: 'invalidated', reason: 'expired', from: 'pending' });
    expect(tracker.stateOf(seen[0]!.trace)).toBe('invalidated');
    advance(5_000);
    tracker.sweep();
    expect(tracker.stateOf(seen[0]!.trace)).toBeNull();
  });

  it('keeps observers apart: one that throws does not stop the others', () => {
    const errors: unknown[] = [];
    const tracker = new FinalityTracker({ onObserverError: (e) => errors.push(e) });
    const seen: string[] = [];
    tracker.subscribe(() => {
      throw new Error('boom');
    });
    tracker.subscribe((e) => seen.push(e.finality));
    tracker.pending({ boc: externalCell(7).toBoc().toString('base64'), origin: 'mempool' });
    expect(seen).toEqual(['pending']);
    expect(errors).toHaveLength(1);
  });

  it('hands every trace in flight to a resuming client at its current level, with what re-sending needs, and counts them', async () => {
    const { tracker, registry } = tracked();
    const pendingCell = externalCell(8);
    tracker.pending({ boc: pendingCell.toBoc().toString('base64'), origin: 'mempool', involvedAccounts: [wallet], opcodes: [0x12345678] });
    const confirmedTx = txOf(externalCell(9), 20n, shardId(9, 'a'));
    tracker.pending({ boc: externalCell(9).toBoc().toString('base64'), origin: 'mempool' });
    tracker.nonFinalBlock(nonFinal(9, 'a', [confirmedTx]));
    const endedTx = txOf(externalCell(10), 30n, shardId(10, 'a'));
    tracker.nonFinalBlock(nonFinal(10, 'a', [endedTx]));
    tracker.finalizedBlock(finalized(7, [header(shardId(10, 'a'), 7)], [endedTx]));

    const resent = tracker.inFlight();
    expect(resent.map((e) => [e.trace, e.finality])).toEqual([
      [normalizedHashOfMessage(pendingCell), 'pending'],
      [normalizedHashOfModel(confirmedTx.inMessage!), 'confirmed'],
    ]);
    expect(resent[0]).toMatchObject({ involvedAccounts: [wallet], opcodes: [0x12345678], account: wallet });
    expect(resent[1]).toMatchObject({ block: { seqno: 9 }, transaction: { lt: 20n }, account: wallet });
    // a health check looks without counting; each resume counts what it is handed
    expect(tracker.inFlight({ count: false })).toHaveLength(2);
    tracker.inFlight();
    expect(await registry.getSingleMetricAsString('tonwatch_finality_traces_resent_total')).toMatch(/^tonwatch_finality_traces_resent_total 4$/m);
  });
});

describe('FinalityTracker: what provisional events carry', () => {
  const other = account(8);
  const internal = (label: string, to = other) => message(hashOf(label), 'internal', wallet, to);
  /** A transaction of the trace past its first: consumes `inMsg`, sends `out`. */
  const hop = (lt: bigint, inMsg: ReturnType<typeof internal>, out: ReturnType<typeof internal>[] = [], seqno = 1) => ({
    ...transaction({ account: inMsg.destination!, lt, inMsg, out }),
    block: shardId(seqno, 'a'),
  });

  it('pending: the emulated transactions in execution order, cut at the bound with `truncated`', () => {
    const { tracker } = tracked();
    const cell = externalCell(20);
    const emulated = [txOf(cell, 1n, shardId(1, 'a')), ...Array.from({ length: MAX_PROVISIONAL_TRANSACTIONS + 4 }, (_, i) => hop(BigInt(i + 2), internal(`e${i}`)))];
    const event = tracker.pending({ boc: cell.toBoc().toString('base64'), origin: 'mempool', transactions: emulated })!;
    expect(event.transactions).toHaveLength(MAX_PROVISIONAL_TRANSACTIONS);
    expect(event.transactions.map((t) => t.lt)).toEqual(emulated.slice(0, MAX_PROVISIONAL_TRANSACTIONS).map((t) => t.lt));
    expect(event.truncated).toBe(true);
    // the source's own cut is kept; no emulation is an empty list
    const short = tracker.pending({ boc: externalCell(21).toBoc().toString('base64'), origin: 'overlay', transactions: emulated.slice(0, 2), truncated: true })!;
    expect([short.transactions.length, short.truncated]).toEqual([2, true]);
    const none = tracker.pending({ boc: externalCell(22).toBoc().toString('base64'), origin: 'mempool' })!;
    expect([none.transactions, none.truncated]).toEqual([[], false]);
  });

  it('confirmed: collects the trace across non-final blocks (the transactions its messages reach), re-emitted at the same level, with the emulation', async () => {
    const { tracker, seen, registry } = tracked();
    const cell = externalCell(23);
    const emulation = [txOf(cell, 1n, shardId(1, 'a'))];
    tracker.pending({ boc: cell.toBoc().toString('base64'), origin: 'mempool', transactions: emulation });
    const m1 = internal('m1');
    const m2 = internal('m2', account(9));
    const root = { ...txOf(externalCell(23, { inlineBody: true }), 10n, shardId(11, 'a')), outMessages: [m1] };
    const stranger = hop(11n, internal('not of this trace'));
    tracker.nonFinalBlock(nonFinal(11, 'a', [root, stranger]));
    const child = hop(20n, m1, [m2], 12);
    tracker.nonFinalBlock(nonFinal(12, 'a', [child, hop(21n, internal('other'), [], 12)]));
    const grandchild = hop(30n, m2, [], 13);
    tracker.nonFinalBlock(nonFinal(13, 'a', [grandchild]));
    const confirmed = seen.filter((e): e is ConfirmedEvent => e.finality === 'confirmed');
    expect(confirmed.map((e) => e.transactions.map((t) => t.lt))).toEqual([[10n], [10n, 20n], [10n, 20n, 30n]]);
    expect(confirmed.every((e) => e.transaction === root && e.block.seqno === 11 && e.emulated?.transactions[0] === emulation[0])).toBe(true);
    // a resuming client gets the newest; the level moved once (the growth is no transition)
    expect((tracker.inFlight()[0] as ConfirmedEvent).transactions).toHaveLength(3);
    expect(await registry.getSingleMetricAsString('tonwatch_finality_events_total')).toMatch(/level="confirmed"} 1$/m);
    // finalized: nothing is collected any more
    tracker.finalizedBlock(finalized(9, [header(shardId(11, 'a'), 9)], [root]));
    tracker.nonFinalBlock(nonFinal(14, 'a', [hop(40n, internal('late'), [])]));
    expect(seen.map((e) => e.finality)).toEqual(['pending', 'confirmed', 'confirmed', 'confirmed', 'finalized']);
  });

  it('confirmed: the transactions one trace collects are bounded; past the bound it says `truncated` once', () => {
    const { tracker, seen } = tracked();
    const fan = Array.from({ length: MAX_PROVISIONAL_TRANSACTIONS + 10 }, (_, i) => internal(`fan${i}`));
    const root = { ...txOf(externalCell(24), 10n, shardId(15, 'a')), outMessages: fan };
    tracker.nonFinalBlock(nonFinal(15, 'a', [root]));
    tracker.nonFinalBlock(nonFinal(16, 'a', fan.slice(0, MAX_PROVISIONAL_TRANSACTIONS + 5).map((m, i) => hop(BigInt(100 + i), m, [], 16))));
    tracker.nonFinalBlock(nonFinal(17, 'a', fan.slice(MAX_PROVISIONAL_TRANSACTIONS + 5).map((m, i) => hop(BigInt(1000 + i), m, [], 17))));
    const confirmed = seen as ConfirmedEvent[];
    expect(confirmed.map((e) => [e.transactions.length, e.truncated])).toEqual([
      [1, false],
      [MAX_PROVISIONAL_TRANSACTIONS, true],
    ]);
  });

  it('a member mirrors a grown confirmed trace, never a shorter or equal one; rows of an older version read as they meant', () => {
    const leader = tracked();
    const member = tracked();
    const m1 = internal('mm1');
    const root = { ...txOf(externalCell(25), 10n, shardId(18, 'a')), outMessages: [m1] };
    leader.tracker.nonFinalBlock(nonFinal(18, 'a', [root]));
    leader.tracker.nonFinalBlock(nonFinal(19, 'a', [hop(20n, m1, [], 19)]));
    const [first, grown] = leader.seen as ConfirmedEvent[];
    expect(member.tracker.mirror(first!)).toBe(true);
    expect(member.tracker.mirror(grown!)).toBe(true);
    expect(member.tracker.mirror(first!)).toBe(false);
    expect(member.tracker.mirror(grown!)).toBe(false);
    expect(member.seen.map((e) => (e as ConfirmedEvent).transactions.length)).toEqual([1, 2]);
    // a row written before the lists existed: a pending event without transactions, a confirmed one with its first
    const { transactions: _t, truncated: _u, ...oldPending } = leader.tracker.pending({ boc: externalCell(26).toBoc().toString('base64'), origin: 'mempool' })!;
    expect(currentEvent(oldPending as unknown as PendingEvent)).toMatchObject({ transactions: [], truncated: false });
    const { transactions: _c, truncated: _d, emulated: _e, ...oldConfirmed } = first!;
    expect(currentEvent(oldConfirmed as unknown as ConfirmedEvent)).toMatchObject({ transactions: [root], truncated: false, emulated: null });
  });
});
