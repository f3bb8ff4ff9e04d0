// The subscription index on its own: who gets which event, once, with which payload variant —
// including the operations filter on traces (the inbound opcodes recorded on the trace event) and on
// mempool (the opcodes recorded at admission; the body's own opcode, read from a real message BoC,
// when the source could not emulate).
import { Address, beginCell, external, storeMessage } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { account, hashOf, message, transaction } from '../../test/support/model.js';
import { makePosition, type ChainEvent } from '../bus/events.js';
import type { PendingMessage, TransactionModel } from '../chain/model.js';
import { PLAIN, WITH_INVOLVED, httpChunk, sseMessageFrame, wsNotification, wsTextFrame, type PayloadVariant, type PreparedEvent } from './frames.js';
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
    const index = new SubscriptionIndex();
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

  it('matches trace operations against the opcodes on the trace event alone, with no transaction seen before', () => {
    const index = new SubscriptionIndex();
    const notify = new Recorder();
    const burn = new Recorder();
    index.traces.add(account(1), new Route(notify, new Set([0x7362d09c]), -1));
    index.traces.add(account(1), new Route(burn, new Set([0x595f07bc]), -1));
    const t1 = transaction({ account: account(1), lt: 1n });
    const trace = { hash: t1.hash, accounts: [account(1), account(2)], transactions: [t1.hash], startMcSeqno: 1, endMcSeqno: 2, opcodes: [0x0f8a7ea5, 0x7362d09c] };
    const old = { ...trace, hash: hashOf('logged before opcodes were recorded'), opcodes: undefined };
    index.dispatch([at({ type: 'trace', trace }), at({ type: 'trace', trace: old })], []);
    expect(notify.got.map((g) => g.payload)).toEqual([`{"accounts":["${account(1)}","${account(2)}"],"hash":"${t1.hash}"}`]);
    expect(burn.got).toEqual([]);
  });

  it('sends mempool plain to unfiltered routes and with involved_accounts to account routes; operations read the recorded opcodes', () => {
    const index = new SubscriptionIndex();
    const all = new Recorder();
    const mine = new Recorder();
    const jettonOnly = new Recorder();
    const other = new Recorder();
    index.allMempool.add(new Route(all, null, -1));
    index.mempool.add(account(3), new Route(mine, null, -1));
    index.allMempool.add(new Route(jettonOnly, new Set([0x0f8a7ea5]), -1));
    index.mempool.add(account(4), new Route(other, null, -1));
    // a wallet's external message (its body starts with a signature) whose emulated trace sends a jetton transfer
    const pending = { ...pendingWithBody(0x7369676e, [account(3), account(7)]), opcodes: [0x0f8a7ea5, 0x7369676e] };
    const unemulated = pendingWithBody(0x0f8a7ea5, null);
    const plain = { ...pendingWithBody(0x7369676e, [account(7)]), opcodes: [0x7369676e] };
    index.dispatch([pending, unemulated, plain].map((message) => at({ type: 'mempool', message })), []);
    expect(all.got.map((g) => g.payload)).toEqual([`{"boc":"${pending.boc}"}`, `{"boc":"${unemulated.boc}"}`, `{"boc":"${plain.boc}"}`]);
    expect(mine.got.map((g) => [g.variant, g.payload])).toEqual([[WITH_INVOLVED, `{"boc":"${pending.boc}","involved_accounts":["${account(3)}","${account(7)}"]}`]]);
    expect(jettonOnly.got.map((g) => [g.variant, g.payload])).toEqual([
      [PLAIN, `{"boc":"${pending.boc}"}`],
      [PLAIN, `{"boc":"${unemulated.boc}"}`],
    ]);
    expect(other.got).toEqual([]);
  });

  it('keeps the frames built for each event intact while the index reuses its prepared event for the next ones', () => {
    // A connection keeps the frames (not the prepared event) until the batch is written.
    class Keeper implements Subscriber {
      stamp = 0;
      frames: Buffer[] = [];
      deliver(event: PreparedEvent, variant: PayloadVariant): void {
        this.frames.push(event.sseChunk(variant), event.wsWire(variant, true));
      }
    }
    const index = new SubscriptionIndex();
    const a = new Keeper();
    const b = new Keeper();
    index.transactions.add(account(1), new Route(a, null, -1));
    index.transactions.add(account(2), new Route(b, null, -1));
    index.transactions.add(account(2), new Route(a, null, -1));
    const events = [1, 2, 1, 2].map((k, i) => at({ type: 'transaction', tx: transaction({ account: account(k), lt: BigInt(100 + i) }) }));
    index.dispatch(events, []);
    const wire = (e: ChainEvent) => {
      const payload = `{"account_id":"${(e as { tx: TransactionModel }).tx.account}","lt":${(e as { tx: TransactionModel }).tx.lt},"tx_hash":"${(e as { tx: TransactionModel }).tx.hash}"}`;
      return [httpChunk(sseMessageFrame(e.position, payload)), wsTextFrame(wsNotification('account_transaction', payload, e.position))];
    };
    expect(a.frames).toEqual(events.flatMap(wire));
    expect(b.frames).toEqual([events[1]!, events[3]!].flatMap(wire));
  });

  it('filters blocks by workchain and transactions by operations; ALL routes see everything that passes', () => {
    const index = new SubscriptionIndex();
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
