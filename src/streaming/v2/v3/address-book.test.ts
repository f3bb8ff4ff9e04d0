// The address book's row cache at its bound: the newest written rows stay, the oldest written leave first.
import { describe, expect, it } from 'vitest';
import { toFriendly } from '../../../chain/address.js';
import { AddressBookBuilder } from './address-book.js';

const account = (i: number) => `0:${i.toString(16).padStart(64, '0')}`;

/** A builder over code-less accounts that counts how often it had to read an account's code. */
function counted(maxEntries: number, ttlMs = 60_000) {
  let now = 0;
  const reads: string[] = [];
  const builder = new AddressBookBuilder({ codeHash: async (a) => (reads.push(a), null), testOnly: false, maxEntries, ttlMs, now: () => now });
  return { builder, reads, at: (t: number) => (now = t) };
}

describe('address book cache', () => {
  it('keeps the newest `maxEntries` rows once filled far past its bound', async () => {
    const { builder, reads } = counted(1_000);
    for (let i = 0; i < 5_000; i++) await builder.row(account(i));
    expect(reads).toHaveLength(5_000);
    for (let i = 4_000; i < 5_000; i++) expect(await builder.row(account(i))).toEqual({ user_friendly: toFriendly(account(i), { bounceable: false, testOnly: false }), domain: null, interfaces: null });
    expect(reads).toHaveLength(5_000);
    await builder.row(account(3_999));
    expect(reads.slice(5_000)).toEqual([account(3_999)]);
  });

  it('a row rebuilt after its age moves to the newest end and outlives rows written before it', async () => {
    const { builder, reads, at } = counted(3, 1_000);
    await builder.row(account(0));
    at(500);
    await builder.row(account(1));
    await builder.row(account(2));
    at(1_000);
    await builder.row(account(0)); // aged out: read again, now the newest
    await builder.row(account(3)); // over the bound: account 1, the oldest written, leaves
    expect(reads).toEqual([0, 1, 2, 0, 3].map(account));
    await builder.row(account(0));
    await builder.row(account(2));
    await builder.row(account(3));
    expect(reads).toHaveLength(5);
    await builder.row(account(1));
    expect(reads.slice(5)).toEqual([account(1)]);
  });
});
