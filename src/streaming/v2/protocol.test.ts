// Streaming v2 over a real HTTP server and a real event log (SQLite): the documented request examples
// (docs.ton.org SSE and WebSocket pages; placeholders replaced by real addresses) accepted on both path
// families, the anchor's error texts, the documented replies, keepalive, finalized notifications from the
// log with ids, and slow consumers closed with an error. Clients: test/support/v2-client.ts (docs only).
import { Address, beginCell } from '@ton/core';
import { afterEach, describe, expect, it } from 'vitest';
import { account, message, transaction } from '../../../test/support/model.js';
import { openTestStore, dropTestStore } from '../../../test/support/stores.js';
import { blockBatch, startStreamTestbed, traceEvent, txEvent, type StreamTestbed } from '../../../test/support/streaming.js';
import { openSse, openWs, type V2Event } from '../../../test/support/v2-client.js';

const A = account(0xa1);
const B = account(0xb2);
const friendly = (raw: string) => Address.parse(raw).toString({ bounceable: true });

// docs.ton.org, "Streaming API: SSE", Examples (addresses: one user-friendly, one raw, as the example shows)
const SSE_EXAMPLES = [
  { types: ['transactions', 'actions'], addresses: [friendly(A), B], min_finality: 'pending', include_address_book: true, include_metadata: false, action_types: ['jetton_transfer', 'ton_transfer'] },
  { types: ['trace'], trace_external_hash_norms: ['E7...NORMALIZED_EXTERNAL_MSG_HASH'], min_finality: 'pending', include_address_book: true, include_metadata: true },
];

const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('streaming v2 protocol', () => {
  let bed: StreamTestbed;
  afterEach(async () => {
    await bed?.close();
    if (bed) await dropTestStore(bed.store);
  });

  it('accepts each documented SSE request example on both path families and answers `connected` {"status":"subscribed"}', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite') });
    for (const path of ['/api/streaming/v2/sse', '/streaming/v2/sse']) {
      for (const body of SSE_EXAMPLES) {
        const events: V2Event[] = [];
        const s = await openSse(bed.url + path, body, { onEvent: (e) => events.push(e) });
        expect(s.status).toBe(200);
        await until(() => events.length === 1);
        expect(events[0]).toEqual({ event: 'connected', id: expect.stringMatching(/^-?\d+\.9~0$/), data: { status: 'subscribed' } });
        s.abort();
      }
    }
  });

  it("refuses bad subscriptions with the anchor's 400 {\"error\"} texts", async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite') });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ addresses: [A] }, 'types are required for subscription'],
      [{ types: ['blocks'], addresses: [A] }, 'invalid event type: blocks'],
      [{ types: ['transactions'] }, 'addresses are required for subscription'],
      [{ types: ['trace'] }, 'trace_external_hash_norms are required for trace subscription'],
      [{ types: ['transactions'], addresses: [A], trace_external_hash_norms: ['x'] }, 'trace_external_hash_norms requires type "trace"'],
      [{ types: ['trace'], trace_external_hash_norms: ['  '] }, 'trace_external_hash_norms contains empty value'],
      [{ types: ['transactions'], addresses: ['nope'] }, 'invalid address: nope'],
      [{ types: ['transactions'], addresses: [A], min_finality: 'soon' }, 'invalid min_finality: "soon" (allowed: "pending", "confirmed", "finalized")'],
      [{ types: ['transactions'], addresses: [A], id: 'x1', min_finality: 3 }, 'invalid min_finality: 3 (allowed: "pending", "confirmed", "finalized")'],
    ];
    for (const [body, error] of cases) {
      const s = await openSse(`${bed.url}/api/streaming/v2/sse`, body, { onEvent: () => undefined });
      expect(s.status, JSON.stringify(body)).toBe(400);
      expect(s.error).toEqual({ ...(body.id ? { id: body.id } : {}), error });
    }
  });

  it('WebSocket: the documented subscribe, unsubscribe and ping examples get the documented replies on both paths', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite') });
    for (const path of ['/api/streaming/v2/ws', '/streaming/v2/ws']) {
      const ws = await openWs(bed.url.replace('http', 'ws') + path);
      const norm = Buffer.alloc(32, 7).toString('base64');
      expect(
        await ws.request({ operation: 'subscribe', types: ['transactions', 'actions', 'account_state_change', 'jettons_change', 'trace'], addresses: [friendly(A)], trace_external_hash_norms: [norm], min_finality: 'pending', include_address_book: true, include_metadata: false, action_types: ['jetton_transfer', 'ton_transfer'], id: '1' }),
      ).toEqual({ id: '1', status: 'subscribed' });
      expect(await ws.request({ operation: 'unsubscribe', addresses: [A], trace_external_hash_norms: [norm], id: '2' })).toEqual({ id: '2', status: 'unsubscribed' });
      expect(await ws.request({ operation: 'ping', id: 'ping-42' })).toEqual({ id: 'ping-42', status: 'pong' });
      expect(await ws.request({ operation: 'subscribe', id: '3' })).toEqual({ id: '3', error: 'types are required' });
      expect(await ws.request({ operation: 'subscribe', types: ['transactions'], id: '4' })).toEqual({ id: '4', error: 'addresses are required' });
      expect(await ws.request({ operation: 'unsubscribe', id: '5' })).toEqual({ id: '5', error: 'addresses or trace_external_hash_norms are required' });
      expect(await ws.request({ operation: 'jump', id: '6' })).toEqual({ id: '6', error: 'unknown operation: jump' });
      ws.close();
    }
  });

  it('finalized transactions from the log: one notification per trace, LT descending, each with an id; SSE keepalive', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite'), v2: { keepaliveMs: 200 } });
    const events: V2Event[] = [];
    const comments: string[] = [];
    const s = await openSse(`${bed.url}/streaming/v2/sse`, { types: ['transactions'], addresses: [A, B] }, { onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
    await until(() => events.length === 1);
    // A's transaction sends to B in the same block: one trace, two transactions
    const m = message('cc'.repeat(32), 'internal', A, B);
    await bed.append(blockBatch(5, [txEvent(transaction({ account: A, lt: 10n, out: [m], mcSeqno: 5 })), txEvent(transaction({ account: B, lt: 12n, inMsg: m, mcSeqno: 5 }))]));
    await until(() => events.length === 2);
    const n = events[1]!;
    expect(n.event).toBe('event');
    expect(n.id).toBe('5000000.0');
    expect(n.data.type).toBe('transactions');
    expect(n.data.finality).toBe('finalized');
    expect(Object.keys(n.data)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'transactions']);
    const txs = n.data.transactions as Array<Record<string, unknown>>;
    expect(txs.map((t) => t.lt)).toEqual(['12', '10']);
    expect(txs[1]!.account).toBe(A.slice(0, 2) + A.slice(2).toUpperCase());
    await until(() => comments.includes(': keepalive'), 3000);
    s.abort();
  });

  it('actions of a whole trace at its completion (the log\'s trace event), filtered by action_types; none for a trace ended as it stood', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite') });
    const events: V2Event[] = [];
    const s = await openSse(`${bed.url}/streaming/v2/sse`, { types: ['actions'], addresses: [B], action_types: ['ton_transfer'] }, { onEvent: (e) => events.push(e) });
    await until(() => events.length === 1);
    const body = beginCell().endCell().toBoc().toString('base64');
    const ext = (n: number) => ({ ...message(`e${n}`.repeat(32), 'external-in', null, A), bodyBoc: body });
    const m = message('cc'.repeat(32), 'internal', A, B);
    const later = message('dd'.repeat(32), 'internal', A, B);
    const toB = message('ef'.repeat(32), 'internal', A, B);
    const lost = message('ee'.repeat(32), 'internal', B, account(0xc3));
    const whole = [transaction({ account: A, lt: 10n, inMsg: ext(1), out: [m], mcSeqno: 7 }), transaction({ account: B, lt: 12n, inMsg: m, mcSeqno: 7 })];
    const spanning = [transaction({ account: A, lt: 14n, inMsg: ext(2), out: [later], mcSeqno: 7 }), transaction({ account: B, lt: 20n, inMsg: later, mcSeqno: 8 })];
    // B's message to C never executes: classified, its part would read as a ton_transfer to B
    const unfinished = [transaction({ account: A, lt: 16n, inMsg: ext(3), out: [toB], mcSeqno: 7 }), transaction({ account: B, lt: 18n, inMsg: toB, out: [lost], mcSeqno: 7 })];
    // the follower's trace events: at completion, and for the unfinished one when its age bound ends it
    const traceOf = (txs: ReturnType<typeof transaction>[], end: number) => ({ hash: txs[0]!.hash, accounts: [...new Set(txs.map((t) => t.account))].sort(), transactions: txs.map((t) => t.hash), startMcSeqno: 7, endMcSeqno: end });
    await bed.append(blockBatch(7, [...whole, spanning[0]!, ...unfinished].map(txEvent).concat([traceEvent(traceOf(whole, 7))])));
    await until(() => events.length === 2);
    expect(events[1]!.id).toBe('7000005.2');
    await bed.append(blockBatch(8, [txEvent(spanning[1]!), traceEvent(traceOf(spanning, 8))]));
    await bed.append(blockBatch(9, [traceEvent(traceOf(unfinished, 9))]));
    await until(() => events.length === 3);
    await new Promise((r) => setTimeout(r, 300));
    expect(events.map((e) => e.id)).toEqual([events[0]!.id, '7000005.2', '8000001.2']);
    for (const e of events.slice(1)) {
      expect(Object.keys(e.data)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'actions']);
      const actions = e.data.actions as Array<{ type: string; finality: string }>;
      expect(actions.map((a) => [a.type, a.finality])).toEqual([['ton_transfer', 'finalized']]);
    }
    s.abort();
  });

  it('a client that stops reading is told it is a slow consumer and closed', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite'), v2: { bufferBytes: 64 * 1024 } });
    const ws = await openWs(bed.url.replace('http', 'ws') + '/api/streaming/v2/ws');
    await ws.request({ operation: 'subscribe', types: ['transactions'], addresses: [A] });
    ws.ws.pause(); // the socket stops being read
    const closed = new Promise<number>((ok) => ws.ws.once('close', (code) => ok(code)));
    for (let s = 1; s <= 400; s++) {
      const txs = Array.from({ length: 20 }, (_, i) => txEvent(transaction({ account: A, lt: BigInt(s * 100 + i), mcSeqno: s })));
      await bed.append(blockBatch(s, txs));
      if (bed.streaming.v2.connections.size === 0) break;
    }
    ws.ws.resume();
    expect(await closed).toBe(1008);
    expect(ws.notifications.at(-1)?.error).toMatch(/^slow consumer/);
  });
});
