// End to end on the real service and the embedded devnet, with real clients: the `eventsource`
// package and `ws`. Every stream and filter sees exactly what the chain did, as recorded in the log.
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestService, type TestService } from '../../test/support/service.js';
import type { ChainEvent, TransactionEvent } from '../bus/events.js';
import { componentFactories } from '../components.js';

const JETTON_TRANSFER = 0x0f8a7ea5;
const TRANSFER_NOTIFICATION = 0x7362d09c;

interface Received {
  id: string;
  data: any;
}

/** An EventSource that records message events (and named ones like gap). */
/** Streams authenticate with a key (`?token=`): more than the anonymous limit of 5 run at once here. */
let token = '';
const withToken = (url: string) => `${url}${url.includes('?') ? '&' : '?'}token=${token}`;

function sse(url: string): { es: EventSource; messages: Received[]; named: Array<{ type: string; data: string }>; opened: Promise<void> } {
  const es = new EventSource(withToken(url));
  const messages: Received[] = [];
  const named: Array<{ type: string; data: string }> = [];
  es.addEventListener('message', (e) => messages.push({ id: e.lastEventId, data: JSON.parse(e.data) }));
  es.addEventListener('gap', (e) => named.push({ type: 'gap', data: e.data }));
  const opened = new Promise<void>((resolve, reject) => {
    es.onopen = () => resolve();
    es.onerror = (e) => reject(new Error(`EventSource error: ${JSON.stringify(e)}`));
  });
  return { es, messages, named, opened };
}

async function rpc(url: string, requests: Array<[string, unknown?]>): Promise<{ ws: WebSocket; notes: any[]; replies: any[] }> {
  const ws = new WebSocket(withToken(url));
  const notes: any[] = [];
  const replies: any[] = [];
  ws.on('message', (d) => {
    const f = JSON.parse(d.toString());
    (f.id === undefined ? notes : replies).push(f);
  });
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  requests.forEach(([method, params], i) => ws.send(JSON.stringify({ id: i + 1, jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) })));
  await waitFor(() => replies.length === requests.length);
  for (const r of replies) expect(r.result, JSON.stringify(r)).toMatch(/^success!/);
  return { ws, notes, replies };
}

async function waitFor(cond: () => boolean, ms = 15_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('streams on the devnet with real clients', () => {
  let svc: TestService;
  let wallets: Array<{ name: string; address: string; jettons: Array<{ key: string; wallet: string }> }>;
  /** Added to the service's clock: moving it past the retention makes history expire for real. */
  let skewMs = 0;

  beforeAll(async () => {
    svc = await startTestService({
      components: componentFactories.filter((c) => c.name === 'devnet' || c.name === 'streaming'),
      env: { TONWATCH_EVENT_RETENTION_SECONDS: '60' },
      now: () => Date.now() + skewMs,
    });
    wallets = (await (await svc.api('/devnet/wallets')).json()) as typeof wallets;
    token = await svc.key('streaming');
  });
  afterAll(async () => svc?.close());

  const wallet = (name: string) => wallets.find((w) => w.name === name)!;
  const usdtWallet = (name: string) => wallet(name).jettons.find((j) => j.key === 'usdt')!.wallet;
  /** Everything the follower appended after `after`, from the log itself. */
  const logAfter = async (after: number) => (await svc.events.readAfter(after, 10_000)).flatMap((b) => b.events).filter((e) => e.position > after);

  it('transactions by account with JettonTransfer and hex-opcode filters, ALL; traces across blocks; mempool; blocks by workchain', async () => {
    const start = svc.events.headPosition() ?? -1;
    const [alice, bob] = [wallet('alice'), wallet('bob')];
    const involved = [alice.address, bob.address, usdtWallet('alice'), usdtWallet('bob')];
    const base = svc.url;
    const ws = `${base.replace('http', 'ws')}/v2/websocket`;
    const streams = {
      jettonByName: sse(`${base}/v2/sse/accounts/transactions?accounts=${involved.join(',')}&operations=JettonTransfer`),
      notifyByHex: sse(`${base}/v2/sse/accounts/transactions?accounts=${involved.join(',')}&operations=0x7362D09C`),
      all: sse(`${base}/v2/sse/accounts/transactions?accounts=ALL`),
      traces: sse(`${base}/v2/sse/accounts/traces?accounts=${bob.address}`),
      mempool: sse(`${base}/v2/sse/mempool`),
      mempoolBob: sse(`${base}/v2/sse/mempool?accounts=${bob.address}`),
      mempoolNobody: sse(`${base}/v2/sse/mempool?accounts=0:${'77'.repeat(32)}`),
      master: sse(`${base}/v2/sse/blocks?workchain=-1`),
    };
    await Promise.all(Object.values(streams).map((s) => s.opened));
    const wsAccounts = await rpc(ws, [['subscribe_account', involved.map((a) => `${a};operations=JettonTransfer`)], ['subscribe_trace', [alice.address]]]);
    const wsMempool = await rpc(ws, [['subscribe_mempool', `accounts=${bob.address}`], ['subscribe_block', ['workchain=0']]]);

    const sent = (await (await svc.api('/devnet/jetton/send', { method: 'POST', json: { from: 'alice', jetton: 'usdt', to: 'bob', amount: '1500000', comment: 'e2e' } })).json()) as { message_hash: string };
    expect(sent.message_hash).toMatch(/^[0-9a-f]{64}$/);
    // The pending message streams at once, before any block.
    await waitFor(() => streams.mempool.messages.length >= 1 && streams.mempoolBob.messages.length >= 1 && wsMempool.notes.some((n) => n.method === 'mempool_message'), 15_000, 'mempool events');
    await svc.settle();
    await svc.produceBlock();

    const log = await logAfter(start);
    const txs = log.filter((e): e is TransactionEvent => e.type === 'transaction');
    const traces = log.filter((e) => e.type === 'trace').map((e) => (e as Extract<ChainEvent, { type: 'trace' }>).trace);
    const pending = log.filter((e) => e.type === 'mempool').map((e) => (e as Extract<ChainEvent, { type: 'mempool' }>).message);
    const byOp = (op: number) => txs.filter((e) => involved.includes(e.tx.account) && e.tx.inMessage?.opcode === op);
    expect(byOp(JETTON_TRANSFER)).toHaveLength(1);
    expect(byOp(TRANSFER_NOTIFICATION)).toHaveLength(1);
    const trace = traces.find((t) => t.accounts.includes(bob.address))!;
    expect(trace.endMcSeqno).toBeGreaterThan(trace.startMcSeqno); // the trace spans several blocks
    const asTx = (e: TransactionEvent) => ({ id: String(e.position), data: { account_id: e.tx.account, lt: Number(e.tx.lt), tx_hash: e.tx.hash } });

    await waitFor(() => streams.all.messages.length >= txs.length && streams.traces.messages.length >= 1, 15_000, 'all transactions and the trace');
    expect(streams.jettonByName.messages).toEqual(byOp(JETTON_TRANSFER).map(asTx));
    expect(streams.notifyByHex.messages).toEqual(byOp(TRANSFER_NOTIFICATION).map(asTx));
    expect(streams.all.messages).toEqual(txs.map(asTx));
    expect(streams.traces.messages).toEqual([{ id: String(log.find((e) => e.type === 'trace')!.position), data: { accounts: trace.accounts, hash: trace.hash } }]);
    expect(trace.accounts).toEqual([...new Set(txs.filter((e) => trace.transactions.includes(e.tx.hash)).map((e) => e.tx.account))].sort());

    const message = pending.find((m) => m.hash === sent.message_hash)!;
    expect(streams.mempool.messages.map((m) => m.data)).toEqual(pending.map((m) => ({ boc: m.boc })));
    expect(streams.mempoolBob.messages.map((m) => m.data)).toEqual([{ boc: message.boc, involved_accounts: message.involvedAccounts }]);
    expect(message.involvedAccounts).toEqual(expect.arrayContaining(involved));
    expect(streams.mempoolNobody.messages).toEqual([]);
    const mcBlocks = log.filter((e) => e.type === 'block' && e.block.workchain === -1);
    await waitFor(() => streams.master.messages.length >= mcBlocks.length, 15_000, 'masterchain blocks');
    expect(streams.master.messages.map((m) => m.data.seqno)).toEqual(mcBlocks.map((e) => (e as any).block.seqno));

    // WebSocket: the same filters, the same payloads.
    await waitFor(() => wsAccounts.notes.some((n) => n.method === 'trace') && wsAccounts.notes.some((n) => n.method === 'account_transaction'), 15_000, 'ws trace');
    expect(wsAccounts.notes.filter((n) => n.method === 'account_transaction').map((n) => n.params)).toEqual(byOp(JETTON_TRANSFER).map((e) => asTx(e).data));
    expect(wsAccounts.notes.filter((n) => n.method === 'trace').map((n) => n.params)).toEqual([{ accounts: trace.accounts, hash: trace.hash }]);
    expect(wsMempool.notes.filter((n) => n.method === 'mempool_message').map((n) => n.params)).toEqual([{ boc: message.boc, involved_accounts: message.involvedAccounts }]);
    const shardBlocks = log.filter((e) => e.type === 'block' && e.block.workchain === 0).map((e) => (e as any).block.seqno);
    expect(shardBlocks.length).toBeGreaterThan(0);
    await waitFor(() => wsMempool.notes.filter((n) => n.method === 'block').length >= shardBlocks.length, 15_000, 'ws shard blocks');
    expect(wsMempool.notes.filter((n) => n.method === 'block').map((n) => [n.params.workchain, n.params.seqno])).toEqual(shardBlocks.map((s) => [0, s]));

    for (const s of Object.values(streams)) s.es.close();
    wsAccounts.ws.close();
    wsMempool.ws.close();
  });

  it('resume: a client that was away gets exactly the missed events in order, then live; an expired id gets a gap', async () => {
    const bob = wallet('bob');
    const url = `${svc.url}/v2/sse/accounts/transactions?accounts=${bob.address}`;
    const first = sse(url);
    await first.opened;
    await svc.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: 'bob', amount: '1000000', comment: 'before' } });
    await svc.settle();
    await waitFor(() => first.messages.length === 1, 15_000, 'first transaction');
    first.es.close();
    const lastSeen = first.messages[0]!.id;

    // While away: two more transfers to bob.
    for (const comment of ['away 1', 'away 2']) {
      await svc.api('/devnet/send', { method: 'POST', json: { from: 'carol', to: 'bob', amount: '1000000', comment } });
      await svc.settle();
    }
    const missed = (await logAfter(Number(lastSeen))).filter((e): e is TransactionEvent => e.type === 'transaction' && e.tx.account === bob.address);
    expect(missed).toHaveLength(2);

    const again = sse(`${url}&last_event_id=${lastSeen}`);
    await again.opened;
    await waitFor(() => again.messages.length === 2, 15_000, 'replayed transactions');
    await svc.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: 'bob', amount: '1000000', comment: 'live' } });
    await svc.settle();
    await waitFor(() => again.messages.length === 3, 15_000, 'live transaction');
    const all = (await logAfter(Number(lastSeen))).filter((e): e is TransactionEvent => e.type === 'transaction' && e.tx.account === bob.address);
    expect(again.messages.map((m) => m.id)).toEqual(all.map((e) => String(e.position)));
    expect(again.messages.map((m) => m.data.tx_hash)).toEqual(all.map((e) => e.tx.hash));
    again.es.close();

    // An id older than what the log retains: two minutes later (retention 60 s) the history is pruned.
    const oldest = (await svc.events.oldestPosition())!;
    skewMs += 120_000;
    await svc.produceBlock();
    expect(await svc.events.prune()).toBeGreaterThan(0);
    expect(await svc.events.oldestPosition()).toBeGreaterThan(Number(lastSeen));
    const expired = sse(`${url}&last_event_id=${oldest}`);
    await expired.opened;
    await waitFor(() => expired.named.length === 1, 15_000, 'gap event');
    const gap = JSON.parse(expired.named[0]!.data);
    expect(gap).toEqual({ error: 'history gap', last_event_id: String(oldest), first_available_id: String(await svc.events.oldestPosition()) });
    expired.es.close();
  });
});
