// The subscription index on its own: who gets which event, once, with which payload variant —
// including the operations filter on traces (opcodes of the trace's transactions) and on mempool
// (opcode of the pending message's body, read from a real message BoC).
import { Address, beginCell, external, storeMessage } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { account, hashOf, message, transaction } from '../../test/support/model.js';
import { makePosition, type ChainEvent } from '../bus/events.js';
import type { PendingMessage, TransactionModel } from '../chain/model.js';
import { PLAIN, WITH_INVOLVED, type PayloadVariant, type PreparedEvent } from './frames.js';
import { OpcodeMemory } from './opcodes.js';
import { Route, SubscriptionIndex, type Subscriber } from './subscriptions.js';

class Recorder implements Subscriber {
  stamp = 0;
  got: Array<{ position: number; variant: PayloadVariant; payload: string }> = [];
  deliver(event: PreparedEvent, variant: PayloadVariant, touched: Subscriber[]): void {
    touched.push(this);
    this.got.push({ position: event.position, variant, payload: event.payload(variant) });
  }
}

let position = 0;
const at = <E extends object>(e: E) => ({ ...e, position: makePosition(1, position++), mcSeqno: 1 }) as unknown as ChainEvent;
const withOpcode = (tx: TransactionModel, opcode: number): TransactionModel => ({
  ...tx,
  inMessage: { ...message(hashOf(`in:${tx.hash}`), 'internal', account(99), tx.account), opcode },
});

function pendingWithBody(op: number, involved: string[] | null): PendingMessage {
  const dest = Address.parseRaw(account(7));
  const cell = beginCell().store(storeMessage(external({ to: dest, body: beginCell().storeUint(op, 32).storeUint(0, 64).endCell() }))).endCell();
  return { hash: cell.hash().toString('hex'), boc: cell.toBoc().toString('base64'), destination: account(7), receivedAt: 1, involvedAccounts: involved };
}

describe('SubscriptionIndex', () => {
  it('delivers a trace once to a connection holding several of its accounts, and honours each route start', () => {
    const opcodes = new OpcodeMemory();
    const index = new SubscriptionIndex(opcodes);
    const both = new Recorder();
    const late = new Recorder();
    const route = new Route(both, null, -1);
    index.traces.add(account(1), route);
    index.traces.add(account(2), route);
    const lateRoute = new Route(late, null, makePosition(1, 1_000));
    index.traces.add(account(2), lateRoute);
    const trace = at({ type: 'trace', trace: { hash: hashOf('t'), accounts: [account(1), account(2)], transactions: [], startMcSeqno: 1, endMcSeqno: 1 } });
    index.dispatch([trace], []);
    expect(both.got.map((g) => g.position)).toEqual([trace.position]);
    expect(late.got).toEqual([]); // the event is before that route's start
    index.traces.remove(account(1), route);
    index.traces.remove(account(2), route);
    index.dispatch([at({ ...trace, type: 'trace' })], []);
    expect(both.got).toHaveLength(1);
  });

  it('matches trace operations against the inbound opcodes of the trace transactions while some route asks', () => {
    const opcodes = new OpcodeMemory();
    const index = new SubscriptionIndex(opcodes);
    const notify = new Recorder();
    const burn = new Recorder();
    index.traces.add(account(1), new Route(notify, new Set([0x7362d09c]), -1));
    index.traces.add(account(1), new Route(burn, new Set([0x595f07bc]), -1));
    opcodes.addDemand(2);
    const t1 = withOpcode(transaction({ account: account(1), lt: 1n }), 0x0f8a7ea5);
    const t2 = withOpcode(transaction({ account: account(2), lt: 2n }), 0x7362d09c);
    const trace = { hash: t1.hash, accounts: [account(1), account(2)], transactions: [t1.hash, t2.hash], startMcSeqno: 1, endMcSeqno: 2 };
    // The transactions come in earlier batches than the trace that completes them.
    index.dispatch([at({ type: 'transaction', tx: t1 })], []);
    index.dispatch([at({ type: 'transaction', tx: t2 }), at({ type: 'trace', trace })], []);
    expect(notify.got.map((g) => g.payload)).toEqual([`{"accounts":["${account(1)}","${account(2)}"],"hash":"${t1.hash}"}`]);
    expect(burn.got).toEqual([]);
    opcodes.addDemand(-2);
    expect(opcodes.remembered).toBe(0); // nothing is kept once no route needs it
  });

  it('sends mempool plain to unfiltered routes and with involved_accounts to account routes; operations read the body opcode', () => {
    const index = new SubscriptionIndex(new OpcodeMemory());
    const all = new Recorder();
    const mine = new Recorder();
    const jettonOnly = new Recorder();
    const other = new Recorder();
    index.allMempool.add(new Route(all, null, -1));
    index.mempool.add(account(3), new Route(mine, null, -1));
    index.allMempool.add(new Route(jettonOnly, new Set([0x0f8a7ea5]), -1));
    index.mempool.add(account(4), new Route(other, null, -1));
    const pending = pendingWithBody(0x0f8a7ea5, [account(3), account(7)]);
    const unemulated = pendingWithBody(0x12345678, null);
    index.dispatch([at({ type: 'mempool', message: pending }), at({ type: 'mempool', message: unemulated })], []);
    expect(all.got.map((g) => g.payload)).toEqual([`{"boc":"${pending.boc}"}`, `{"boc":"${unemulated.boc}"}`]);
    expect(mine.got.map((g) => [g.variant, g.payload])).toEqual([[WITH_INVOLVED, `{"boc":"${pending.boc}","involved_accounts":["${account(3)}","${account(7)}"]}`]]);
    expect(jettonOnly.got.map((g) => g.variant)).toEqual([PLAIN]);
    expect(other.got).toEqual([]);
  });

  it('filters blocks by workchain and transactions by operations; ALL routes see everything that passes', () => {
    const index = new SubscriptionIndex(new OpcodeMemory());
    const master = new Recorder();
    const every = new Recorder();
    const allJetton = new Recorder();
    index.blocks.add(new Route(master, null, -1, -1));
    index.blocks.add(new Route(every, null, -1, null));
    index.allTransactions.add(new Route(allJetton, new Set([0x0f8a7ea5]), -1));
    const block = (workchain: number) => ({ workchain, shard: '8000000000000000', seqno: 5, rootHash: hashOf('r'), fileHash: hashOf('f'), genUtime: 1, startLt: 1n, endLt: 2n, mcSeqno: 5 });
    index.dispatch(
      [
        at({ type: 'block', block: block(-1) }),
        at({ type: 'block', block: block(0) }),
        at({ type: 'transaction', tx: withOpcode(transaction({ account: account(5), lt: 9n }), 0x0f8a7ea5) }),
        at({ type: 'transaction', tx: transaction({ account: account(5), lt: 10n }) }),
      ],
      [],
    );
    expect(master.got.map((g) => JSON.parse(g.payload).workchain)).toEqual([-1]);
    expect(every.got.map((g) => JSON.parse(g.payload).workchain)).toEqual([-1, 0]);
    expect(allJetton.got.map((g) => JSON.parse(g.payload).lt)).toEqual([9]);
  });
});
