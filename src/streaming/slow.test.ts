// Backpressure: a client that stops reading never delays the others; once its bounded buffer is
// full it gets the explicit final event and is closed, and the server holds no more than the bound.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { account, blockHeader, transaction } from '../../test/support/model.js';
import { dropTestStore, openTestStore } from '../../test/support/stores.js';
import type { EventBatch } from '../bus/events.js';
import type { StreamConnection } from './connection.js';
import { blockBatch, blockEvent, openRawStream, sseMessages, startStreamTestbed, txEvent, type StreamTestbed } from '../../test/support/streaming.js';

const BUFFER = 64 * 1024;
const TX_PER_BATCH = 1500;

function bigBatch(seqno: number): EventBatch {
  const txs = Array.from({ length: TX_PER_BATCH }, (_, i) => txEvent(transaction({ account: account(i + 1), lt: BigInt(seqno * 100_000 + i), mcSeqno: seqno })));
  return blockBatch(seqno, [blockEvent(blockHeader(seqno)), ...txs]);
}

async function slowCloses(bed: StreamTestbed): Promise<number> {
  const metric = await bed.metrics.getSingleMetric('tonwatch_stream_slow_consumer_closes_total')!.get();
  return metric.values.reduce((sum, v) => sum + v.value, 0);
}

/** Appends big batches until the stalled client is closed, checking the healthy one keeps up and buffers stay bounded. */
async function pushUntilSlowClose(bed: StreamTestbed, healthy: { count(): number }, perBatch: number) {
  let maxBuffered = 0;
  let maxLagMs = 0;
  let seqno = 0;
  while ((await slowCloses(bed)) === 0) {
    if (seqno >= 400) throw new Error('the stalled client was never closed');
    seqno++;
    const started = Date.now();
    await bed.append(bigBatch(seqno));
    for (const c of bed.streaming.hub.connections as Set<StreamConnection>) maxBuffered = Math.max(maxBuffered, c.bufferedBytes());
    const expected = seqno * perBatch;
    const end = Date.now() + 10_000;
    while (healthy.count() < expected) {
      if (Date.now() > end) throw new Error(`healthy client stuck at ${healthy.count()} of ${expected}`);
      await new Promise((r) => setTimeout(r, 1));
    }
    maxLagMs = Math.max(maxLagMs, Date.now() - started);
  }
  return { batches: seqno, maxBuffered, maxLagMs };
}

describe('slow consumers', () => {
  let bed: StreamTestbed;
  afterEach(async () => {
    await bed?.close();
    await dropTestStore(bed.store);
  });

  it('SSE: the stalled client is closed with event: error / slow consumer; the other receives everything meanwhile', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite'), config: { streamBufferBytes: BUFFER } });
    const port = Number(new URL(bed.url).port);
    const stalled = net.connect(port, '127.0.0.1');
    let raw = '';
    stalled.setEncoding('utf8');
    stalled.on('data', (d: string) => (raw += d));
    stalled.write(`GET /v2/sse/accounts/transactions?accounts=ALL HTTP/1.1\r\nHost: test\r\n\r\n`);
    const end = Date.now() + 5000;
    while (!raw.includes('event: heartbeat') && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    stalled.pause(); // stops reading: the kernel buffers fill, then the server's

    const healthy = await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=ALL`);
    let received = 0;
    let scanned = 0;
    const count = () => {
      const text = healthy.text();
      for (let i = text.indexOf('event: message', scanned); i >= 0; i = text.indexOf('event: message', i + 1)) {
        received++;
        scanned = i + 1;
      }
      return received;
    };
    const run = await pushUntilSlowClose(bed, { count }, TX_PER_BATCH);
    expect(run.batches).toBeGreaterThan(1);
    // Bounded: never more than the limit plus one batch's frames for that connection.
    expect(run.maxBuffered).toBeLessThan(BUFFER + TX_PER_BATCH * 300);
    expect(run.maxLagMs).toBeLessThan(5000);
    // The stalled connection is out of the index, waiting for its peer to take the final event.
    const open = [...(bed.streaming.hub.connections as Set<StreamConnection>)];
    expect(open.filter((c) => c.closing).length).toBe(1);
    expect(open.filter((c) => c.closing)[0]!.index).toBeNull();

    // The stalled client reads again: what was buffered, then the final event, then the end.
    const closed = new Promise<void>((resolve) => stalled.once('close', () => resolve()));
    stalled.resume();
    await closed;
    expect(raw.endsWith('event: error\ndata: {"error":"slow consumer"}\n\n\r\n0\r\n\r\n')).toBe(true);
    // The healthy stream got every event, in order.
    const ids = sseMessages(healthy.text()).filter((m) => m.event === 'message').map((m) => Number(m.id));
    expect(ids.length).toBe(run.batches * TX_PER_BATCH);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    healthy.close();
  });

  it('WebSocket: the paused client gets the final error notification and close 1008; the other keeps receiving', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite'), config: { streamBufferBytes: BUFFER } });
    const wsUrl = `${bed.url.replace('http', 'ws')}/v2/websocket`;
    const accounts = Array.from({ length: 1000 }, (_, i) => account(i + 1));
    const open = async () => {
      const ws = new WebSocket(wsUrl);
      const frames: string[] = [];
      ws.on('message', (d) => frames.push(d.toString()));
      await new Promise((r) => ws.once('open', r));
      ws.send(JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'subscribe_account', params: accounts }));
      while (frames.length === 0) await new Promise((r) => setTimeout(r, 5));
      return { ws, frames };
    };
    const stalled = await open();
    const healthy = await open();
    stalled.ws.pause();
    const closedWith = new Promise<number>((resolve) => stalled.ws.once('close', (code) => resolve(code)));
    const run = await pushUntilSlowClose(bed, { count: () => healthy.frames.length - 1 }, 1000);
    expect(run.maxBuffered).toBeLessThan(BUFFER + 1000 * 300);
    stalled.ws.resume();
    expect(await closedWith).toBe(1008);
    expect(stalled.frames.at(-1)).toBe('{"jsonrpc":"2.0","method":"error","params":{"error":"slow consumer"}}\n');
    const notifications = healthy.frames.slice(1).map((f) => JSON.parse(f));
    expect(notifications.filter((n) => n.method !== 'account_transaction')).toEqual([]);
    expect(notifications.length).toBe(run.batches * 1000);
    healthy.ws.close();
  });
});
