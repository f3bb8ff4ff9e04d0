// What TonAPI clients already send: every operation name of tongo's message ABI (NftTransfer…) on
// SSE and WebSocket, matched by its opcode; an event id that is not ours (opentonapi's nanosecond
// counter) answered with 200 and the gap event, then live — never a 400 a browser gives up on.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { account, blockHeader, hashOf, message, transaction } from '../../test/support/model.js';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import { makePosition } from '../bus/events.js';
import type { TraceModel, TransactionModel } from '../chain/model.js';
import { parseMessageAbi, renderModule } from '../../scripts/operation-names.js';
import { OPERATION_NAMES, parseOperations } from './operations.js';
import { blockBatch, blockEvent, openRawStream, sseMessages, startStreamTestbed, traceEvent, txEvent, type StreamTestbed } from '../../test/support/streaming.js';

const NFT_TRANSFER = 0x5fcc3d14;
const A = account(1);

const withOpcode = (tx: TransactionModel, opcode: number): TransactionModel => ({
  ...tx,
  inMessage: { ...message(hashOf(`in:${tx.hash}`), 'internal', account(99), tx.account), opcode },
});
const trace = (root: TransactionModel, opcodes: number[]): TraceModel => ({ hash: root.hash, accounts: [A], transactions: [root.hash], startMcSeqno: 2, endMcSeqno: 2, opcodes });

const messages = (text: string) => sseMessages(text).filter((m) => m.event === 'message');

describe.each(dialects.slice(0, 1))('TonAPI clients on %s', (dialect) => {
  let bed: StreamTestbed;
  afterEach(async () => {
    await bed?.close();
    await dropTestStore(bed.store);
  });

  it('accepts every operation name of the table on SSE and WebSocket; NftTransfer matches 0x5fcc3d14 on transactions and traces', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const names = Object.keys(OPERATION_NAMES);
    expect(names.length).toBeGreaterThan(300);
    const everything = await fetch(`${bed.url}/v2/sse/accounts/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accounts: 'ALL', operations: names }),
    });
    expect(everything.status).toBe(200);
    await everything.body!.cancel();

    const txs = await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=ALL&operations=NftTransfer`);
    const traces = await openRawStream(`${bed.url}/v2/sse/accounts/traces?accounts=${A}&operations=nfttransfer`);
    expect([txs.status, traces.status]).toEqual([200, 200]);
    const ws = new WebSocket(`${bed.url.replace('http', 'ws')}/v2/websocket`);
    const frames: any[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    await new Promise((r) => ws.once('open', r));
    const send = (id: number, method: string, params: unknown) => ws.send(JSON.stringify({ id, jsonrpc: '2.0', method, params }));
    send(1, 'subscribe_account', [`${A};operations=${names.join(',')}`]);
    send(2, 'subscribe_trace', [`${A};operations=NftTransfer`]);
    send(3, 'subscribe_account', [`${account(2)};operations=NftTransfer`]);
    const until = async (cond: () => boolean) => {
      const end = Date.now() + 10_000;
      while (!cond()) {
        if (Date.now() > end) throw new Error(`timeout; frames ${JSON.stringify(frames).slice(-600)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    await until(() => frames.filter((f) => f.id !== undefined).length === 3);
    expect(frames.map((f) => f.result)).toEqual(['success! 1 new subscriptions created', 'success! 1 new subscriptions created', 'success! 1 new subscriptions created']);

    const nft = withOpcode(transaction({ account: A, lt: 10n, mcSeqno: 2 }), NFT_TRANSFER);
    const jetton = withOpcode(transaction({ account: A, lt: 11n, mcSeqno: 2 }), 0x0f8a7ea5);
    const otherNft = withOpcode(transaction({ account: account(2), lt: 12n, mcSeqno: 2 }), NFT_TRANSFER);
    await bed.append(
      blockBatch(2, [blockEvent(blockHeader(2)), txEvent(nft), txEvent(jetton), txEvent(otherNft), traceEvent(trace(jetton, [0x0f8a7ea5])), traceEvent(trace(nft, [NFT_TRANSFER]))]),
    );
    const txPayload = (tx: TransactionModel) => ({ account_id: tx.account, lt: Number(tx.lt), tx_hash: tx.hash });
    await txs.until((t) => messages(t).length === 2);
    await traces.until((t) => messages(t).length === 1);
    expect(messages(txs.text()).map((m) => [Number(m.id), JSON.parse(m.data!)])).toEqual([
      [makePosition(2, 1), txPayload(nft)],
      [makePosition(2, 3), txPayload(otherNft)],
    ]);
    expect(messages(traces.text()).map((m) => [Number(m.id), JSON.parse(m.data!)])).toEqual([[makePosition(2, 5), { accounts: [A], hash: nft.hash }]]);
    // WebSocket: every name on A (both of A's transactions), NftTransfer on traces of A and on account 2
    await until(() => frames.filter((f) => f.method === 'account_transaction').length === 3 && frames.some((f) => f.method === 'trace'));
    expect(frames.filter((f) => f.method === 'account_transaction').map((f) => f.params)).toEqual([txPayload(nft), txPayload(jetton), txPayload(otherNft)]);
    expect(frames.filter((f) => f.method === 'trace').map((f) => f.params)).toEqual([{ accounts: [A], hash: nft.hash }]);
    txs.close();
    traces.close();
    ws.close();

    // an unknown name is still a clear 400; a wallet's signed external has no opcode to match
    const unknown = await fetch(`${bed.url}/v2/sse/accounts/traces?accounts=${A}&operations=NftTransfr`);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toMatch(/^failed to parse 'operations' parameter in query: unknown operation 'NftTransfr'/);
    const signed = await fetch(`${bed.url}/v2/sse/accounts/traces?accounts=${A}&operations=WalletSignedV4`);
    expect(signed.status).toBe(400);
    expect(await signed.text()).toMatch(/no opcode to match/);
  });

  it('answers an event id that is not ours with 200, the gap event, then live (SSE header and query, WebSocket)', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    await bed.append(blockBatch(2, [blockEvent(blockHeader(2)), txEvent(transaction({ account: A, lt: 20n, mcSeqno: 2 }))]));
    const head = makePosition(2, 1);
    const url = `${bed.url}/v2/sse/accounts/transactions?accounts=${A}`;
    const gapFrame = (claimed: string) =>
      `event: gap\nid: ${head}\ndata: {"error":"history gap","last_event_id":"${claimed}","first_available_id":"${head + 1}"}\n\n`;
    const tonapi = await openRawStream(url, { headers: { 'last-event-id': '1700000000000000000' } });
    const otherServer = await openRawStream(`${url}&last_event_id=not-one-of-ours`);
    const farAhead = await openRawStream(url, { headers: { 'last-event-id': String(makePosition(900, 0)) } });
    expect([tonapi.status, otherServer.status, farAhead.status]).toEqual([200, 200, 200]);
    const ws = new WebSocket(`${bed.url.replace('http', 'ws')}/v2/websocket`);
    const frames: any[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'subscribe_account', params: [A, 'last_event_id=1700000000000000000'] }));

    for (const stream of [tonapi, otherServer, farAhead]) await stream.until((t) => t.includes('event: gap'));
    const end = Date.now() + 10_000;
    while (!frames.some((f) => f.method === 'gap') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    const live = transaction({ account: A, lt: 30n, mcSeqno: 3 });
    await bed.append(blockBatch(3, [blockEvent(blockHeader(3)), txEvent(live)]));
    const liveFrame = `event: message\nid: ${makePosition(3, 1)}\ndata: {"account_id":"${A}","lt":30,"tx_hash":"${live.hash}"}\n\n`;
    for (const [stream, claimed] of [
      [tonapi, '1700000000000000000'],
      [otherServer, 'not-one-of-ours'],
      [farAhead, String(makePosition(900, 0))],
    ] as const) {
      // nothing of the history is replayed for an id that says nothing about it: the gap, then live
      expect(await stream.until((t) => t.includes(live.hash))).toBe(`event: heartbeat\n\n${gapFrame(claimed)}${liveFrame}`);
      stream.close();
    }
    while (!frames.some((f) => f.method === 'account_transaction') && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(frames).toEqual([
      { id: 1, jsonrpc: '2.0', method: 'subscribe_account', result: 'success! 1 new subscriptions created' },
      { jsonrpc: '2.0', method: 'gap', params: { error: 'history gap', last_event_id: '1700000000000000000', first_available_id: String(head + 1) } },
      { jsonrpc: '2.0', method: 'account_transaction', event_id: String(makePosition(3, 1)), params: { account_id: A, lt: 30, tx_hash: live.hash } },
    ]);
    ws.close();
  });
});

describe('operation names', () => {
  it('parses names case-insensitively into their opcodes, and hex opcodes', () => {
    expect(parseOperations('NftTransfer,jettontransfer,0x7362D09C')).toEqual(new Set([NFT_TRANSFER, 0x0f8a7ea5, 0x7362d09c]));
    expect(OPERATION_NAMES.TextComment).toEqual([0]);
    expect(OPERATION_NAMES.Excess).toEqual([0xd53276db]);
    for (const [name, ops] of Object.entries(OPERATION_NAMES)) {
      expect([...parseOperations(name)!], name).toEqual([...ops]);
      for (const op of ops) expect(Number.isInteger(op) && op >= 0 && op <= 0xffffffff, name).toBe(true);
    }
  });

  it('are generated from the ABI text: names with their opcodes, a name of several kinds with each, untagged names left out', () => {
    // the shape of tongo's declarations (names and opcodes are protocol facts; the text is ours)
    const abi = [
      'decodeFuncWalletSignedV4ExtInMsgBody = decodeMsg(tlb.Tag{Val: 0x00000000, Len: 0}, WalletSignedV4ExtInMsgOp, WalletSignedV4ExtInMsgBody{})',
      'const (',
      '\tNftTransferMsgOp MsgOpName = "NftTransfer"',
      '\tDedustSwapMsgOp MsgOpName = "DedustSwap"',
      '\tDedustSwapExtOutMsgOp MsgOpName = "DedustSwap"',
      '\tWalletSignedV4ExtInMsgOp MsgOpName = "WalletSignedV4"',
      ')',
      'const (',
      '\tNftTransferMsgOpCode MsgOpCode = 0x5fcc3d14',
      '\tDedustSwapMsgOpCode MsgOpCode = 0xea06185d',
      '\tDedustSwapExtOutMsgOpCode MsgOpCode = 0x9c610de3',
      '\tWalletSignedV4ExtInMsgOpCode MsgOpCode = 0x00000000',
      ')',
    ].join('\n');
    const table = parseMessageAbi(abi);
    expect([...table]).toEqual([
      ['DedustSwap', [0x9c610de3, 0xea06185d]],
      ['NftTransfer', [NFT_TRANSFER]],
    ]);
    expect(renderModule(table, 'abc')).toContain('  NftTransfer: [0x5fcc3d14],\n');
    expect(OPERATION_NAMES.DedustSwap).toEqual([0x9c610de3, 0xea06185d]);
    expect(OPERATION_NAMES.WalletSignedV4).toBeUndefined();
  });
});
