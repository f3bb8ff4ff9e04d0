// The normalised hash from the decoded model (hashed by hand from the body's hash and depth) against the
// definition (the message rebuilt with @ton/core and hashed), over bodies of every shape and both chains.
import { randomBytes } from 'node:crypto';
import { Address, beginCell, storeMessage, type Cell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { decodeMessage } from './decode/message.js';
import { normalizedExternalHash, normalizedHashOfModel } from './message-boc.js';
import type { AccountId } from './model.js';

/** A random body: up to 1023 bits, up to 4 references nested a few levels (its depth varies). */
function randomBody(depth: number): Cell {
  const b = beginCell();
  const bits = Math.floor(Math.random() * 1024);
  for (let left = bits; left > 0; left -= Math.min(32, left)) b.storeUint(randomBytes(4).readUInt32BE() >>> (32 - Math.min(32, left)), Math.min(32, left));
  const refs = depth > 0 ? Math.floor(Math.random() * 5) : 0;
  for (let k = 0; k < refs; k++) b.storeRef(randomBody(depth - 1));
  return b.endCell();
}

function external(destination: AccountId, body: Cell, inline: boolean): Cell {
  const message = { info: { type: 'external-in' as const, src: null, dest: Address.parseRaw(destination), importFee: 0n }, init: null, body };
  return beginCell().store(storeMessage(message, { forceRef: !inline })).endCell();
}

describe('normalizedHashOfModel', () => {
  it('equals the rebuilt message’s hash for random bodies, basechain and masterchain destinations', () => {
    for (let i = 0; i < 200; i++) {
      const destination = `${i % 2 === 0 ? 0 : -1}:${randomBytes(32).toString('hex')}` as AccountId;
      const body = randomBody(i % 4);
      const model = decodeMessage(external(destination, body, i % 3 === 0 && body.bits.length < 600 && body.refs.length === 0));
      expect(normalizedHashOfModel(model)).toBe(normalizedExternalHash(destination, body));
    }
  });

  it('keeps leading zero bytes of the address and the empty body', () => {
    const destination = `0:${'00'.repeat(31)}01` as AccountId;
    const empty = beginCell().endCell();
    expect(normalizedHashOfModel(decodeMessage(external(destination, empty, false)))).toBe(normalizedExternalHash(destination, empty));
  });
});
