// Reading TL-B hashmaps (block.tlb, "hashmap.tlb" part) through any Reader (arena or @ton/core cells):
// Hashmap/HashmapE and the augmented HashmapAug/HashmapAugE, walked or looked up. Most decoders never need
// the keys (every value repeats its own account or lt), only the leaves in key order, so the plain walk
// skips label bits; the keyed walk is for small maps whose key is information (workchain ids of
// ShardHashes); the lookup says `pruned`, never `absent`, for a path into a pruned branch (proof checks).
// Building (and loading for the block builder) is hashmap.ts.
import type { Cell } from '@ton/core';
import type { Reader } from '../cell/reader.js';
import { CellReader } from '../cell/core-reader.js';
import { CellLayoutError, PrunedCellError } from '../cell/errors.js';
import { bitsForMax } from '../cell/reader.js';

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

/**
 * Result of a lookup. `absent` only when the key's path leaves the map at a cell that is there (an empty map,
 * or a label that diverges); `pruned` when the path reaches a pruned branch of a proof, which proves nothing.
 */
export type HashmapLookup<C> =
  | { status: 'found'; value: Reader<C> }
  | { status: 'absent' }
  | { status: 'pruned'; prunedHash: string };

/**
 * Looks `key` (n bits, unsigned) up in `Hashmap n X` / `HashmapAug n X Y` whose root edge starts at `r`. The
 * found reader sits at the leaf's `value:X` (`extra:Y value:X` for the augmented form), as forEachLeaf's.
 * Layout errors throw (CellLayoutError); a pruned branch on the path is `pruned`, never `absent`.
 */
export function lookupHashmapAt<C>(r: Reader<C>, n: number, key: bigint): HashmapLookup<C> {
  let m = n;
  for (;;) {
    const label = readLabel(r, m, true);
    const l = label.length;
    if (((key >> BigInt(m - l)) & ((1n << BigInt(l)) - 1n)) !== label.bits) return { status: 'absent' };
    m -= l;
    if (m === 0) return { status: 'found', value: r };
    if (r.remainingRefs < 2) throw new CellLayoutError(`hashmap fork has ${r.remainingRefs} references`);
    if ((key >> BigInt(m - 1)) & 1n) r.ref(); // the left branch, not taken
    try {
      r = r.refReader();
    } catch (err) {
      if (err instanceof PrunedCellError) return { status: 'pruned', prunedHash: err.prunedHash };
      throw err;
    }
    m -= 1;
  }
}
