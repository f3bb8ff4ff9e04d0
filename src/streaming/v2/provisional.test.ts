// The provisional trace's shape (pure logic over chain-model values; the devnet e2e test is
// test/e2e/streaming-v2-provisional.test.ts): a confirmed trace completed with the emulation's remainder
// only where the real transactions follow the emulation, and actions only over a whole trace.
import { describe, expect, it } from 'vitest';
import { account, hashOf, message, transaction } from '../../../test/support/model.js';
import type { MessageModel, TransactionModel } from '../../chain/model.js';
import type { ConfirmedEvent, PendingEvent } from '../../pipeline/finality/types.js';
import { complete, isWhole, provisionalActions, provisionalContent, provisionalTrace } from './provisional.js';

const [wallet, jetton, peer, other] = [account(1), account(2), account(3), account(4)];
const msg = (label: string, from: string | null, to: string, opcode: number | null = null): MessageModel => ({ ...message(hashOf(label), from === null ? 'external-in' : 'internal', from, to), opcode });
const tx = (label: string, lt: bigint, inMsg: MessageModel, out: MessageModel[] = []): TransactionModel => transaction({ account: inMsg.destination!, lt, hash: hashOf(`tx:${label}`), inMsg, out });

/** wallet (external) → jetton → peer; `prefix` labels the run (emulated and real hashes differ). */
function run(prefix: string, lt: bigint) {
  const ext = msg('external', null, wallet);
  const toJetton = msg(`${prefix}:to-jetton`, wallet, jetton, 0x0f8a7ea5);
  const toPeer = msg(`${prefix}:to-peer`, jetton, peer, 0x7362d09c);
  return {
    root: tx(`${prefix}:root`, lt, ext, [toJetton]),
    middle: tx(`${prefix}:middle`, lt + 10n, toJetton, [toPeer]),
    leaf: tx(`${prefix}:leaf`, lt + 20n, toPeer),
  };
}

const confirmed = (transactions: TransactionModel[], emulated: TransactionModel[] | null, truncated = false): ConfirmedEvent =>
  ({ finality: 'confirmed', trace: hashOf('norm'), messageHash: hashOf('external'), account: wallet, at: 0, block: { workchain: 0, shard: '8000000000000000', seqno: 1, rootHash: '', fileHash: '' }, signed: true, transaction: transactions[0]!, transactions, truncated: false, emulated: emulated && { transactions: emulated, truncated } }) as ConfirmedEvent;

describe('provisional traces', () => {
  it('completes a confirmed trace with the emulated rest, which consumes the real message in flight', () => {
    const e = run('emulated', 100n);
    const r = run('real', 500n);
    const rest = complete([r.root], [e.root, e.middle, e.leaf])!;
    expect(rest.map((t) => t.hash)).toEqual([e.middle.hash, e.leaf.hash]);
    expect(rest[0]!.inMessage).toBe(r.root.outMessages[0]);
    expect(rest[1]!.inMessage).toBe(e.leaf.inMessage);
    expect(isWhole([r.root, ...rest])).toBe(true);
    // with the middle hop real too, only the leaf is emulated
    expect(complete([r.root, r.middle], [e.root, e.middle, e.leaf])!.map((t) => t.hash)).toEqual([e.leaf.hash]);
    // a whole real trace needs nothing
    expect(complete([r.root, r.middle, r.leaf], [e.root, e.middle, e.leaf])).toEqual([]);
  });

  it('says nothing when the real trace departs from the emulation', () => {
    const e = run('emulated', 100n);
    const r = run('real', 500n);
    // the real root sent its message elsewhere, or another opcode
    const elsewhere = { ...r.root, outMessages: [msg('real:elsewhere', wallet, other, 0x0f8a7ea5)] };
    expect(complete([elsewhere], [e.root, e.middle, e.leaf])).toBeNull();
    const otherOp = { ...r.root, outMessages: [msg('real:other-op', wallet, jetton, 1)] };
    expect(complete([otherOp], [e.root, e.middle, e.leaf])).toBeNull();
    // the middle hop sent another message than emulated (a bounce, say)
    const bounced = { ...r.middle, outMessages: [msg('real:extra', jetton, other)] };
    expect(complete([r.root, bounced, tx('real:x', 900n, bounced.outMessages[0]!)], [e.root, e.middle, e.leaf])).toBeNull();
    // a real transaction of the trace the walk from the root does not reach
    expect(complete([r.root, r.middle, tx('real:stray', 900n, msg('stray', other, peer))], [e.root, e.middle, e.leaf])).toBeNull();
    // another account's root
    expect(complete([r.middle], [e.root, e.middle, e.leaf])).toBeNull();
  });

  it('classifies actions only over a whole trace: a cut emulation, a part, or a departed trace yields none', async () => {
    const e = run('emulated', 100n);
    const r = run('real', 500n);
    const whole = confirmed([r.root], [e.root, e.middle, e.leaf]);
    expect(provisionalTrace(whole)).toMatchObject({ whole: true });
    expect(await provisionalActions(whole, null)).not.toBeNull();
    const content = provisionalContent(whole);
    expect(Object.values(content.transactionMap).map((t) => [t.emulated, t.finality])).toContainEqual([false, 'confirmed']);
    expect(Object.values(content.transactionMap).filter((t) => t.emulated)).toHaveLength(2);
    for (const part of [confirmed([r.root], [e.root, e.middle, e.leaf], true), confirmed([r.root], null), confirmed([r.root], [e.root, e.middle])]) {
      expect(provisionalTrace(part).whole).toBe(false);
      expect(await provisionalActions(part, null)).toBeNull();
    }
    const pendingPart = { finality: 'pending', trace: hashOf('norm'), transactions: [e.root, e.middle], truncated: false } as unknown as PendingEvent;
    expect(await provisionalActions(pendingPart, null)).toBeNull();
    const pendingWhole = { ...pendingPart, transactions: [e.root, e.middle, e.leaf] } as PendingEvent;
    expect(provisionalContent(pendingWhole).json.size).toBe(3);
    expect([...provisionalContent(pendingWhole).v3.values()].every((t) => t.emulated && t.finality === 'pending')).toBe(true);
    expect(await provisionalActions(pendingWhole, null)).not.toBeNull();
  });
});
