import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { account, hashOf, message, transaction } from '../../test/support/model.js';
import { TraceTracker } from './traces.js';

// A wallet trace: external → wallet A, A sends to B, B replies to A (three hops, three blocks).
function walletTrace() {
  const a = account(1);
  const b = account(2);
  // a jetton transfer out of the wallet and the excess coming back
  const ab = { ...message(hashOf('a->b'), 'internal', a, b), opcode: 0x0f8a7ea5 };
  const ba = { ...message(hashOf('b->a'), 'internal', b, a), opcode: 0xd53276db };
  const t1 = transaction({ account: a, lt: 10n, inMsg: message(hashOf('ext'), 'external-in', null, a), out: [ab] });
  const t2 = transaction({ account: b, lt: 20n, inMsg: ab, out: [ba] });
  const t3 = transaction({ account: a, lt: 30n, inMsg: ba });
  return { a, b, t1, t2, t3 };
}

describe('TraceTracker', () => {
  it('completes a trace that spans three blocks only when its last message is consumed', () => {
    const { a, b, t1, t2, t3 } = walletTrace();
    const tracker = new TraceTracker();
    expect(tracker.applyBlock(1, [t1]).completed).toEqual([]);
    expect(tracker.applyBlock(2, [t2]).completed).toEqual([]);
    const done = tracker.applyBlock(3, [t3]);
    expect(done.completed).toEqual([
      {
        hash: t1.hash,
        accounts: [a, b].sort(),
        transactions: [t1.hash, t2.hash, t3.hash],
        startMcSeqno: 1,
        endMcSeqno: 3,
        opcodes: [0x0f8a7ea5, 0xd53276db],
      },
    ]);
    expect(done.removed).toEqual([t1.hash]);
    expect(tracker.inFlight).toBe(0);
  });

  it('links transactions of one block in lt order whatever order they arrive in', () => {
    const { t1, t2, t3 } = walletTrace();
    const tracker = new TraceTracker();
    const done = tracker.applyBlock(1, [t3, t1, t2]);
    expect(done.completed).toHaveLength(1);
    expect(done.completed[0]!.transactions).toEqual([t1.hash, t2.hash, t3.hash]);
  });

  it('survives a restart from its persisted state without losing or repeating the trace', () => {
    const { t1, t2, t3 } = walletTrace();
    const first = new TraceTracker();
    const r1 = first.applyBlock(1, [t1]);
    const r2 = first.applyBlock(2, [t2]);
    // What the follower would have stored after block 2.
    const stored = r2.changed.map((t) => ({ root: t.root, startMcSeqno: t.startMcSeqno, state: TraceTracker.serialize(t) }));
    expect(r1.changed.map((t) => t.root)).toEqual([t1.hash]);
    const second = new TraceTracker();
    second.load(stored);
    const done = second.applyBlock(3, [t3]);
    expect(done.completed.map((t) => t.transactions)).toEqual([[t1.hash, t2.hash, t3.hash]]);
    // the opcode seen before the restart (block 2) is still on the completed trace
    expect(done.completed[0]!.opcodes).toEqual([0x0f8a7ea5, 0xd53276db]);
  });

  it('reads in-flight state persisted before opcodes were recorded as having none so far', () => {
    const { t1, t2, t3 } = walletTrace();
    const first = new TraceTracker();
    first.applyBlock(1, [t1]);
    const [state] = first.applyBlock(2, [t2]).changed;
    const old = v8.serialize({ accounts: [...state!.accounts], transactions: state!.transactions, pending: [...state!.pending] });
    const second = new TraceTracker();
    second.load([{ root: state!.root, startMcSeqno: 1, state: old }]);
    expect(second.applyBlock(3, [t3]).completed[0]!.opcodes).toEqual([0xd53276db]);
  });

  it('emits a trace whose messages never arrive once it is older than the limit', () => {
    const { t1 } = walletTrace();
    const tracker = new TraceTracker(5);
    tracker.applyBlock(1, [t1]);
    expect(tracker.applyBlock(6, []).completed).toEqual([]);
    expect(tracker.applyBlock(7, []).completed.map((t) => t.hash)).toEqual([t1.hash]);
  });

  it('treats a transaction whose inbound message was created before we started as a root', () => {
    const b = account(2);
    const orphan = transaction({ account: b, lt: 5n, inMsg: message(hashOf('unknown'), 'internal', account(9), b) });
    const done = new TraceTracker().applyBlock(1, [orphan]);
    expect(done.completed.map((t) => t.hash)).toEqual([orphan.hash]);
  });
});
