// WebSocket JSON-RPC on a real server over a real event log, with the `ws` client: every reply and
// error string of compat.md §3, malformed frames, bad ids, unknown methods, limits, notifications.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { account, blockHeader, hashOf, message, transaction } from '../../test/support/model.js';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import { makePosition } from '../bus/events.js';
import type { PendingMessage, TransactionModel } from '../chain/model.js';
import { blockBatch, blockEvent, mempoolBatch, startStreamTestbed, traceEvent, txEvent, type StreamTestbed } from '../../test/support/streaming.js';

/** A ws client that records every text frame and how the socket closed. */
class RpcClient {
  readonly frames: string[] = [];
  closed: { code: number; reason: string } | null = null;
  private nextId = 1;
  private waiters = new Set<() => void>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(data.toString());
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<RpcClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      const client = new RpcClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
    });
  }

  private wake() {
    for (const w of this.waiters) w();
  }

  until<T>(pick: () => T | undefined | null | false, ms = 5000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const v = pick();
        if (v !== undefined && v !== null && v !== false) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve(v);
        }
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out; frames: ${this.frames.join(' | ').slice(-1500)}; closed: ${JSON.stringify(this.closed)}`));
      }, ms);
      this.waiters.add(check);
      check();
    });
  }

  /** Sends a request and returns the raw reply frame. */
  async call(method: string, params?: unknown): Promise<string> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify(params === undefined ? { id, jsonrpc: '2.0', method } : { id, jsonrpc: '2.0', method, params }));
    return this.until(() => this.frames.find((f) => f.startsWith(`{"id":${id},`)));
  }

  async result(method: string, params?: unknown): Promise<string> {
    return JSON.parse(await this.call(method, params)).result;
  }

  notifications(method?: string): Array<Record<string, any>> {
    return this.frames
      .map((f) => JSON.parse(f))
      .filter((f) => f.id === undefined && (method === undefined || f.method === method));
  }

  close() {
    this.ws.close();
  }
}

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const withOpcode = (tx: TransactionModel, opcode: number): TransactionModel => ({
  ...tx,
  inMessage: { ...message(hashOf(`in:${tx.hash}`), 'internal', account(99), tx.account), opcode },
});

describe.each(dialects)('WebSocket JSON-RPC on %s', (dialect) => {
  let bed: StreamTestbed;
  let clients: RpcClient[] = [];
  afterEach(async () => {
    for (const c of clients) c.close();
    clients = [];
    await bed?.close();
    await dropTestStore(bed.store);
  });
  const connect = async (query = '', headers: Record<string, string> = {}) => {
    const c = await RpcClient.open(`${bed.url.replace('http', 'ws')}/v2/websocket${query}`, headers);
    clients.push(c);
    return c;
  };

  it('answers every method with the exact reply frames', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const c = await connect();
    const [a, b] = [account(0x55), account(0x33, -1)];
    expect(await c.call('subscribe_account', [a, b])).toBe(
      '{"id":1,"jsonrpc":"2.0","method":"subscribe_account","result":"success! 2 new subscriptions created"}\n',
    );
    expect(await c.call('subscribe_mempool')).toBe('{"id":2,"jsonrpc":"2.0","method":"subscribe_mempool","result":"success! you have subscribed to mempool"}\n');
    expect(await c.call('subscribe_trace', [a])).toBe('{"id":3,"jsonrpc":"2.0","method":"subscribe_trace","result":"success! 1 new subscriptions created"}\n');
    expect(await c.call('subscribe_block', ['workchain=-1'])).toBe('{"id":4,"jsonrpc":"2.0","method":"subscribe_block","result":"success! you have subscribed to blocks"}\n');
    expect(await c.result('subscribe_account', [a, account(0x77)])).toBe('success! 1 new subscriptions created');
    expect(await c.result('unsubscribe_account', [a, b, account(0x99)])).toBe('success! 2 subscription(s) removed');
    expect(await c.result('unsubscribe_trace', [a])).toBe('success! 1 subscription(s) removed');
    expect(await c.result('subscribe_mempool')).toBe('you are already subscribed to mempool');
    expect(await c.result('unsubscribe_mempool')).toBe('success! you have unsubscribed from mempool');
    expect(await c.result('unsubscribe_mempool')).toBe('you are not subscribed to mempool');
    expect(await c.result('unsubscribe_block')).toBe('success! you have unsubscribed from blocks');
    expect(await c.result('unsubscribe_block')).toBe('you are not subscribed to blocks');
    expect(await c.result('subscribe_mempool', `${a},${b}`)).toBe('success! you have subscribed to mempool');
    expect(await c.result('unsubscribe_mempool')).toBe('success! you have unsubscribed from mempool');
    expect(await c.result('subscribe_mempool', `accounts=${a}`)).toBe('success! you have subscribed to mempool');
    expect(await c.result('unsubscribe_mempool')).toBe('success! you have unsubscribed from mempool');
    expect(await c.result('subscribe_mempool', [`accounts=${a},${b}`])).toBe('success! you have subscribed to mempool');
    expect(c.closed).toBeNull();
  });

  it('answers every error with the documented string, never starting with success', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const c = await connect();
    const errors: Array<[string, unknown, string]> = [
      ['subscribe_account', ['xxx'], "failed to process 'xxx' account: can't decode address xxx"],
      ['subscribe_account', [`${account(1)};operations=Nope`], `failed to process '${account(1)};operations=Nope' account: unknown operation 'Nope'`],
      ['subscribe_account', [`${account(1)};ops=JettonTransfer`], `failed to process '${account(1)};ops=JettonTransfer' account: invalid format`],
      ['subscribe_account', [`${account(1)};operations=0x1;x`], `failed to process '${account(1)};operations=0x1;x' account: invalid format`],
      ['subscribe_trace', ['0:12'], "failed to process '0:12' account: can't decode address 0:12"],
      ['unsubscribe_account', ['bad'], "failed to process 'bad' account: can't decode address bad"],
      ['subscribe_account', 'not-a-list', 'failed to process params: invalid format'],
      ['subscribe_account', [1, 2], 'failed to process params: invalid format'],
      ['subscribe_block', ['workchain=1'], 'failed to process params: unknown workchain'],
      ['subscribe_block', ['workchain=x'], 'failed to process params: invalid format'],
      ['subscribe_block', ['wc=0'], 'failed to process params: invalid format'],
      ['subscribe_block', ['workchain=0', 'workchain=-1'], 'failed to process params: supported only one parameter'],
      ['subscribe_mempool', ['accounts=zz'], "failed to process params: can't decode address zz"],
      ['subscribe_mempool', ['accounts=', 'x'], 'failed to process params: invalid format'],
      ['subscribe_mempool', [`accounts=${account(1)}`, `accounts=${account(2)}`], 'failed to process params: supported only one parameter'],
      ['subscribe_mempool', ['foo=bar'], 'failed to process params: invalid format'],
      ['unsubscribe_mempool', [], 'you are not subscribed to mempool'],
      ['unsubscribe_block', undefined, 'you are not subscribed to blocks'],
      ['subscribe_everything', [], 'unknown method: subscribe_everything'],
    ];
    for (const [method, params, text] of errors) {
      const reply = JSON.parse(await c.call(method, params));
      expect(reply.result.startsWith(text), `${method} ${JSON.stringify(params)} → ${reply.result}`).toBe(true);
      if (!text.includes('unknown operation')) expect(reply.result).toBe(text);
      expect(reply.result.startsWith('success')).toBe(false);
      expect(reply.method).toBe(method);
    }
    // Bad ids: an error reply with id null, and the socket keeps working.
    for (const id of ['7', 1.5, -1, null, undefined, 2 ** 60]) {
      const before = c.frames.length;
      c.ws.send(JSON.stringify({ id, jsonrpc: '2.0', method: 'subscribe_block' }));
      const frame = await c.until(() => c.frames.length > before && c.frames[before]);
      expect(frame).toBe(`{"id":null,"jsonrpc":"2.0","method":"subscribe_block","result":"failed to process request: 'id' must be an unsigned integer"}\n`);
    }
    expect(await c.result('subscribe_block')).toBe('success! you have subscribed to blocks');
    expect(c.closed).toBeNull();
  });

  it('closes on malformed JSON (1007) and binary frames (1003), and the server keeps serving', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const bad = await connect();
    bad.ws.send('{"id":1,"method":');
    expect(await bad.until(() => bad.closed)).toEqual({ code: 1007, reason: 'malformed JSON: expected a JSON-RPC request object' });
    const array = await connect();
    array.ws.send('[1,2]');
    expect((await array.until(() => array.closed)).code).toBe(1007);
    const binary = await connect();
    binary.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect((await binary.until(() => binary.closed)).code).toBe(1003);
    const good = await connect();
    expect(await good.result('subscribe_block')).toBe('success! you have subscribed to blocks');
    await waitFor(() => bed.streaming.hub.stats().ws === 1);
  });

  it('limits accounts per connection: 1001 accounts are refused, 1000 for transactions and 1000 for traces are fine', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const c = await connect();
    const accounts = Array.from({ length: 1001 }, (_, i) => account(i + 1));
    expect(await c.result('subscribe_account', accounts)).toBe('you have reached the limit of 1000 subscriptions');
    expect(await c.result('subscribe_account', accounts.slice(0, 1000))).toBe('success! 1000 new subscriptions created');
    expect(await c.result('subscribe_trace', accounts.slice(1, 1001))).toBe('success! 1000 new subscriptions created');
    expect(await c.result('subscribe_account', [accounts[1000]!])).toBe('you have reached the limit of 1000 subscriptions');
    // Re-subscribing known accounts is not a new subscription, so the limit does not bite.
    expect(await c.result('subscribe_account', [accounts[0]!])).toBe('success! 0 new subscriptions created');
    expect(await c.result('unsubscribe_account', [accounts[0]!])).toBe('success! 1 subscription(s) removed');
    expect(await c.result('subscribe_account', [accounts[1000]!])).toBe('success! 1 new subscriptions created');
  });

  it('sends notifications of every kind; re-subscribing updates the operations filter', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const c = await connect('?event_ids=true');
    const plain = await connect();
    const [a, b] = [account(1), account(2)];
    await c.result('subscribe_account', [`${a};operations=JettonTransfer`]);
    await c.result('subscribe_trace', [b]);
    await c.result('subscribe_mempool', [`accounts=${b}`]);
    await c.result('subscribe_block', ['workchain=0']);
    await plain.result('subscribe_account', [a]);
    await plain.result('subscribe_mempool');
    const jetton = withOpcode(transaction({ account: a, lt: 1n }), 0x0f8a7ea5);
    const notify = withOpcode(transaction({ account: a, lt: 2n }), 0x7362d09c);
    const trace = { hash: hashOf('r'), accounts: [a, b], transactions: [], startMcSeqno: 3, endMcSeqno: 3 };
    const shard = { ...blockHeader(9, 0), mcSeqno: 3 };
    await bed.append(blockBatch(3, [blockEvent(blockHeader(3)), blockEvent(shard), txEvent(jetton), txEvent(notify), traceEvent(trace)]));
    const pending: PendingMessage = { hash: hashOf('m'), boc: 'te6cckEBAQEAAgAAAEysuc0=', destination: a, receivedAt: 1, involvedAccounts: [a, b] };
    await bed.append(mempoolBatch(3, 0, pending));
    await c.until(() => c.notifications().length === 4);
    expect(c.frames.slice(-4)).toEqual([
      `{"jsonrpc":"2.0","method":"block","event_id":"${makePosition(3, 1)}","params":{"workchain":0,"shard":"8000000000000000","seqno":9,"root_hash":"${shard.rootHash}","file_hash":"${shard.fileHash}"}}\n`,
      `{"jsonrpc":"2.0","method":"account_transaction","event_id":"${makePosition(3, 2)}","params":{"account_id":"${a}","lt":1,"tx_hash":"${jetton.hash}"}}\n`,
      `{"jsonrpc":"2.0","method":"trace","event_id":"${makePosition(3, 4)}","params":{"accounts":["${a}","${b}"],"hash":"${trace.hash}"}}\n`,
      `{"jsonrpc":"2.0","method":"mempool_message","event_id":"${makePosition(3, 500_000)}","params":{"boc":"te6cckEBAQEAAgAAAEysuc0=","involved_accounts":["${a}","${b}"]}}\n`,
    ]);
    await plain.until(() => plain.notifications().length === 3);
    expect(plain.frames.slice(-3)).toEqual([
      `{"jsonrpc":"2.0","method":"account_transaction","params":{"account_id":"${a}","lt":1,"tx_hash":"${jetton.hash}"}}\n`,
      `{"jsonrpc":"2.0","method":"account_transaction","params":{"account_id":"${a}","lt":2,"tx_hash":"${notify.hash}"}}\n`,
      `{"jsonrpc":"2.0","method":"mempool_message","params":{"boc":"te6cckEBAQEAAgAAAEysuc0="}}\n`,
    ]);
    // Re-subscribe with another filter: JettonNotify now passes, JettonTransfer no longer does.
    expect(await c.result('subscribe_account', [`${a};operations=0x7362D09C`])).toBe('success! 0 new subscriptions created');
    await bed.append(blockBatch(4, [blockEvent(blockHeader(4)), txEvent(withOpcode(transaction({ account: a, lt: 3n }), 0x0f8a7ea5)), txEvent(withOpcode(transaction({ account: a, lt: 4n }), 0x7362d09c))]));
    await c.until(() => c.notifications('account_transaction').length === 2);
    await plain.until(() => plain.notifications('account_transaction').length === 4);
    expect(c.notifications('account_transaction').map((n) => n.params.lt)).toEqual([1, 4]);
  });

  it('pings an idle connection and authenticates by Bearer header or ?token', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect), hub: { heartbeatMs: 300, sweepMs: 50 } });
    const c = await connect();
    const pinged = new Promise<void>((resolve) => c.ws.once('ping', () => resolve()));
    await pinged;
    const key = await bed.key('streaming');
    const bearer = await connect('', { authorization: `bearer ${key}` });
    expect(await bearer.result('subscribe_block')).toBe('success! you have subscribed to blocks');
    const token = await connect(`?token=${key}`);
    expect(await token.result('subscribe_block')).toBe('success! you have subscribed to blocks');
    await expect(RpcClient.open(`${bed.url.replace('http', 'ws')}/v2/websocket?token=wrong`)).rejects.toThrow(/401/);
  });
});
