// The `operations` filter decided by the logged event alone, end to end on the devnet with real
// clients and no other subscription open: a filtered trace stream resumed from before, inside or
// after a matching trace gets it exactly once; one opened mid-trace gets it; a pending jetton
// transfer from a v4 and from a v5 wallet matches JettonTransfer on the mempool, a TON transfer not.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestService, type TestService } from '../../test/support/service.js';
import type { ChainEvent, MempoolEvent, TraceEvent, TransactionEvent } from '../bus/events.js';
import { componentFactories } from '../components.js';
import { openRawStream as openRaw, sseMessages } from '../../test/support/streaming.js';

const JETTON_TRANSFER = 0x0f8a7ea5;

async function waitFor(cond: () => boolean, ms = 15_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Streams left open by a failed test would keep a filtered subscription open for the next one. */
const opened: Array<() => void> = [];
async function openRawStream(...args: Parameters<typeof openRaw>) {
  const stream = await openRaw(...args);
  opened.push(stream.close);
  return stream;
}

/** A WebSocket client: notifications and replies, one call at a time. */
async function wsClient(url: string): Promise<{ ws: WebSocket; notes: any[]; call(method: string, params: unknown): Promise<string> }> {
  const ws = new WebSocket(url);
  opened.push(() => ws.terminate());
  const notes: any[] = [];
  const replies: any[] = [];
  ws.on('message', (d) => {
    const f = JSON.parse(d.toString());
    (f.id === undefined ? notes : replies).push(f);
  });
  await new Promise((ok, fail) => {
    ws.once('open', ok);
    ws.once('error', fail);
  });
  let id = 0;
  return {
    ws,
    notes,
    async call(method, params) {
      const mine = ++id;
      ws.send(JSON.stringify({ id: mine, jsonrpc: '2.0', method, params }));
      await waitFor(() => replies.some((r) => r.id === mine), 10_000, `${method} reply`);
      return replies.find((r) => r.id === mine).result as string;
    },
  };
}

describe('operations filters decided by the event, on the devnet', () => {
  let svc: TestService;
  let token = '';
  let wallets: Array<{ name: string; address: string }>;

  beforeAll(async () => {
    svc = await startTestService({ components: componentFactories.filter((c) => c.name === 'devnet' || c.name === 'streaming') });
    wallets = (await (await svc.api('/devnet/wallets')).json()) as typeof wallets;
    token = await svc.key('streaming');
  });
  afterAll(async () => svc?.close());
  afterEach(() => {
    for (const close of opened.splice(0)) close();
  });

  const address = (name: string) => wallets.find((w) => w.name === name)!.address;
  const logAfter = async (after: number): Promise<ChainEvent[]> =>
    (await svc.events.readAfter(after, 10_000)).flatMap((b) => b.events).filter((e) => e.position > after);
  const sendJetton = async (from: string, to: string) => {
    const res = await svc.api('/devnet/jetton/send', { method: 'POST', json: { from, jetton: 'usdt', to, amount: '1000', comment: `${from} to ${to}` } });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { message_hash: string }).message_hash;
  };
  const sendTon = async (from: string, to: string) => {
    const res = await svc.api('/devnet/send', { method: 'POST', json: { from, to, amount: '1000000', comment: 'plain' } });
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await res.json()) as { message_hash: string }).message_hash;
  };
  const tracesUrl = () => `${svc.url}/v2/sse/accounts/traces?accounts=ALL&operations=JettonTransfer&token=${token}`;
  const wsUrl = () => `${svc.url.replace('http', 'ws')}/v2/websocket?token=${token}`;
  /** Traces with a transaction that received a jetton transfer, found from the transactions in the log. */
  const jettonTraces = (log: ChainEvent[]) => {
    const jetton = new Set(log.filter((e): e is TransactionEvent => e.type === 'transaction' && e.tx.inMessage?.opcode === JETTON_TRANSFER).map((e) => e.tx.hash));
    return log.filter((e): e is TraceEvent => e.type === 'trace' && e.trace.transactions.some((h) => jetton.has(h)));
  };

  it('a filtered trace stream resumed from before, inside and after a matching trace gets it exactly once (SSE and WebSocket)', async () => {
    const start = svc.events.headPosition()!;
    await sendJetton('alice', 'bob');
    await svc.settle();
    await sendJetton('alice', 'carol');
    await svc.settle();
    const log = await logAfter(start);
    const [t1, t2] = jettonTraces(log);
    expect(t2).toBeDefined();
    // the jetton wallet's transaction that received 0x0f8a7ea5: inside the first trace, logged blocks before it completed
    const inside = log.find((e): e is TransactionEvent => e.type === 'transaction' && e.tx.inMessage?.opcode === JETTON_TRANSFER && t1!.trace.transactions.includes(e.tx.hash))!;
    expect(inside.mcSeqno).toBeLessThan(t1!.mcSeqno);
    const cases: Array<[string, number, TraceEvent[]]> = [
      ['before', start, [t1!, t2!]],
      ['inside', inside.position, [t1!, t2!]],
      ['after', t1!.position, [t2!]],
    ];
    for (const [where, lastEventId, expected] of cases) {
      const sse = await openRawStream(tracesUrl(), { headers: { 'last-event-id': String(lastEventId) } });
      expect(sse.status).toBe(200);
      const messages = () => sseMessages(sse.text()).filter((m) => m.event === 'message');
      await sse.until(() => messages().length >= expected.length);
      expect(messages().map((m) => [Number(m.id), JSON.parse(m.data!)]), `SSE resumed ${where}`).toEqual(
        expected.map((e) => [e.position, { accounts: e.trace.accounts, hash: e.trace.hash }]),
      );
      sse.close();

      const client = await wsClient(wsUrl());
      expect(await client.call('subscribe_trace', [`${address('alice')};operations=JettonTransfer`, `last_event_id=${lastEventId}`])).toMatch(/^success!/);
      await waitFor(() => client.notes.filter((n) => n.method === 'trace').length >= expected.length, 15_000, `ws traces resumed ${where}`);
      expect(client.notes.filter((n) => n.method === 'trace').map((n) => [Number(n.event_id), n.params]), `WebSocket resumed ${where}`).toEqual(
        expected.map((e) => [e.position, { accounts: e.trace.accounts, hash: e.trace.hash }]),
      );
      client.ws.close();
    }
  });

  it('a filtered trace stream opened mid-trace gets the trace (SSE and WebSocket)', async () => {
    const start = svc.events.headPosition()!;
    await sendJetton('bob', 'alice');
    // blocks until the jetton transfer is on chain but its trace has not completed
    let log: ChainEvent[] = [];
    for (let i = 0; i < 10; i++) {
      await svc.produceBlock();
      log = await logAfter(start);
      if (log.some((e) => e.type === 'transaction' && e.tx.inMessage?.opcode === JETTON_TRANSFER)) break;
    }
    expect(log.some((e) => e.type === 'transaction' && e.tx.inMessage?.opcode === JETTON_TRANSFER)).toBe(true);
    expect(jettonTraces(log)).toEqual([]);

    const sse = await openRawStream(tracesUrl());
    const client = await wsClient(wsUrl());
    expect(await client.call('subscribe_trace', [`${address('bob')};operations=JettonTransfer`])).toMatch(/^success!/);
    await svc.settle();
    const [trace] = jettonTraces(await logAfter(start));
    expect(trace).toBeDefined();
    const payload = { accounts: trace!.trace.accounts, hash: trace!.trace.hash };
    await sse.until((t) => sseMessages(t).some((m) => m.event === 'message'));
    expect(sseMessages(sse.text()).filter((m) => m.event === 'message').map((m) => [Number(m.id), JSON.parse(m.data!)])).toEqual([[trace!.position, payload]]);
    await waitFor(() => client.notes.some((n) => n.method === 'trace'), 15_000, 'ws trace');
    expect(client.notes.filter((n) => n.method === 'trace').map((n) => n.params)).toEqual([payload]);
    sse.close();
    client.ws.close();
  });

  it('a pending jetton transfer from a v4 and from a v5 wallet matches JettonTransfer on the mempool; a TON transfer does not', async () => {
    const start = svc.events.headPosition()!;
    const sse = await openRawStream(`${svc.url}/v2/sse/mempool?operations=JettonTransfer&token=${token}`);
    const every = await openRawStream(`${svc.url}/v2/sse/mempool?token=${token}`);
    const client = await wsClient(wsUrl());
    expect(await client.call('subscribe_mempool', ['operations=JettonTransfer'])).toBe('success! you have subscribed to mempool');

    const v4Jetton = await sendJetton('alice', 'dave'); // alice: wallet v4
    const v5Jetton = await sendJetton('bob', 'dave'); // bob: wallet v5r1
    const v4Ton = await sendTon('carol', 'dave');
    const v5Ton = await sendTon('dave', 'carol');
    const messages = (text: string) => sseMessages(text).filter((m) => m.event === 'message');
    await every.until((t) => messages(t).length >= 4);
    const pending = new Map(
      (await logAfter(start)).filter((e): e is MempoolEvent => e.type === 'mempool').map((e) => [e.message.hash, e]),
    );
    expect([v4Jetton, v5Jetton, v4Ton, v5Ton].every((h) => pending.has(h))).toBe(true);
    const expected = [v4Jetton, v5Jetton].map((h) => [pending.get(h)!.position, { boc: pending.get(h)!.message.boc }]);

    await sse.until((t) => messages(t).length >= 2);
    await waitFor(() => client.notes.filter((n) => n.method === 'mempool_message').length >= 2, 15_000, 'ws mempool');
    // the TON transfers were admitted after the jetton ones: had they matched, they would be here by now
    expect(messages(every.text()).map((m) => Number(m.id))).toEqual([...pending.values()].map((e) => e.position));
    expect(messages(sse.text()).map((m) => [Number(m.id), JSON.parse(m.data!)])).toEqual(expected);
    expect(client.notes.filter((n) => n.method === 'mempool_message').map((n) => n.params)).toEqual(expected.map(([, p]) => p));
    // the wallets' own bodies start with a signature (v4) or 0x7369676e (v5): the match comes from the emulated trace
    expect(pending.get(v5Jetton)!.message.opcodes).toEqual(expect.arrayContaining([0x7369676e, JETTON_TRANSFER]));
    expect(pending.get(v4Ton)!.message.opcodes).not.toContain(JETTON_TRANSFER);
    // and once the block is in: still only those two
    await svc.settle();
    await sendJetton('alice', 'bob');
    await sse.until((t) => messages(t).length >= 3);
    expect(messages(sse.text())).toHaveLength(3);
    expect(messages(sse.text()).slice(0, 2).map((m) => [Number(m.id), JSON.parse(m.data!)])).toEqual(expected);
    sse.close();
    every.close();
    client.ws.close();
    await svc.settle();
  });
});
