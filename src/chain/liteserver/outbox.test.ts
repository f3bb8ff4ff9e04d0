// The outbox of pending messages: bounded (the oldest added leaves first), expired oldest first after its
// ttl, a message added again moved to the newest end with a fresh expiry, and listed oldest first.
import { Address, beginCell, storeMessage } from '@ton/core';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PendingMessage, TransactionModel } from '../model.js';
import { pendingOf } from './heard.js';
import { Outbox, parseExternalMessage } from './outbox.js';

/** A real external-in message to a random account, as the outbox gets it. */
function pending(): PendingMessage {
  const info = { type: 'external-in' as const, dest: new Address(0, randomBytes(32)), importFee: 0n };
  const cell = beginCell().store(storeMessage({ info, body: beginCell().storeBuffer(randomBytes(8)).endCell() })).endCell();
  return pendingOf(parseExternalMessage(cell.toBoc()), null, 0);
}
const landedTx = (hash: string) => ({ inMessage: { hash } }) as unknown as TransactionModel;

function clocked(ttlMs: number, maxEntries?: number) {
  let now = 0;
  const outbox = new Outbox(ttlMs, () => now, maxEntries);
  return { outbox, at: (t: number) => (now = t), listed: () => outbox.list().map((m) => m.hash) };
}

describe('outbox', () => {
  it('keeps the newest `maxEntries` messages once filled far past its bound, oldest listed first', () => {
    const { outbox, listed } = clocked(60_000, 1_000);
    const messages = Array.from({ length: 3_000 }, pending);
    const heard: string[] = [];
    outbox.subscribe((m) => heard.push(m.hash));
    for (const m of messages) outbox.add(m);
    expect(heard).toEqual(messages.map((m) => m.hash));
    expect(listed()).toEqual(messages.slice(2_000).map((m) => m.hash));
    expect(outbox.has(messages[1_999]!.hash)).toBe(false);
    expect(outbox.has(messages[2_000]!.hash)).toBe(true);
  });

  it('expires messages after the ttl, oldest first, and a message added again gets a fresh expiry at the newest end', () => {
    const { outbox, at, listed } = clocked(1_000);
    const [a, b, c] = [pending(), pending(), pending()];
    outbox.add(a!);
    at(300);
    outbox.add(b!);
    at(600);
    outbox.add(a!); // sent again: pending until 1,600, after b
    outbox.add(c!);
    expect(listed()).toEqual([b!.hash, a!.hash, c!.hash]);
    at(1_299);
    expect(listed()).toEqual([b!.hash, a!.hash, c!.hash]);
    at(1_300);
    expect(outbox.has(b!.hash)).toBe(false);
    expect(listed()).toEqual([a!.hash, c!.hash]);
    at(1_600);
    expect(listed()).toEqual([]);
  });

  it('a message added again outlives, at the bound, messages added before it', () => {
    const { outbox, listed } = clocked(60_000, 2);
    const [a, b, c] = [pending(), pending(), pending()];
    outbox.add(a!);
    outbox.add(b!);
    outbox.add(a!);
    outbox.add(c!); // over the bound: b, the oldest added, leaves
    expect(listed()).toEqual([a!.hash, c!.hash]);
  });

  it('drops the messages walked transactions consumed, and keeps the emulated trace out of the entry', () => {
    const { outbox, listed } = clocked(60_000);
    const [a, b] = [pending(), pending()];
    outbox.add({ ...a!, emulated: { transactions: [], truncated: false } });
    outbox.add(b!);
    expect(outbox.list()[0]).not.toHaveProperty('emulated');
    outbox.landed([landedTx(a!.hash), landedTx('ff'.repeat(32))]);
    expect(listed()).toEqual([b!.hash]);
  });
});
