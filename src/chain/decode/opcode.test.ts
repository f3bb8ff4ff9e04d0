import { beginCell, Cell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { opHex, readOpcode } from './opcode.js';

describe('readOpcode', () => {
  it('is the first 32 bits of the body, or null when shorter', () => {
    expect(readOpcode(beginCell().storeUint(0x0f8a7ea5, 32).storeUint(1, 64).endCell())).toBe(0x0f8a7ea5);
    expect(readOpcode(beginCell().storeUint(0xffffffff, 32).endCell())).toBe(0xffffffff);
    expect(readOpcode(beginCell().storeUint(1, 31).endCell())).toBeNull();
    expect(readOpcode(beginCell().endCell())).toBeNull();
  });

  it('reads cells parsed from a BoC the same way', () => {
    const cell = Cell.fromBoc(beginCell().storeUint(0x7362d09c, 32).storeBit(true).endCell().toBoc())[0]!;
    expect(readOpcode(cell)).toBe(0x7362d09c);
    expect(opHex(0x7362d09c)).toBe('0x7362d09c');
    expect(opHex(0)).toBe('0x00000000');
  });
});
