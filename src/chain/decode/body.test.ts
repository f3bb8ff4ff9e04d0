import { randomBytes } from 'node:crypto';
import { beginCell, Cell, type Builder } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { decodeBody } from './body.js';
import { OP } from './opcode.js';

describe('decodeBody', () => {
  it('empty body', () => {
    expect(decodeBody(beginCell().endCell())).toEqual({ kind: 'empty' });
  });

  it('bounced bodies expose the original opcode', () => {
    const bounced = beginCell().storeUint(OP.bounced, 32).storeUint(OP.jettonInternalTransfer, 32).storeUint(5, 64).endCell();
    expect(decodeBody(bounced)).toEqual({ kind: 'bounced', originalOpcode: OP.jettonInternalTransfer });
    expect(decodeBody(beginCell().storeUint(OP.bounced, 32).endCell())).toEqual({ kind: 'bounced', originalOpcode: null });
  });

  it('new_bounce_body#fffffffe carries the original body in a ref', () => {
    const original = beginCell().storeUint(OP.jettonTransfer, 32).storeUint(7, 64).endCell();
    const info = beginCell().storeCoins(1_000_000_000n).storeBit(false).storeUint(49_000_000_000_001n, 64).storeUint(1_760_000_000, 32).endCell();
    const computeFailed = beginCell().storeUint(OP.newBounced, 32).storeRef(original).storeRef(info).storeUint(1, 8).storeInt(33, 32);
    expect(decodeBody(computeFailed.storeBit(true).storeUint(2100, 32).storeUint(60, 32).endCell())).toEqual({ kind: 'bounced', originalOpcode: OP.jettonTransfer });
    const skipped = beginCell().storeUint(OP.newBounced, 32).storeRef(beginCell().endCell()).storeRef(info).storeUint(0, 8).storeInt(-1, 32).storeBit(false).endCell();
    expect(decodeBody(skipped)).toEqual({ kind: 'bounced', originalOpcode: null });
    // Without its two refs it is not a new bounce body: the reason names the field.
    expect(decodeBody(beginCell().storeUint(OP.newBounced, 32).endCell())).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/original_body/) });
  });

  it('unknown but well-formed opcodes are binary', () => {
    expect(decodeBody(beginCell().storeUint(0x12345678, 32).storeUint(1, 100).endCell())).toEqual({ kind: 'binary', opcode: 0x12345678 });
    expect(decodeBody(beginCell().storeUint(OP.provideWalletAddress, 32).endCell())).toEqual({ kind: 'binary', opcode: OP.provideWalletAddress });
  });

  it('a body shorter than an opcode is unknown with the reason', () => {
    expect(decodeBody(beginCell().storeUint(1, 8).endCell())).toEqual({
      kind: 'unknown',
      reason: 'body of 8 bits and 0 refs has no 32-bit opcode',
    });
  });

  it('an exotic (pruned) cell is unknown, not a crash', () => {
    const pruned = new Cell({ exotic: true, bits: beginCell().storeUint(1, 8).storeUint(1, 8).storeBuffer(Buffer.alloc(32)).storeUint(0, 16).endCell().bits });
    expect(decodeBody(pruned)).toMatchObject({ kind: 'unknown', reason: expect.stringMatching(/exotic/) });
  });

  it('never throws on random cells, including random tails after known opcodes', () => {
    const ops = [0, OP.encryptedComment, OP.bounced, OP.jettonTransfer, OP.jettonInternalTransfer, OP.jettonNotify, OP.excesses, OP.jettonBurn, OP.invoicePayload];
    const randomTail = (b: Builder, depth: number): Builder => {
      const bits = Math.floor(Math.random() * (1023 - b.bits));
      const bytes = randomBytes(Math.ceil(bits / 8));
      for (let i = 0; i < bits; i++) b.storeBit((bytes[i >> 3]! >> (7 - (i & 7))) & 1);
      const refs = depth > 2 ? 0 : Math.floor(Math.random() * 5);
      for (let i = 0; i < refs; i++) b.storeRef(randomTail(beginCell(), depth + 1));
      return b;
    };
    for (let i = 0; i < 3000; i++) {
      const b = beginCell();
      if (i % 3 !== 0) b.storeUint(ops[i % ops.length]!, 32);
      const cell = randomTail(b, 0).endCell();
      const decoded = decodeBody(cell);
      expect(['empty', 'text_comment', 'encrypted_comment', 'invoice_payload', 'jetton_transfer', 'jetton_internal_transfer', 'jetton_notify', 'excess', 'jetton_burn', 'bounced', 'binary', 'unknown']).toContain(decoded.kind);
      if (decoded.kind === 'unknown') expect(decoded.reason.length).toBeGreaterThan(0);
    }
  });
});
