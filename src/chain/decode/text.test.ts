import { beginCell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { decodeBody } from './body.js';
import { OP } from './opcode.js';

describe('text comments', () => {
  it('decodes an inline comment', () => {
    const body = beginCell().storeUint(0, 32).storeStringTail('hello, TON').endCell();
    expect(decodeBody(body)).toEqual({ kind: 'text_comment', text: 'hello, TON' });
  });

  it('follows the snake through ref 0 for long comments', () => {
    const text = 'Оплата заказа №42 — '.repeat(30); // > 1 cell of UTF-8
    const body = beginCell().storeUint(0, 32).storeStringTail(text).endCell();
    expect(body.refs.length).toBe(1);
    expect(decodeBody(body)).toEqual({ kind: 'text_comment', text });
  });

  it('joins a UTF-8 character split across two cells', () => {
    const bytes = Buffer.from('é€😀', 'utf8'); // 2 + 3 + 4 bytes
    const tail = beginCell().storeBuffer(bytes.subarray(3)).endCell();
    const body = beginCell().storeUint(0, 32).storeBuffer(bytes.subarray(0, 3)).storeRef(tail).endCell();
    expect(decodeBody(body)).toEqual({ kind: 'text_comment', text: 'é€😀' });
  });

  it('replaces invalid UTF-8 instead of throwing', () => {
    const body = beginCell().storeUint(0, 32).storeBuffer(Buffer.from([0x61, 0xff, 0xfe, 0x62])).endCell();
    expect(decodeBody(body)).toEqual({ kind: 'text_comment', text: 'a\uFFFD\uFFFDb' });
  });

  it('ignores trailing bits that do not make a byte', () => {
    const body = beginCell().storeUint(0, 32).storeBuffer(Buffer.from('ok')).storeUint(1, 3).endCell();
    expect(decodeBody(body)).toEqual({ kind: 'text_comment', text: 'ok' });
  });

  it('decodes an empty comment (op 0 only)', () => {
    expect(decodeBody(beginCell().storeUint(0, 32).endCell())).toEqual({ kind: 'text_comment', text: '' });
  });

  it('exposes an encrypted comment as hex (through its snake), never decrypting it', () => {
    const first = Buffer.alloc(100, 0xab);
    const rest = Buffer.alloc(40, 0xcd);
    const body = beginCell()
      .storeUint(OP.encryptedComment, 32)
      .storeBuffer(first)
      .storeRef(beginCell().storeBuffer(rest))
      .endCell();
    expect(decodeBody(body)).toEqual({ kind: 'encrypted_comment', data: Buffer.concat([first, rest]).toString('hex') });
  });
});
