import { beginCell, Dictionary, type Cell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { CellReader } from '../cell/core-reader.js';
import { forEachKeyedLeaf, forEachLeafE, forEachLeafInCell } from './hashmap-reader.js';

describe('hashmap walk', () => {
  it('visits every value of a HashmapE 15 ^Cell in key order (as @ton/core builds it)', () => {
    const dict = Dictionary.empty(Dictionary.Keys.Uint(15), Dictionary.Values.Cell());
    const keys = [7, 0, 3, 32767, 1, 2, 100, 4];
    for (const k of keys) dict.set(k, beginCell().storeUint(k, 16).endCell());
    const root = beginCell().storeDict(dict).endCell();
    const seen: number[] = [];
    forEachLeafInCell(root, 15, (leaf) => seen.push(new CellReader(leaf.ref()).uint(16)));
    expect(seen).toEqual([...keys].sort((a, b) => a - b));
  });

  it('handles the empty map and a single entry', () => {
    const empty = beginCell().storeDict(Dictionary.empty(Dictionary.Keys.Uint(15), Dictionary.Values.Cell())).endCell();
    const seen: Cell[] = [];
    forEachLeafE(new CellReader(empty), 15, (leaf) => seen.push(leaf.ref()));
    expect(seen).toHaveLength(0);
    const one = Dictionary.empty(Dictionary.Keys.Uint(15), Dictionary.Values.Uint(8));
    one.set(9, 77);
    const values: number[] = [];
    forEachLeafInCell(beginCell().storeDict(one).endCell(), 15, (leaf) => values.push(leaf.uint(8)));
    expect(values).toEqual([77]);
  });

  it('recovers signed 32-bit keys with the keyed walk', () => {
    const dict = Dictionary.empty(Dictionary.Keys.Int(32), Dictionary.Values.Uint(8));
    for (const k of [0, -1, 5, 1000000, -2147483648]) dict.set(k, (k & 0x7f) >>> 0);
    const r = new CellReader(beginCell().storeDict(dict).endCell());
    expect(r.bool()).toBe(true);
    const seen = new Map<number, number>();
    forEachKeyedLeaf(new CellReader(r.ref()), 32, (key, leaf) => seen.set(Number(BigInt.asIntN(32, key)), leaf.uint(8)));
    expect([...seen.entries()].sort((a, b) => a[0] - b[0])).toEqual(
      [...dict.keys()].sort((a, b) => a - b).map((k) => [k, dict.get(k)]),
    );
  });

  it('walks wide keys (256 bits) with long and same labels', () => {
    const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Uint(8));
    dict.set(0n, 1);
    dict.set(2n ** 256n - 1n, 2);
    dict.set(2n ** 255n, 3);
    const values: number[] = [];
    forEachLeafInCell(beginCell().storeDict(dict).endCell(), 256, (leaf) => values.push(leaf.uint(8)));
    expect(values).toEqual([1, 3, 2]);
  });
});
