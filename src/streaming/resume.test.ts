// Resume from an event id over SSE (Last-Event-ID header or last_event_id) and WebSocket
// (`last_event_id=` item): exactly the missed events, in order, then live — also while batches
// keep arriving during the replay, and from history that left memory — and `gap` past retention.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { account, blockHeader, transaction } from '../../test/support/model.js';
import { dialects, dropTestStore, openTestStore } from '../../test/support/stores.js';
import { makePosition, type EventBatch } from '../bus/events.js';
import { blockBatch, blockEvent, openRawStream, sseMessages, startStreamTestbed, txEvent, type StreamTestbed } from '../../test/support/streaming.js';

const A = account(1);
const B = account(2);

/** Block `seqno` with a block event and one transaction of A and one of B. */
function batch(seqno: number): EventBatch {
  return blockBatch(seqno, [
    blockEvent(blockHeader(seqno)),
    txEvent(transaction({ account: A, lt: BigInt(seqno * 10 + 1), mcSeqno: seqno })),
    txEvent(transaction({ account: B, lt: BigInt(seqno * 10 + 2), mcSeqno: seqno })),
  ]);
}
/** Positions A's transactions get in blocks `from`..`to`. */
const positionsOfA = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => makePosition(from + i, 1));

const messageIds = (text: string) => sseMessages(text).filter((m) => m.event === 'message').map((m) => Number(m.id));

describe.each(dialects)('resume on %s', (dialect) => {
  let bed: StreamTestbed;
  afterEach(async () => {
    await bed?.close();
    await dropTestStore(bed.store);
  });

  it('SSE: a client that reconnects with Last-Event-ID gets exactly the missed events in order, then live', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect) });
    const url = `${bed.url}/v2/sse/accounts/transactions?accounts=${A}`;
    const first = await openRawStream(url);
    for (let s = 1; s <= 3; s++) await bed.append(batch(s));
    const seen = messageIds(await first.until((t) => messageIds(t).length === 3));
    expect(seen).toEqual(positionsOfA(1, 3));
    first.close();
    // Missed while away: 20 blocks, more than the 8 the log keeps in memory (the replay reads the store).
    for (let s = 4; s <= 23; s++) await bed.append(batch(s));
    const again = await openRawStream(url, { headers: { 'last-event-id': String(seen.at(-1)) } });
    await again.until((t) => messageIds(t).length === 20);
    await bed.append(batch(24));
    const text = await again.until((t) => messageIds(t).length === 21);
    expect(messageIds(text)).toEqual(positionsOfA(4, 24));
    expect(text.startsWith('event: heartbeat\n\n')).toBe(true);
    again.close();
    // last_event_id in the query does the same on a first connect; the header wins over it.
    const byQuery = await openRawStream(`${url}&last_event_id=${makePosition(22, 1)}`);
    expect(messageIds(await byQuery.until((t) => messageIds(t).length === 2))).toEqual(positionsOfA(23, 24));
    const both = await openRawStream(`${url}&last_event_id=${makePosition(1, 0)}`, { headers: { 'last-event-id': String(makePosition(23, 1)) } });
    expect(messageIds(await both.until((t) => messageIds(t).length === 1))).toEqual(positionsOfA(24, 24));
    byQuery.close();
    both.close();
    const metrics = await bed.metrics.getSingleMetric('tonwatch_stream_resume_replays_total')!.get();
    expect(metrics.values.find((v) => v.labels.transport === 'sse')?.value).toBe(3);
  });

  it('SSE: no gap and no duplicate when batches keep arriving while the replay runs', async () => {
    bed = await startStreamTestbed({ store: await openTestStore(dialect), hub: { replayPageSize: 2 } });
    for (let s = 1; s <= 30; s++) await bed.append(batch(s));
    const appending = (async () => {
      for (let s = 31; s <= 90; s++) {
        await bed.append(batch(s));
        if (s % 3 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    const stream = await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=${A}`, { headers: { 'last-event-id': String(makePosition(5, 1)) } });
    await appending;
    const text = await stream.until((t) => messageIds(t).length >= 85);
    expect(messageIds(text)).toEqual(positionsOfA(6, 90));
    stream.close();
  });

  it('SSE: an id older than the retained history yields an explicit gap event, then the retained events', async () => {
    let now = 1_000_000;
    bed = await startStreamTestbed({ store: await openTestStore(dialect), retentionMs: 1000, now: () => now });
    for (let s = 1; s <= 3; s++) await bed.append(batch(s));
    now += 5000;
    for (let s = 4; s <= 5; s++) await bed.append(batch(s));
    expect(await bed.log.prune()).toBe(3);
    const stream = await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=${A}`, { headers: { 'last-event-id': String(makePosition(2, 1)) } });
    const text = await stream.until((t) => messageIds(t).length === 2);
    const oldest = makePosition(4, 0);
    expect(text).toBe(
      'event: heartbeat\n\n' +
        `event: gap\nid: ${oldest - 1}\ndata: {"error":"history gap","last_event_id":"${makePosition(2, 1)}","first_available_id":"${oldest}"}\n\n` +
        sseMessages(text)
          .filter((m) => m.event === 'message')
          .map((m) => `event: message\nid: ${m.id}\ndata: ${m.data}\n\n`)
          .join(''),
    );
    expect(messageIds(text)).toEqual(positionsOfA(4, 5));
    stream.close();
    const gaps = await bed.metrics.getSingleMetric('tonwatch_stream_resume_gaps_total')!.get();
    expect(gaps.values[0]?.value).toBe(1);
  });

  it('WebSocket: a subscribe with last_event_id replays, then goes live; a gap is announced; rewinding is refused', async () => {
    let now = 1_000_000;
    bed = await startStreamTestbed({ store: await openTestStore(dialect), retentionMs: 1000, now: () => now });
    for (let s = 1; s <= 2; s++) await bed.append(batch(s));
    now += 5000;
    for (let s = 3; s <= 12; s++) await bed.append(batch(s));
    await bed.log.prune();
    const ws = new WebSocket(`${bed.url.replace('http', 'ws')}/v2/websocket`);
    const frames: any[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
    await new Promise((r) => ws.once('open', r));
    const wait = async (cond: () => boolean) => {
      const end = Date.now() + 5000;
      while (!cond()) {
        if (Date.now() > end) throw new Error(`timeout; frames ${JSON.stringify(frames).slice(-800)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    ws.send(JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'subscribe_account', params: [A, `last_event_id=${makePosition(10, 1)}`] }));
    await wait(() => frames.filter((f) => f.method === 'account_transaction').length === 2);
    expect(frames[0]).toEqual({ id: 1, jsonrpc: '2.0', method: 'subscribe_account', result: 'success! 1 new subscriptions created' });
    expect(frames.slice(1).map((f) => f.event_id)).toEqual(positionsOfA(11, 12).map(String));
    // The same connection adds B from an earlier point: allowed only if nothing later was sent.
    ws.send(JSON.stringify({ id: 2, jsonrpc: '2.0', method: 'subscribe_account', params: [B, `last_event_id=${makePosition(3, 0)}`] }));
    await wait(() => frames.some((f) => f.id === 2));
    expect(frames.find((f) => f.id === 2).result).toMatch(/^failed to process params: last_event_id \d+ is before the last event sent on this connection/);
    // Blocks from the current position on: allowed (nothing later was sent), then live.
    ws.send(JSON.stringify({ id: 3, jsonrpc: '2.0', method: 'subscribe_block', params: ['workchain=-1', `last_event_id=${makePosition(12, 2)}`] }));
    await wait(() => frames.some((f) => f.id === 3));
    await bed.append(batch(13));
    await wait(() => frames.filter((f) => f.method === 'account_transaction').length === 3 && frames.some((f) => f.method === 'block'));
    expect(frames.filter((f) => f.method === 'block').map((f) => f.params.seqno)).toEqual([13]);
    const ids = frames.filter((f) => f.event_id).map((f) => Number(f.event_id));
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    ws.close();

    const late = new WebSocket(`${bed.url.replace('http', 'ws')}/v2/websocket`);
    const lateFrames: any[] = [];
    late.on('message', (d) => lateFrames.push(JSON.parse(d.toString())));
    await new Promise((r) => late.once('open', r));
    late.send(JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'subscribe_account', params: [B, `last_event_id=${makePosition(1, 2)}`] }));
    const end = Date.now() + 5000;
    while (lateFrames.filter((f) => f.method === 'account_transaction').length < 11 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    const gap = lateFrames.find((f) => f.method === 'gap');
    expect(gap).toEqual({
      jsonrpc: '2.0',
      method: 'gap',
      params: { error: 'history gap', last_event_id: String(makePosition(1, 2)), first_available_id: String(makePosition(3, 0)) },
    });
    expect(lateFrames.filter((f) => f.method === 'account_transaction').map((f) => f.params.lt)).toEqual(
      Array.from({ length: 11 }, (_, i) => (i + 3) * 10 + 2),
    );
    late.close();
  });
});
