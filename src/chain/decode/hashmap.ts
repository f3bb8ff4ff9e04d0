// Minimal readers for TL-B hashmaps (block.tlb, "hashmap.tlb" part): Hashmap/HashmapE and the
// augmented HashmapAug/HashmapAugE. Most decoders never need the keys (every value repeats its own
// account or lt), only the leaves in key order, so the plain walk skips label bits; the keyed walk is
// for small maps whose key is information (workchain ids of ShardHashes).
import type { Cell } from '@ton/core';
import type { Reader } from '../cell/reader.js';
import { bitsForMax, CellLayoutError, CellReader } from './reader.js';

export interface Label {
  length: number;
  /** The label's key bits as an integer; only computed when asked for. */
  bits: bigint;
}

function checkLength(n: number, m: number): number {
  if (n > m) throw new CellLayoutError(`hashmap label of ${n} bits exceeds ${m}`);
  return n;
}

/** Reads `HmLabel ~l m`; `bits` holds the label's key bits only when `wantBits`. */
export function readLabel(r: Reader, m: number, wantBits: boolean): Label {
  if (!r.bool()) {
    // hml_short$0 len:(Unary ~n) s:(n * Bit)
    let n = 0;
    while (r.bool()) n++;
    checkLength(n, m);
    return readLabelBits(r, n, wantBits);
  }
  const same = r.bool();
  const width = bitsForMax(m);
  if (!same) {
    // hml_long$10 n:(#<= m) s:(n * Bit)
    return readLabelBits(r, checkLength(r.uint(width), m), wantBits);
  }
  // hml_same$11 v:Bit n:(#<= m)
  const v = r.bool();
  const n = checkLength(r.uint(width), m);
  return { length: n, bits: v && wantBits ? (1n << BigInt(n)) - 1n : 0n };
}

function readLabelBits(r: Reader, n: number, wantBits: boolean): Label {
  if (!wantBits) {
    r.skip(n);
    return { length: n, bits: 0n };
  }
  return { length: n, bits: r.bigUint(n) };
}

/**
 * Walks `Hashmap n X` (or `HashmapAug n X Y`) starting at the edge under `r`, calling `leaf` for every
 * leaf in ascending key order with the reader placed just after the label (at `extra:Y value:X` for the
 * augmented form, at `value:X` for the plain one). Fork extras are never read.
 */
export function forEachLeaf<C>(r: Reader<C>, n: number, leaf: (value: Reader<C>) => void): void {
  const m = n - readLabel(r, n, false).length;
  if (m === 0) {
    leaf(r);
    return;
  }
  const left = r.refReader();
  const right = r.refReader();
  forEachLeaf(left, m - 1, leaf);
  forEachLeaf(right, m - 1, leaf);
}

/**
 * `HashmapE n X` / `HashmapAugE n X Y` at the reader: one bit, then the root in a reference. The
 * augmented form's root extra follows inline and is skipped by the caller (it is the last field).
 */
export function forEachLeafE<C>(r: Reader<C>, n: number, leaf: (value: Reader<C>) => void): void {
  if (!r.bool()) return;
  forEachLeaf(r.refReader(), n, leaf);
}

/** Convenience for a root cell that is itself a `HashmapE`/`HashmapAugE`. */
export function forEachLeafInCell(cell: Cell, n: number, leaf: (value: Reader<Cell>) => void): void {
  forEachLeafE(new CellReader(cell), n, leaf);
}

/** Like forEachLeaf, with each leaf's full key as an unsigned integer of n bits. */
export function forEachKeyedLeaf<C>(
  r: Reader<C>,
  n: number,
  leaf: (key: bigint, value: Reader<C>) => void,
  prefix = 0n,
): void {
  const label = readLabel(r, n, true);
  const key = (prefix << BigInt(label.length)) | label.bits;
  const m = n - label.length;
  if (m === 0) {
    leaf(key, r);
    return;
  }
  const left = r.refReader();
  const right = r.refReader();
  forEachKeyedLeaf(left, m - 1, leaf, key << 1n);
  forEachKeyedLeaf(right, m - 1, leaf, (key << 1n) | 1n);
}
