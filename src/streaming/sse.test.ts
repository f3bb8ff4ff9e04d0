// SSE on a real server over a real event log: the exact bytes of compat.md §2 (headers, heartbeat,
// message frames with mainnet transactions), every parameter error, POST bodies, filters and resume.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { account, blockHeader, hashOf, message, transaction } from '../../test/support/model.js';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import { decodeBlock } from '../chain/decode/index.js';
import type { TransactionModel } from '../chain/model.js';
import { makePosition } from '../bus/events.js';
import { blockBatch, blockEvent, openRawStream, sseMessages, startStreamTestbed, traceEvent, txEvent, type StreamTestbed } from '../../test/support/streaming.js';

const fixture = (name: string) => readFileSync(new URL(`../../test/fixtures/mainnet/blocks/${name}`, import.meta.url));
const mainnetMaster = decodeBlock(fixture('tongo-block-5.boc'));
const mainnetShard = decodeBlock(fixture('block_0_8000000000000000_34703989.boc'));

function withOpcode(tx: TransactionModel, opcode: number | null): TransactionModel {
  const inMsg = message(hashOf(`in:${tx.hash}`), 'internal', account(99), tx.account);
  return { ...tx, inMessage: { ...inMsg, opcode } };
}

describe.each(dialects)('SSE streams on %s', (dialect) => {
  let bed: StreamTestbed;
  afterEach(async () => {
    await bed?.close();
    await dropTestStore(bed.store);
  });

  it('writes the exact framing: headers, immediate heartbeat, message frames with chain-derived ids', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const txs = mainnetMaster.transactions;
    const elector = txs[0]!.account;
    const stream = await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=${elector}`);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream');
    expect(stream.headers['cache-control']).toBe('no-cache');
    expect(stream.headers.connection).toBe('keep-alive');
    await stream.until((t) => t === 'event: heartbeat\n\n');

    const seqno = mainnetMaster.header.seqno;
    await bed.append(blockBatch(seqno, [blockEvent({ ...mainnetMaster.header, mcSeqno: seqno }), ...txs.map(txEvent)]));
    const mine = txs.filter((t) => t.account === elector);
    expect(mine.length).toBeGreaterThan(0);
    const expected =
      'event: heartbeat\n\n' +
      mine
        .map((t) => {
          const position = makePosition(seqno, 1 + txs.indexOf(t));
          return `event: message\nid: ${position}\ndata: {"account_id":"${t.account}","lt":${t.lt},"tx_hash":"${t.hash}"}\n\n`;
        })
        .join('');
    expect(await stream.until((t) => t.length >= expected.length)).toBe(expected);
    // The decoded values are mainnet's: the elector's lt and hashes as recorded.
    expect(mine.map((t) => t.account)).toEqual(mine.map(() => '-1:3333333333333333333333333333333333333333333333333333333333333333'));
    stream.close();
  });

  it('answers every parameter error before streaming with the original plain-text message', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const cases: Array<[string, string]> = [
      ['/v2/sse/accounts/transactions?accounts=xxx', "failed to parse query parameters: can't decode address xxx"],
      ['/v2/sse/accounts/transactions', "failed to parse 'accounts' parameter in query"],
      ['/v2/sse/accounts/transactions?accounts=', "failed to parse 'accounts' parameter in query"],
      ['/v2/sse/accounts/traces?accounts=xxx', "failed to parse 'accounts' parameter in query"],
      ['/v2/sse/accounts/traces', "failed to parse 'accounts' parameter in query"],
      ['/v2/sse/mempool?accounts=0:zz', "failed to parse query parameters: can't decode address 0:zz"],
      ['/v2/sse/blocks?workchain=5', "invalid 'workchain' parameter in query"],
      ['/v2/sse/blocks?workchain=abc', "failed to parse 'workchain' parameter in query"],
      [
        `/v2/sse/accounts/transactions?accounts=ALL&operations=JettonTransfr`,
        "failed to parse 'operations' parameter in query: unknown operation 'JettonTransfr'",
      ],
      [
        `/v2/sse/accounts/transactions?accounts=ALL&operations=0x0f8a7ea`,
        "failed to parse 'operations' parameter in query: invalid opcode '0x0f8a7ea': expected 0x and exactly 8 hex digits",
      ],
      ['/v2/sse/blocks?heartbeat=yes', "invalid 'heartbeat' parameter in query: the only value is 'data'"],
    ];
    for (const [path, text] of cases) {
      const res = await fetch(`${bed.url}${path}`);
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/plain/);
      const body = await res.text();
      if (text.startsWith('failed to parse \'operations\'') && text.includes('unknown operation')) expect(body.startsWith(text), path).toBe(true);
      else expect(body, path).toBe(text);
    }
    const post = await fetch(`${bed.url}/v2/sse/accounts/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '["a"]' });
    expect(post.status).toBe(400);
    expect(await post.text()).toBe('failed to parse body parameters: expected a JSON object');
  });

  it('filters transactions by account list, ALL, operation names and hex opcodes (case-insensitive)', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const a = account(1);
    const b = account(2);
    const jetton = withOpcode(transaction({ account: a, lt: 10n }), 0x0f8a7ea5);
    const comment = withOpcode(transaction({ account: a, lt: 11n }), 0);
    const other = withOpcode(transaction({ account: b, lt: 12n }), 0x7362d09c);
    const bare = transaction({ account: b, lt: 13n });
    const streams = {
      accountA: await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=${a}`),
      all: await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=all`),
      named: await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=ALL&operations=JettonTransfer,JettonNotify`),
      hexUpper: await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=${a},${b}&operations=0X0F8A7EA5`),
      comment: await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=${a}&operations=TextComment`),
    };
    await Promise.all(Object.values(streams).map((s) => s.until((t) => t.startsWith('event: heartbeat'))));
    await bed.append(blockBatch(7, [blockEvent(blockHeader(7)), ...[jetton, comment, other, bare].map(txEvent)]));
    const lts = async (s: (typeof streams)[keyof typeof streams], n: number) => {
      const text = await s.until((t) => sseMessages(t).filter((m) => m.event === 'message').length >= n);
      return sseMessages(text).filter((m) => m.event === 'message').map((m) => JSON.parse(m.data!).lt);
    };
    expect(await lts(streams.accountA, 2)).toEqual([10, 11]);
    expect(await lts(streams.all, 4)).toEqual([10, 11, 12, 13]);
    expect(await lts(streams.named, 2)).toEqual([10, 12]);
    expect(await lts(streams.hexUpper, 1)).toEqual([10]);
    expect(await lts(streams.comment, 1)).toEqual([11]);
    // Nothing more arrives for the filtered ones (the next block is a fence).
    await bed.append(blockBatch(8, [blockEvent(blockHeader(8)), txEvent(withOpcode(transaction({ account: a, lt: 20n }), 0x0f8a7ea5))]));
    expect(await lts(streams.hexUpper, 2)).toEqual([10, 20]);
    expect(await lts(streams.comment, 1)).toEqual([11]);
    for (const s of Object.values(streams)) s.close();
  });

  it('streams traces once to subscribers of any involved account, blocks by workchain, with heartbeat=data', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const [a, b, c] = [account(1), account(2), account(3)];
    const traces = await openRawStream(`${bed.url}/v2/sse/accounts/traces?accounts=${a},${b}`);
    const master = await openRawStream(`${bed.url}/v2/sse/blocks?workchain=-1&heartbeat=data`);
    const all = await openRawStream(`${bed.url}/v2/sse/blocks`);
    await master.until((t) => t === 'event: heartbeat\ndata: {}\n\n');
    const trace = { hash: hashOf('root'), accounts: [a, b, c], transactions: [hashOf('t1')], startMcSeqno: 3, endMcSeqno: 4 };
    const shard = { ...blockHeader(40, 0), mcSeqno: 4 };
    await bed.append(blockBatch(4, [blockEvent(blockHeader(4)), blockEvent(shard), traceEvent(trace)]));
    const traceText = await traces.until((t) => t.includes('event: message'));
    expect(traceText).toBe(
      `event: heartbeat\n\nevent: message\nid: ${makePosition(4, 2)}\ndata: {"accounts":["${a}","${b}","${c}"],"hash":"${trace.hash}"}\n\n`,
    );
    const mh = blockHeader(4);
    await master.until((t) => t.includes('event: message'));
    expect(master.text()).toBe(
      'event: heartbeat\ndata: {}\n\n' +
        `event: message\nid: ${makePosition(4, 0)}\ndata: {"workchain":-1,"shard":"8000000000000000","seqno":4,"root_hash":"${mh.rootHash}","file_hash":"${mh.fileHash}"}\n\n`,
    );
    const allText = await all.until((t) => sseMessages(t).filter((m) => m.event === 'message').length === 2);
    expect(sseMessages(allText).filter((m) => m.event === 'message').map((m) => JSON.parse(m.data!).workchain)).toEqual([-1, 0]);
    for (const s of [traces, master, all]) s.close();
  });

  it('accepts the parameters as a JSON body on POST (thousands of accounts)', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const accounts = Array.from({ length: 3000 }, (_, i) => account(i + 1));
    const stream = await openRawStream(`${bed.url}/v2/sse/accounts/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accounts, operations: ['JettonTransfer'] }),
    });
    expect(stream.status).toBe(200);
    const tx = withOpcode(transaction({ account: accounts[2999]!, lt: 5n }), 0x0f8a7ea5);
    await bed.append(blockBatch(2, [blockEvent(blockHeader(2)), txEvent(tx), txEvent(withOpcode(transaction({ account: accounts[0]!, lt: 6n }), 1))]));
    const text = await stream.until((t) => t.includes('event: message'));
    expect(sseMessages(text).filter((m) => m.event === 'message').map((m) => m.data)).toEqual([
      `{"account_id":"${accounts[2999]}","lt":5,"tx_hash":"${tx.hash}"}`,
    ]);
    stream.close();
    // The same list in a GET URL: the raised header limit lets ~3000 raw addresses through.
    const get = await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=${accounts.join(',')}`);
    expect(get.status).toBe(200);
    get.close();
  });

  it('speaks chunked HTTP/1.1 on the wire, and bare frames then the end of the connection to HTTP/1.0', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const port = Number(new URL(bed.url).port);
    const raw = async (version: string) => {
      const socket = net.connect(port, '127.0.0.1');
      let text = '';
      socket.setEncoding('latin1');
      socket.on('data', (d: string) => (text += d));
      socket.write(`GET /v2/sse/blocks?workchain=-1 HTTP/${version}\r\nHost: test\r\n\r\n`);
      return { socket, text: () => text };
    };
    const v11 = await raw('1.1');
    const v10 = await raw('1.0');
    const until = async (read: () => string, cond: (t: string) => boolean) => {
      const end = Date.now() + 5000;
      while (!cond(read()) && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
      return read();
    };
    await until(v11.text, (t) => t.includes('event: heartbeat'));
    await until(v10.text, (t) => t.includes('event: heartbeat'));
    const h = blockHeader(3);
    await bed.append(blockBatch(3, [blockEvent(h)]));
    const frame = `event: message\nid: ${makePosition(3, 0)}\ndata: {"workchain":-1,"shard":"8000000000000000","seqno":3,"root_hash":"${h.rootHash}","file_hash":"${h.fileHash}"}\n\n`;
    const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
    const t11 = await until(v11.text, (t) => t.endsWith(chunk(frame)));
    expect(t11).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(t11).toMatch(/\r\ntransfer-encoding: chunked\r\n/i);
    expect(t11.slice(t11.indexOf('\r\n\r\n') + 4)).toBe(chunk('event: heartbeat\n\n') + chunk(frame));
    const t10 = await until(v10.text, (t) => t.endsWith(frame));
    expect(t10).toMatch(/\r\nconnection: close\r\n/i);
    expect(t10.slice(t10.indexOf('\r\n\r\n') + 4)).toBe('event: heartbeat\n\n' + frame);
    // Stopping ends the 1.1 stream with the last chunk, the 1.0 one with the end of the connection.
    const closed = Promise.all([v11, v10].map((c) => new Promise((r) => c.socket.once('close', r))));
    await bed.streaming.stop!();
    await closed;
    expect(v11.text().endsWith('0\r\n\r\n')).toBe(true);
    expect(v10.text().endsWith(frame)).toBe(true);
  });

  it('streams the shard transactions of a real mainnet block in order, with ids strictly increasing', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const stream = await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=ALL`);
    const txs = mainnetShard.transactions;
    await bed.append(blockBatch(100, txs.map(txEvent)));
    const text = await stream.until((t) => sseMessages(t).filter((m) => m.event === 'message').length === txs.length);
    const msgs = sseMessages(text).filter((m) => m.event === 'message');
    expect(msgs.map((m) => JSON.parse(m.data!).tx_hash)).toEqual(txs.map((t) => t.hash));
    const ids = msgs.map((m) => Number(m.id));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(ids.length);
    stream.close();
  });
});
