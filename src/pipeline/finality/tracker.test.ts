// The tracker on real message cells (built with @ton/core, read back by the chain decoders): one trace
// key across serialisations, monotonic levels, each emitted once, invalidation reasons, the bound.
import { Address, beginCell, Cell, storeMessage, type Message } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { decodeMessage } from '../../chain/decode/message.js';
import { normalizedExternalHash, normalizedHashOfMessage, normalizedHashOfModel } from '../../chain/message-boc.js';
import type { BlockHeader, FinalizedBlock, TransactionModel } from '../../chain/model.js';
import type { NonFinalBlock } from '../../chain/source.js';
import { account, transaction } from '../../../test/support/model.js';
import { FinalityMetrics } from './metrics.js';
import { FinalityTracker } from './tracker.js';
import type { ProvisionalEvent } from './types.js';

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
