// The trace assembler over a real event log (SQLite): a trace spanning blocks is assembled the same from
// memory and, for a process that did not keep its blocks (a restart, a replay older than its memory), by
// reading the log back from the trace's first block; never beyond the window, never from a pruned log.
import { beginCell, Cell } from '@ton/core';
import { accountToAddress } from '../../chain/address.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../bus/events.js';
import { account, message, transaction } from '../../../test/support/model.js';
import { dropTestStore, openTestStore } from '../../../test/support/stores.js';
import { blockBatch, startStreamTestbed, traceEvent, txEvent, type StreamTestbed } from '../../../test/support/streaming.js';
import { openSse, type V2Event } from '../../../test/support/v2-client.js';
import { TraceAssembler } from './traces.js';

const [A, B, C] = [account(0xa1), account(0xb2), account(0xc3)];
const body = beginCell().storeUint(0, 32).storeStringTail('hi').endCell().toBoc().toString('base64');

/** A → B → C over three blocks starting at `seqno`, the follower's trace event in the last. */
function hops(seqno: number) {
  const ext = { ...message(`e${seqno % 10}`.repeat(32), 'external-in', null, A), bodyBoc: body };
  const ab = { ...message(`a${seqno % 10}`.repeat(32), 'internal', A, B), value: 5n };
  const bc = { ...message(`b${seqno % 10}`.repeat(32), 'internal', B, C), value: 3n };
  const txs = [
    transaction({ account: A, lt: BigInt(seqno * 100), inMsg: ext, out: [ab], mcSeqno: seqno }),
    transaction({ account: B, lt: BigInt(seqno * 100 + 10), inMsg: ab, out: [bc], mcSeqno: seqno + 1 }),
    transaction({ account: C, lt: BigInt(seqno * 100 + 20), inMsg: bc, mcSeqno: seqno + 2 }),
  ];
  const trace = { hash: txs[0]!.hash, accounts: [A, B, C].sort(), transactions: txs.map((t) => t.hash), startMcSeqno: seqno, endMcSeqno: seqno + 2 };
  return [blockBatch(seqno, [txEvent(txs[0]!)]), blockBatch(seqno + 1, [txEvent(txs[1]!)]), blockBatch(seqno + 2, [txEvent(txs[2]!), traceEvent(trace)])];
}
const traceEventOf = (batch: ReturnType<typeof blockBatch>) => batch.events.find((e) => e.type === 'trace') as TraceEvent;

describe('TraceAssembler', () => {
  let bed: StreamTestbed;
  afterEach(async () => {
    await bed?.close();
    if (bed) await dropTestStore(bed.store);
  });

  it('assembles a trace spanning blocks from memory and, without it, from the log: the same content', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite') });
    const batches = hops(10);
    for (const b of batches) await bed.append(b);
    const live = new TraceAssembler({ log: bed.log, facts: null });
    for (const b of batches) live.observe(b);
    const fromMemory = await live.complete(traceEventOf(batches[2]!));
    const cold = new TraceAssembler({ log: bed.log, facts: null });
    const [read] = await bed.log.readAfter(batches[2]!.firstPosition - 1, 1);
    const fromLog = await cold.complete(traceEventOf(read!));
    expect(cold.size).toBe(0);
    expect(fromMemory).not.toBeNull();
    expect(fromLog).toEqual(fromMemory);
    expect(fromMemory!.classified).toBe(true);
    expect(fromMemory!.position).toBe(batches[2]!.lastPosition);
    expect(Object.keys(fromMemory!.content.transactionMap)).toHaveLength(3);
    expect(fromMemory!.content.actions.map((a) => a.type).sort()).toEqual(['ton_transfer', 'ton_transfer']);
  });

  it('keeps only the window in memory; a trace spanning more than the window, or whose blocks were pruned, is not assembled', async () => {
    let now = 1_000_000;
    bed = await startStreamTestbed({ store: await openTestStore('sqlite'), retentionMs: 1000, now: () => now });
    const early = hops(10);
    for (const b of early) await bed.append(b);
    now += 5000;
    const late = hops(20);
    for (const b of late) await bed.append(b);
    const small = new TraceAssembler({ log: bed.log, facts: null, windowBlocks: 1 });
    for (const b of [...early, ...late]) small.observe(b);
    expect(small.size).toBe(2); // the last two blocks' transactions
    expect(await small.complete(traceEventOf(late[2]!))).toBeNull(); // spans 2 blocks > 1
    expect(await new TraceAssembler({ log: bed.log, facts: null }).complete(traceEventOf(late[2]!))).not.toBeNull();
    // past the log's in-memory recent batches, then pruned: the early blocks are gone
    for (let s = 30; s < 40; s++) await bed.append(blockBatch(s, [txEvent(transaction({ account: A, lt: BigInt(s * 100), mcSeqno: s }))]));
    expect(await bed.log.prune()).toBe(3);
    expect(await new TraceAssembler({ log: bed.log, facts: null }).complete(traceEventOf(early[2]!))).toBeNull();
  });

  it('trace_external_hash_norm of a block whose trace started before any client, or before a restart, within the window', async () => {
    const store = await openTestStore('sqlite');
    bed = await startStreamTestbed({ store });
    const [first, second, third] = hops(10);
    await bed.append(first!); // no v2 client yet
    const seen: V2Event[] = [];
    const live = await openSse(`${bed.url}/streaming/v2/sse`, { types: ['transactions'], addresses: [B] }, { onEvent: (e) => seen.push(e) });
    await bed.append(second!);
    const wait = async (list: V2Event[], n: number) => {
      const end = Date.now() + 10_000;
      while (list.filter((e) => e.event === 'event').length < n && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
      return list.filter((e) => e.event === 'event');
    };
    // TEP-467 computed here: the external rebuilt with src addr_none, import_fee 0, no init, body in a ref
    const ext = (first!.events[0] as { tx: ReturnType<typeof transaction> }).tx.inMessage!;
    const norm = beginCell().storeUint(2, 2).storeUint(0, 2).storeAddress(accountToAddress(ext.destination!)).storeCoins(0).storeBit(0).storeBit(1).storeRef(Cell.fromBase64(ext.bodyBoc!)).endCell().hash().toString('base64');
    expect((await wait(seen, 1)).map((e) => e.data.trace_external_hash_norm)).toEqual([norm]);
    live.abort();
    await bed.close();

    // a new process over the same log: it reads the window back at start and before an older cursor
    bed = await startStreamTestbed({ store });
    const resumed: V2Event[] = [];
    const r = await openSse(`${bed.url}/streaming/v2/sse`, { types: ['transactions', 'actions'], addresses: [B, C] }, { onEvent: (e) => resumed.push(e) }, { lastEventId: `${first!.lastPosition}.9` });
    await bed.append(third!);
    const got = await wait(resumed, 3);
    // the completion's id is the log's trace event's: what any process over this log sends
    expect(got.map((e) => [e.id, e.data.type, e.data.trace_external_hash_norm])).toEqual([
      [`${second!.firstPosition}.0`, 'transactions', norm],
      [`${third!.firstPosition}.0`, 'transactions', norm],
      [`${third!.lastPosition}.2`, 'actions', norm],
    ]);
    expect((got[2]!.data.actions as Array<{ type: string }>).map((a) => a.type)).toEqual(['ton_transfer', 'ton_transfer']);
    r.abort();
  });
});
