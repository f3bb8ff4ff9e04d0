// Forward payloads in every layout of compat.md §7, inside real jetton transfer bodies built with @ton/core.
import { Address, beginCell, Cell, type Builder } from '@ton/core';
import { describe, expect, it } from 'vitest';
import type { DecodedBody, ForwardPayload } from '../model.js';
import { decodeBody } from './body.js';
import { buildInvoicePayload } from './invoice.js';
import { OP } from './opcode.js';

const OWNER = new Address(0, Buffer.alloc(32, 0x11));
const UUID = '0195f0a2-7c3e-7d4b-9a61-2f3e4d5c6b7a';

/** A jetton transfer body whose tail (`forward_payload`) is written by `tail`. */
function transfer(tail: (b: Builder) => void, customPayload?: Cell): Cell {
  const b = beginCell()
    .storeUint(OP.jettonTransfer, 32)
    .storeUint(7, 64)
    .storeCoins(1_000_000n)
    .storeAddress(OWNER)
    .storeAddress(OWNER)
    .storeMaybeRef(customPayload ?? null)
    .storeCoins(1n);
  tail(b);
  return b.endCell();
}

function payloadOf(body: Cell): ForwardPayload {
  const decoded = decodeBody(body) as Extract<DecodedBody, { kind: 'jetton_transfer' }>;
  expect(decoded.kind).toBe('jetton_transfer');
  return decoded.forwardPayload;
}

const comment = (text: string) => beginCell().storeUint(0, 32).storeStringTail(text);

describe('jetton forward payload', () => {
  it('empty (Either bit 0, nothing after) → layout none', () => {
    expect(payloadOf(transfer((b) => b.storeBit(false)))).toEqual({ layout: 'none' });
  });

  it('inline comment (bit 0, rest of the slice)', () => {
    const p = payloadOf(transfer((b) => b.storeBit(false).storeBuilder(comment('inline hello'))));
    expect(p).toMatchObject({ layout: 'inline', comment: 'inline hello' });
    expect(Cell.fromBase64(p.boc!).hash().equals(comment('inline hello').endCell().hash())).toBe(true);
  });

  it('inline comment whose snake continues through refs, after a custom_payload ref', () => {
    const text = 'a long inline comment that does not fit in the rest of the cell '.repeat(3);
    const bytes = Buffer.from(text);
    const custom = beginCell().storeUint(0xc0ffee, 24).endCell();
    const body = transfer((b) => {
      b.storeBit(false).storeUint(0, 32).storeBuffer(bytes.subarray(0, 10));
      b.storeRef(beginCell().storeBuffer(bytes.subarray(10, 120)).storeRef(beginCell().storeBuffer(bytes.subarray(120))));
    }, custom);
    expect(payloadOf(body)).toMatchObject({ layout: 'inline', comment: text });
  });

  it('comment in the next ref (bit 1), including a long snake', () => {
    expect(payloadOf(transfer((b) => b.storeBit(true).storeRef(comment('in a ref'))))).toMatchObject({
      layout: 'ref',
      comment: 'in a ref',
    });
    const long = '長いコメント'.repeat(40);
    expect(payloadOf(transfer((b) => b.storeBit(true).storeRef(comment(long))))).toMatchObject({ layout: 'ref', comment: long });
  });

  it('bit 1 with no ref is recorded as malformed, not thrown', () => {
    const p = payloadOf(transfer((b) => b.storeBit(true)));
    expect(p.layout).toBe('ref');
    expect(p.malformed).toMatch(/declares a ref/);
    expect(p.comment).toBeUndefined();
  });

  it('a missing Either bit is recorded as malformed', () => {
    expect(payloadOf(transfer(() => undefined))).toEqual({ layout: 'none', malformed: 'forward_payload is missing (no Either bit)' });
  });

  it('invalid UTF-8 is replaced', () => {
    const p = payloadOf(transfer((b) => b.storeBit(false).storeUint(0, 32).storeBuffer(Buffer.from([0xc3, 0x28]))));
    expect(p.comment).toBe('\uFFFD(');
  });

  it('binary payloads expose their opcode', () => {
    const p = payloadOf(transfer((b) => b.storeBit(true).storeRef(beginCell().storeUint(0x25938561, 32).storeUint(5, 64))));
    expect(p).toMatchObject({ layout: 'ref', opcode: 0x25938561 });
    expect(p.comment).toBeUndefined();
    const inline = payloadOf(transfer((b) => b.storeBit(false).storeUint(0xdeadbeef, 32)));
    expect(inline).toMatchObject({ layout: 'inline', opcode: 0xdeadbeef });
  });

  it('a payload shorter than an opcode carries no content but keeps its BoC', () => {
    const p = payloadOf(transfer((b) => b.storeBit(false).storeUint(3, 8)));
    expect(p.layout).toBe('inline');
    expect(p.boc).toBeDefined();
    expect(p.opcode).toBeUndefined();
  });

  it('an encrypted comment is exposed as hex', () => {
    const data = Buffer.alloc(48, 0x5a);
    const p = payloadOf(transfer((b) => b.storeBit(true).storeRef(beginCell().storeUint(OP.encryptedComment, 32).storeBuffer(data))));
    expect(p).toMatchObject({ layout: 'ref', encryptedComment: data.toString('hex') });
  });

  it('the invoice payload inside the forward payload, inline and in a ref', () => {
    const invoice = buildInvoicePayload(UUID);
    expect(payloadOf(transfer((b) => b.storeBit(true).storeRef(invoice)))).toMatchObject({ layout: 'ref', invoiceId: UUID });
    expect(payloadOf(transfer((b) => b.storeBit(false).storeSlice(invoice.beginParse())))).toMatchObject({
      layout: 'inline',
      invoiceId: UUID,
    });
  });

  it('a truncated invoice payload keeps the opcode and says why', () => {
    const p = payloadOf(transfer((b) => b.storeBit(true).storeRef(beginCell().storeUint(OP.invoicePayload, 32).storeUint(1, 16))));
    expect(p.opcode).toBe(OP.invoicePayload);
    expect(p.malformed).toMatch(/invoice payload: invoice id needs 128 bits/);
  });
});
