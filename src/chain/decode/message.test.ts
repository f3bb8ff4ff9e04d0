// Messages built with @ton/core's storeMessage, decoded into the model.
import { Address, beginCell, Cell, external, storeMessage, type Message } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { decodeMessage } from './message.js';
import { CellLayoutError } from './reader.js';

const ALICE = new Address(0, Buffer.alloc(32, 0xa1));
const BOB = new Address(0, Buffer.alloc(32, 0xb0));

const toCell = (m: Message) => beginCell().store(storeMessage(m)).endCell();

function internalMessage(body: Cell, opts: { bounce?: boolean; bounced?: boolean; init?: boolean } = {}): Message {
  return {
    info: {
      type: 'internal',
      ihrDisabled: true,
      bounce: opts.bounce ?? true,
      bounced: opts.bounced ?? false,
      src: ALICE,
      dest: BOB,
      value: { coins: 1_234_567_890n },
      ihrFee: 0n,
      forwardFee: 666_000n,
      createdLt: 47_000_000_000_003n,
      createdAt: 1_751_461_310,
    },
    init: opts.init ? { code: beginCell().storeUint(1, 8).endCell(), data: beginCell().storeUint(2, 8).endCell() } : undefined,
    body,
  };
}

describe('decodeMessage', () => {
  it('internal message with an inline comment body', () => {
    const body = beginCell().storeUint(0, 32).storeStringTail('thanks!').endCell();
    const cell = toCell(internalMessage(body));
    const m = decodeMessage(cell);
    expect(m).toMatchObject({
      hash: cell.hash().toString('hex'),
      type: 'internal',
      source: ALICE.toRawString(),
      destination: BOB.toRawString(),
      value: 1_234_567_890n,
      fwdFee: 666_000n,
      bounce: true,
      bounced: false,
      createdLt: 47_000_000_000_003n,
      createdAt: 1_751_461_310,
      opcode: 0,
      hasInit: false,
      decoded: { kind: 'text_comment', text: 'thanks!' },
    });
    expect(Cell.fromBase64(m.bodyBoc).hash().equals(body.hash())).toBe(true);
  });

  it('follows Either ^X: the whole comment in a ref when the wallet put the body there', () => {
    const text = 'body stored in a reference '.repeat(10);
    const body = beginCell().storeUint(0, 32).storeStringTail(text).endCell();
    const cell = beginCell().store(storeMessage(internalMessage(body, { init: true, bounce: false }), { forceRef: true })).endCell();
    // The last ref is the body (Either bit 1); the first is the StateInit.
    expect(cell.refs.length).toBe(2);
    expect(cell.refs[1]!.hash().equals(body.hash())).toBe(true);
    const m = decodeMessage(cell);
    expect(m.decoded).toEqual({ kind: 'text_comment', text });
    expect(m.hasInit).toBe(true);
    expect(m.bounce).toBe(false);
    expect(Cell.fromBase64(m.bodyBoc).hash().equals(body.hash())).toBe(true);
  });

  it('inline StateInit is skipped to reach an inline body', () => {
    const body = beginCell().storeUint(0x11223344, 32).endCell();
    const cell = beginCell()
      .storeUint(0b10, 2) // ext_in_msg_info$10
      .storeUint(0, 2) // src addr_none
      .storeAddress(BOB)
      .storeCoins(0)
      .storeBit(true) // init present
      .storeBit(false) // inline StateInit
      .storeBit(false) // split_depth none
      .storeBit(false) // special none
      .storeMaybeRef(beginCell().storeUint(7, 8).endCell())
      .storeMaybeRef(null)
      .storeBit(false) // library empty
      .storeBit(false) // body inline
      .storeSlice(body.beginParse())
      .endCell();
    const m = decodeMessage(cell);
    expect(m).toMatchObject({ type: 'external-in', source: null, destination: BOB.toRawString(), hasInit: true, opcode: 0x11223344, decoded: { kind: 'binary', opcode: 0x11223344 } });
    expect(m.value).toBe(0n);
  });

  it('external-in (a wallet message) and external-out', () => {
    const extIn = toCell(external({ to: BOB, body: beginCell().storeUint(0xabcdef01, 32).storeUint(0, 200).endCell() }));
    expect(decodeMessage(extIn)).toMatchObject({ type: 'external-in', source: null, destination: BOB.toRawString(), value: 0n, bounce: false, opcode: 0xabcdef01 });
    const extOut = toCell({
      info: { type: 'external-out', src: ALICE, dest: null, createdLt: 5n, createdAt: 6 },
      body: beginCell().endCell(),
    });
    expect(decodeMessage(extOut)).toMatchObject({ type: 'external-out', source: ALICE.toRawString(), destination: null, createdLt: 5n, createdAt: 6, opcode: null, decoded: { kind: 'empty' } });
  });

  it('a bounced message carries bounced=true and the original opcode', () => {
    const body = beginCell().storeUint(0xffffffff, 32).storeUint(0x0f8a7ea5, 32).endCell();
    const m = decodeMessage(toCell(internalMessage(body, { bounce: false, bounced: true })));
    expect(m).toMatchObject({ bounced: true, decoded: { kind: 'bounced', originalOpcode: 0x0f8a7ea5 } });
  });

  it('a cell that is not a message throws a CellLayoutError naming the field', () => {
    expect(() => decodeMessage(beginCell().storeUint(0, 8).endCell())).toThrow(CellLayoutError);
    expect(() => decodeMessage(beginCell().storeUint(0, 8).endCell())).toThrow(/message dest/);
  });
});
