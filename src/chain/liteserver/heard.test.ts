// Heard overlay messages becoming pending messages: emulated within a budget (published without a trace
// past it), heard twice counted once, a message a block held before its emulation ended never published,
// a full queue dropping, and lead times from hearing to the walked block.
import { Address, beginCell, storeMessage } from '@ton/core';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PendingMessage, TransactionModel } from '../model.js';
import { HeardMessages, type Trace } from './heard.js';
import { Outbox } from './outbox.js';

function extBoc(dest = new Address(0, randomBytes(32))): { boc: Buffer; hash: string } {
  const info = { type: 'external-in' as const, dest, importFee: 0n };
  const cell = beginCell().store(storeMessage({ info, body: beginCell().storeUint(randomBytes(4).readUInt32BE(0), 32).endCell() })).endCell();
  return { boc: cell.toBoc(), hash: cell.hash().toString('hex') };
}
const landedTx = (hash: string) => ({ inMessage: { hash } }) as unknown as TransactionModel;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setup(emulate: (hash: string, deadline: number) => Promise<Trace>, opts: Partial<{ maxQueued: number; emulationBudgetMs: number; concurrency: number }> = {}) {
  const outbox = new Outbox(60_000);
  const published: PendingMessage[] = [];
  outbox.subscribe((m) => published.push(m));
  const heard = new HeardMessages(outbox, (msg, deadline) => emulate(msg.hash, deadline), { maxQueued: 10, concurrency: 2, maxTracked: 100, emulationBudgetMs: 200, ...opts });
  return { heard, published };
}
const trace = (account: string): Trace => ({ transactions: [{ account } as TransactionModel], opcodes: [7], accounts: [account] });

describe('heard overlay messages', () => {
  it('publishes each once with its trace, counts duplicates and non-messages, measures lead time', async () => {
    const deadlines: number[] = [];
    const { heard, published } = setup(async (_hash, deadline) => (deadlines.push(deadline), trace('0:aa')));
    const m = extBoc();
    const heardAt = Date.now();
    heard.hear(m.boc, heardAt);
    heard.hear(m.boc, Date.now());
    heard.hear(Buffer.from('not a boc'), Date.now());
    await sleep(20);
    heard.hear(m.boc, Date.now());
    expect(published).toHaveLength(1);
    expect(published[0]).toMatchObject({ hash: m.hash, involvedAccounts: ['0:aa'], opcodes: [7], origin: 'overlay' });
    // the emulation is told to stop running hops before the budget (200 ms) ends, so a partial trace comes in time
    expect(deadlines).toHaveLength(1);
    expect(deadlines[0]! - heardAt).toBeGreaterThan(0);
    expect(deadlines[0]! - heardAt).toBeLessThan(200);
    await sleep(30);
    heard.landed([landedTx(m.hash)]);
    const s = heard.status();
    expect(s).toMatchObject({ published: 1, unemulated: 0, duplicate: 2, invalid: 1, landed: 1, late: 0 });
    expect(s.leadMs!.p50).toBeGreaterThanOrEqual(40);
  });

  it('an emulation past its budget: published without a trace at the budget', async () => {
    let emulated = false;
    const { heard, published } = setup(() => sleep(3000).then(() => ((emulated = true), trace('0:bb'))), { emulationBudgetMs: 100 });
    const m = extBoc();
    heard.hear(m.boc, Date.now());
    expect(published).toHaveLength(0);
    while (published.length === 0) await sleep(10);
    expect(emulated).toBe(false);
    expect(published).toHaveLength(1);
    expect(published[0]!.involvedAccounts).toBeNull();
    expect(heard.status()).toMatchObject({ published: 1, unemulated: 1 });
  });

  it('a non-final block that holds a message still being emulated or queued: published at once without a trace, once', async () => {
    let finish = () => {};
    const { heard, published } = setup(() => new Promise<Trace>((resolve) => (finish = () => resolve(trace('0:dd')))), { emulationBudgetMs: 60_000, concurrency: 1 });
    const [a, b, c] = [extBoc(), extBoc(), extBoc()];
    for (const m of [a, b, c]) heard.hear(m!.boc, Date.now());
    expect(published).toHaveLength(0);
    // a is being emulated, b and c wait; the block holds a and b
    heard.inBlock([landedTx(a!.hash), landedTx(b!.hash), landedTx(extBoc().hash)]);
    expect(published.map((p) => [p.hash, p.involvedAccounts])).toEqual([[a!.hash, null], [b!.hash, null]]);
    finish();
    await sleep(20);
    // a's emulation ended after: not published again; c went to emulation and came with its trace
    finish();
    await sleep(20);
    expect(published.map((p) => [p.hash, p.involvedAccounts])).toEqual([[a!.hash, null], [b!.hash, null], [c!.hash, ['0:dd']]]);
    heard.inBlock([landedTx(c!.hash)]);
    expect(heard.status()).toMatchObject({ published: 3, unemulated: 2, flushed: 2, queued: 0 });
  });

  it('one emulation per destination at a time: a wallet\'s second message waits for its first, others pass it', async () => {
    const started: string[] = [];
    const ends = new Map<string, () => void>();
    const { heard, published } = setup((hash) => new Promise<Trace>((resolve) => {
      started.push(hash);
      ends.set(hash, () => resolve(trace('0:ee')));
    }), { emulationBudgetMs: 60_000, concurrency: 2 });
    const wallet = new Address(0, randomBytes(32));
    const [a1, a2, b] = [extBoc(wallet), extBoc(wallet), extBoc()];
    for (const m of [a1, a2, b]) heard.hear(m!.boc, Date.now());
    expect(started).toEqual([a1!.hash, b!.hash]);
    ends.get(a1!.hash)!();
    await sleep(20);
    expect(started).toEqual([a1!.hash, b!.hash, a2!.hash]);
    ends.get(b!.hash)!();
    ends.get(a2!.hash)!();
    await sleep(20);
    expect(published.map((p) => p.hash)).toEqual([a1!.hash, b!.hash, a2!.hash]);
  });

  it('a block that holds the message before its emulation ends: never published; a full queue drops', async () => {
    const { heard, published } = setup(() => sleep(100).then(() => trace('0:cc')), { emulationBudgetMs: 1000, concurrency: 1, maxQueued: 2 });
    const [a, b, c, d] = [extBoc(), extBoc(), extBoc(), extBoc()];
    for (const m of [a, b, c, d]) heard.hear(m!.boc, Date.now());
    heard.landed([landedTx(a!.hash)]);
    await sleep(400);
    expect(published.map((p) => p.hash)).toEqual([b!.hash, c!.hash]);
    expect(heard.status()).toMatchObject({ late: 1, dropped: 1, published: 2 });
  });
});
