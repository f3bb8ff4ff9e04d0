import { beginCell, Cell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { CellLayoutError, CellReader } from './reader.js';

describe('CellReader', () => {
  it('reads integers, coins and bytes at unaligned offsets like @ton/core writes them', () => {
    const hash = Buffer.from('84753a60efefc7169959fdf34ea21f3fa9f5a85c3a8690db77b1f141e0ff47ee', 'hex');
    const cell = beginCell()
      .storeBit(true)
      .storeUint(5, 3)
      .storeInt(-7, 8)
      .storeUint(0xdeadbeef, 32)
      .storeUint(2n ** 64n - 1n, 64)
      .storeCoins(123456789012345678901234567n)
      .storeBuffer(hash)
      .storeInt(-1, 32)
      .storeUint(0, 0)
      .storeUint(0x2f, 6)
      .endCell();
    const r = new CellReader(cell);
    expect(r.bool()).toBe(true);
    expect(r.uint(3)).toBe(5);
    expect(r.int(8)).toBe(-7);
    expect(r.uint(32)).toBe(0xdeadbeef);
    expect(r.bigUint(64)).toBe(2n ** 64n - 1n);
    expect(r.coins()).toBe(123456789012345678901234567n);
    expect(r.hex(256)).toBe(hash.toString('hex'));
    expect(r.int(32)).toBe(-1);
    expect(r.remainingBits).toBe(6);
    expect(r.uint(6)).toBe(0x2f);
    expect(r.remainingBits).toBe(0);
  });

  it('throws CellLayoutError past the end of bits or refs', () => {
    const r = new CellReader(beginCell().storeUint(1, 7).endCell());
    expect(() => r.uint(8)).toThrow(CellLayoutError);
    expect(() => r.ref()).toThrow(/needs a reference/);
  });

  it('restAsCell gives the unread bits and refs, equal to what @ton/core builds for them', () => {
    const child = beginCell().storeUint(42, 16).endCell();
    const other = beginCell().storeUint(43, 16).endCell();
    const cell = beginCell().storeUint(0x1234, 13).storeRef(child).storeUint(0xabcdef, 24).storeRef(other).endCell();
    const r = new CellReader(cell);
    expect(r.restAsCell()).toBe(cell);
    r.uint(13);
    r.ref();
    const rest = r.restAsCell();
    const expected = beginCell().storeUint(0xabcdef, 24).storeRef(other).endCell();
    expect(rest.hash().equals(expected.hash())).toBe(true);
  });

  it('clone reads independently', () => {
    const r = new CellReader(beginCell().storeUint(0xff00, 16).endCell());
    const c = r.clone();
    expect(c.uint(8)).toBe(0xff);
    expect(r.uint(16)).toBe(0xff00);
  });

  it('handles cells parsed from a BoC (bit lengths not multiple of 8)', () => {
    const built = beginCell().storeUint(0b1011, 4).storeUint(0x3ff, 10).endCell();
    const parsed = Cell.fromBoc(built.toBoc())[0]!;
    const r = new CellReader(parsed);
    expect(r.uint(4)).toBe(0b1011);
    expect(r.uint(10)).toBe(0x3ff);
  });
});
