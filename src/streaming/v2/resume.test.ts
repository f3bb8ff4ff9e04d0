// Streaming v2 resume (beyond the anchors, docs/STREAMING.md "v2 resume"): a client killed 100 times at
// random moments while 10,000 transactions are appended, reconnecting with its last id, ends with every
// finalized notification exactly once and in order; an id older than the retained log gets an explicit
// `gap`; a WebSocket subscribe with `last_event_id` does the same. Real server, real SQLite log.
import { afterEach, describe, expect, it } from 'vitest';
import { account, transaction } from '../../../test/support/model.js';
import { dropTestStore, openTestStore } from '../../../test/support/stores.js';
import { blockBatch, startStreamTestbed, txEvent, type StreamTestbed } from '../../../test/support/streaming.js';
import { openSse, openWs, type V2Event } from '../../../test/support/v2-client.js';

const A = account(0xa1);
const PER_BLOCK = 20;

/** Block `seqno`: PER_BLOCK transactions of A, each its own trace. */
const block = (seqno: number) =>
  blockBatch(seqno, Array.from({ length: PER_BLOCK }, (_, i) => txEvent(transaction({ account: A, lt: BigInt(seqno * 1000 + i), mcSeqno: seqno }))));
const ltsOf = (e: V2Event) => (e.data.transactions as Array<{ lt: string }>).map((t) => t.lt);

describe('streaming v2 resume', () => {
  let bed: StreamTestbed;
  afterEach(async () => {
    await bed?.close();
    if (bed) await dropTestStore(bed.store);
  });

  it('a client killed 100 times during 10,000 transactions, resuming with its last id, gets each finalized notification once, in order', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite') });
    // a log that holds something (a client's first id from an empty log is -1, which a resume reports as a gap)
    await bed.append(blockBatch(1, [txEvent(transaction({ account: account(0xee), lt: 1n, mcSeqno: 1 }))]));
    const blocks = 10_000 / PER_BLOCK;
    const url = `${bed.url}/api/streaming/v2/sse`;
    const received: V2Event[] = [];
    let lastId: string | undefined;
    let appended = 0;
    let writer: Promise<void> | null = null;
    const write = async () => {
      for (let s = 2; s <= blocks + 1; s++) {
        await bed.append(block(s));
        appended = s;
        if (s % 5 === 0) await new Promise((r) => setTimeout(r, 2));
      }
    };
    let kills = 0;
    let random = 12345;
    const rand = (n: number) => ((random = (random * 1103515245 + 12345) % 2 ** 31), random % n);
    while (kills < 100 || received.length < 10_000) {
      let killAfter = kills < 100 ? 1 + rand(150) : Infinity;
      const s = await openSse(url, { types: ['transactions'], addresses: [A] }, {
        onEvent: (e) => {
          if (e.id) lastId = e.id; // every frame's id, `connected` too, as an SSE client keeps it
          if (e.event !== 'event') return;
          received.push(e);
          if (--killAfter === 0) s.abort();
        },
      }, { lastEventId: lastId });
      expect(s.status).toBe(200); // never refused: no key, and the anonymous limit is 5 streams per address
      writer ??= write(); // the first connection is live before anything is appended
      if (kills < 100) {
        // killed at a random moment: after some events, or after a random time
        await Promise.race([s.done, new Promise((r) => setTimeout(r, rand(40)))]);
        s.abort();
        kills++;
      } else {
        await writer;
        const until = Date.now() + 30_000;
        while (received.length < 10_000 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
        s.abort();
        break;
      }
    }
    await writer;
    expect(appended).toBe(blocks + 1);
    expect(kills).toBe(100);
    expect(received.filter((e) => e.data.type !== 'transactions')).toEqual([]);
    const lts = received.flatMap(ltsOf);
    const expected = Array.from({ length: blocks }, (_, b) => Array.from({ length: PER_BLOCK }, (_, i) => String((b + 2) * 1000 + i)).reverse()).flat();
    // each notification holds one trace's transaction; within a block the order is the log's (by position)
    expect(lts.length).toBe(10_000);
    expect(new Set(lts).size).toBe(10_000);
    const ids = received.map((e) => e.id!);
    const positions = ids.map((id) => Number(id.split('.')[0]));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(lts.sort()).toEqual(expected.sort());
  }, 180_000);

  it('an id older than the retained log gets an explicit gap, then the retained notifications; WS subscribe with last_event_id too', async () => {
    let now = 1_000_000;
    bed = await startStreamTestbed({ store: await openTestStore('sqlite'), retentionMs: 1000, now: () => now });
    for (let s = 1; s <= 3; s++) await bed.append(block(s));
    now += 5000;
    for (let s = 4; s <= 5; s++) await bed.append(block(s));
    expect(await bed.log.prune()).toBe(3);
    const events: V2Event[] = [];
    const s = await openSse(`${bed.url}/streaming/v2/sse`, { types: ['transactions'], addresses: [A] }, { onEvent: (e) => events.push(e) }, { lastEventId: '2000005.0' });
    const deadline = Date.now() + 10_000;
    while (events.length < 2 + 2 * PER_BLOCK && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    s.abort();
    expect(events[1]).toEqual({ event: 'event', id: '3999999.9', data: { type: 'gap', last_event_id: '2000005.0', first_available: '4000000.0' } });
    expect(events.slice(2).map((e) => e.id)).toEqual([4, 5].flatMap((b) => Array.from({ length: PER_BLOCK }, (_, i) => `${b * 1_000_000 + i}.0`)));

    const ws = await openWs(bed.url.replace('http', 'ws') + '/api/streaming/v2/ws');
    expect(await ws.request({ operation: 'subscribe', types: ['transactions'], addresses: [A], last_event_id: '5000017.0', id: 'r' })).toEqual({ id: 'r', status: 'subscribed' });
    const end = Date.now() + 10_000;
    while (ws.notifications.length < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(ws.notifications.map((n) => n.event_id)).toEqual(['5000018.0', '5000019.0']);
    expect(await ws.request({ operation: 'subscribe', types: ['transactions'], addresses: [A], last_event_id: 'yesterday', id: 'b' })).toEqual({
      id: 'b',
      error: 'invalid last_event_id: an id this server sent (`<position>.<kind>` or `<position>.<kind>~<sequence>`)',
    });
    ws.close();
  });
});
