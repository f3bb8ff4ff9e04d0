// Hashmaps of block.tlb ("hashmap.tlb" part), read and built in one place: plain `Hashmap n X` and the
// augmented `HashmapAug n X Y`, whose forks carry the sum of their children's extras.
//   ahm_edge#_ label:(HmLabel ~l n) node:(HashmapAugNode m X Y)
//   ahmn_leaf#_ extra:Y value:X = HashmapAugNode 0 X Y
//   ahmn_fork#_ left:^(HashmapAug n X Y) right:^(HashmapAug n X Y) extra:Y = HashmapAugNode (n + 1) X Y
//   ahme_empty$0 extra:Y | ahme_root$1 root:^(HashmapAug n X Y) extra:Y = HashmapAugE n X Y
// Reading goes through any Reader (arena cells, or @ton/core cells wrapped in CellReader), walked or looked
// up. Most decoders never need the keys (every value repeats its own account or lt), only the leaves in key
// order, so the plain walk skips label bits; the keyed walk is for maps whose key is information; the
// lookup says `pruned`, never `absent`, for a path into a pruned branch (proof checks).
// Building writes the fork extras @ton/core's Dictionary does not (ShardAccounts, ShardAccountBlocks,
// OldMcBlocksInfo…), with the node's choice of labels, and can reuse unchanged subtrees between builds.
import { beginCell, type Builder, type Cell } from '@ton/core';
import { CellReader } from '../cell/core-reader.js';
import { CellLayoutError, PrunedCellError } from '../cell/errors.js';
import { bitsForMax, type Reader } from '../cell/reader.js';

// ---- building ----

/** How a map's values and extras are written; `extra` absent for a plain (not augmented) hashmap. */
export interface HashmapCodec<X, Y> {
  storeValue(value: X, b: Builder): void;
  extra?: {
    store(extra: Y, b: Builder): void;
    /** Fork extra from its children's (the aug rule of the type: sums, max, or…). */
    sum(left: Y, right: Y): Y;
  };
}

export interface HashmapEntry<X, Y = never> {
  key: bigint;
  value: X;
  /** Leaf extra (augmented maps only). */
  extra?: Y;
}

/** A key as n binary digits, so that labels are cut as substrings (bigint bit tests cost far more). */
const keyBits = (key: bigint, n: number): string => key.toString(2).padStart(n, '0');

function storeBitString(b: Builder, bits: string): void {
  for (let i = 0; i < bits.length; i += 48) {
    const chunk = bits.slice(i, i + 48);
    b.storeUint(parseInt(chunk, 2), chunk.length);
  }
}

/**
 * The shortest `HmLabel` for `label` with m key bits left; on a tie the node prefers hml_short, then
 * hml_long (the mainnet fixtures' maps round-trip with this rule).
 */
function storeLabel(b: Builder, label: string, m: number): void {
  const len = label.length;
  const width = bitsForMax(m);
  const shortCost = 2 * len + 2;
  const longCost = 2 + width + len;
  const sameCost = 3 + width;
  const same = len > 0 && !label.includes(label[0] === '0' ? '1' : '0');
  if (same && sameCost < Math.min(shortCost, longCost)) {
    b.storeUint(0b11, 2).storeBit(label[0] === '1').storeUint(len, width);
    return;
  }
  if (longCost < shortCost) b.storeUint(0b10, 2).storeUint(len, width);
  else {
    b.storeBit(0);
    storeBitString(b, '1'.repeat(len));
    b.storeBit(0);
  }
  storeBitString(b, label);
}

interface Keyed<X, Y> {
  bits: string;
  entry: HashmapEntry<X, Y>;
}

/**
 * Lets a map that changes a little between builds (a shard's accounts, block to block) reuse the cells of
 * every subtree whose values are the same objects as last time. Values are compared by identity: replace
 * a value's object when it changes. A map that loses an entry is rebuilt in full.
 *
 * The subtree cells of every build are kept, not only those the last build visited: a subtree reused whole
 * last time must still find its parts when one of its entries changes now (else each change would rebuild
 * the whole reused subtree around it, and a long-lived map would degrade to full rebuilds). Cells of ranges
 * that no longer exist (an entry was added inside) are dropped by an occasional full rebuild.
 */
export class HashmapCache<Y> {
  private values = new Set<unknown>();
  private keys = new Set<bigint>();
  private cells = new Map<string, { cell: Cell; extra: Y | undefined }>();
  /** Each value's key as binary digits, so unchanged entries are not converted again every build. */
  private readonly bits = new WeakMap<object, string>();

  /** @internal */
  keyBitsOf(entry: HashmapEntry<unknown, Y>, n: number): string {
    if (typeof entry.value !== 'object' || entry.value === null) return keyBits(entry.key, n);
    let bits = this.bits.get(entry.value);
    if (bits === undefined) this.bits.set(entry.value, (bits = keyBits(entry.key, n)));
    return bits;
  }

  /** @internal */
  begin(entries: HashmapEntry<unknown, Y>[]): { changed: Int32Array; cells: Map<string, { cell: Cell; extra: Y | undefined }> } {
    const changed = new Int32Array(entries.length + 1);
    const present = new Set<bigint>();
    entries.forEach((e, i) => {
      changed[i + 1] = changed[i]! + (this.values.has(e.value) ? 0 : 1);
      present.add(e.key);
    });
    let reuse = true;
    for (const key of this.keys) if (!present.has(key)) reuse = false;
    // An entry gone changes ranges no key names: start over. Ranges an added entry changed stay behind
    // unused; a map of twice the live ones (≈ 2 per entry) is swept by starting over (amortised, rare).
    if (!reuse || this.cells.size > 4 * entries.length + 64) this.cells = new Map();
    this.values = new Set(entries.map((e) => e.value));
    this.keys = present;
    return { changed, cells: this.cells };
  }
}

interface Build<X, Y> {
  keyed: Keyed<X, Y>[];
  n: number;
  codec: HashmapCodec<X, Y>;
  /** Entries changed since the cache's last build, as prefix sums over `keyed`. */
  changed?: Int32Array;
  /** The cache's subtree cells by range (depth, first and last key, count), updated as this build goes. */
  cells?: Map<string, { cell: Cell; extra: Y | undefined }>;
}

/**
 * Writes the edge of a non-empty `Hashmap n X` / `HashmapAug n X Y` into `b` (entries sorted by key,
 * unique) and returns the root extra (undefined for a plain map).
 */
export function storeHashmap<X, Y>(
  b: Builder,
  entries: HashmapEntry<X, Y>[],
  n: number,
  codec: HashmapCodec<X, Y>,
  cache?: HashmapCache<Y>,
): Y | undefined {
  if (entries.length === 0) throw new Error('a Hashmap (not HashmapE) has at least one entry');
  const bitsOf = cache ? (entry: HashmapEntry<X, Y>) => cache.keyBitsOf(entry, n) : (entry: HashmapEntry<X, Y>) => keyBits(entry.key, n);
  const build: Build<X, Y> = { keyed: entries.map((entry) => ({ bits: bitsOf(entry), entry })), n, codec };
  if (cache) {
    const { changed, cells } = cache.begin(entries);
    build.changed = changed;
    build.cells = cells;
  }
  return storeEdge(b, build, 0, entries.length, 0);
}

/** A child edge in its own cell, reused from the previous build when none of its entries changed. */
function edgeCell<X, Y>(build: Build<X, Y>, lo: number, hi: number, depth: number): { cell: Cell; extra: Y | undefined } {
  const key = build.cells ? `${depth}:${build.keyed[lo]!.bits}:${build.keyed[hi - 1]!.bits}:${hi - lo}` : '';
  if (build.cells && build.changed![hi] === build.changed![lo]) {
    const hit = build.cells.get(key);
    if (hit) return hit;
  }
  const b = beginCell();
  const extra = storeEdge(b, build, lo, hi, depth);
  const made = { cell: b.endCell(), extra };
  build.cells?.set(key, made);
  return made;
}

function storeEdge<X, Y>(b: Builder, build: Build<X, Y>, lo: number, hi: number, depth: number): Y | undefined {
  const { keyed, n, codec } = build;
  const m = n - depth;
  const first = keyed[lo]!.bits;
  const last = keyed[hi - 1]!.bits;
  let len = 0;
  if (hi - lo === 1) len = m;
  else while (first[depth + len] === last[depth + len]) len++;
  storeLabel(b, first.slice(depth, depth + len), m);
  if (len === m) {
    const leaf = keyed[lo]!.entry;
    if (codec.extra) codec.extra.store(leaf.extra as Y, b);
    codec.storeValue(leaf.value, b);
    return leaf.extra;
  }
  const at = depth + len;
  let split = lo;
  while (keyed[split]!.bits[at] === '0') split++;
  const left = edgeCell(build, lo, split, at + 1);
  const right = edgeCell(build, split, hi, at + 1);
  b.storeRef(left.cell).storeRef(right.cell);
  if (!codec.extra) return undefined;
  const sum = codec.extra.sum(left.extra as Y, right.extra as Y);
  codec.extra.store(sum, b);
  return sum;
}

/** `HashmapE n X`: one bit and the root in a reference. */
export function storeHashmapE<X>(b: Builder, entries: HashmapEntry<X>[], n: number, storeValue: (v: X, b: Builder) => void): void {
  if (entries.length === 0) {
    b.storeBit(0);
    return;
  }
  const root = beginCell();
  storeHashmap(root, sortByKey(entries), n, { storeValue });
  b.storeBit(1).storeRef(root.endCell());
}

/** `HashmapAugE n X Y`: the root (if any) in a reference, then the total extra inline; returns the total. */
export function storeHashmapAugE<X, Y>(
  b: Builder,
  entries: HashmapEntry<X, Y>[],
  n: number,
  codec: Required<HashmapCodec<X, Y>>,
  empty: Y,
  cache?: HashmapCache<Y>,
): Y {
  if (entries.length === 0) {
    b.storeBit(0);
    codec.extra.store(empty, b);
    return empty;
  }
  const root = beginCell();
  const total = storeHashmap(root, sortByKey(entries), n, codec, cache) as Y;
  b.storeBit(1).storeRef(root.endCell());
  codec.extra.store(total, b);
  return total;
}

export function sortByKey<T extends { key: bigint }>(entries: T[]): T[] {
  return [...entries].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

// ---- reading ----

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

/** Entries (with their leaf extras) of an inline `HashmapAug n X Y` edge at `r`, appended to `out`. */
export function readHashmapAug<C, X, Y>(
  r: Reader<C>,
  n: number,
  out: HashmapEntry<X, Y>[],
  readValue: (r: Reader<C>) => X,
  readExtra: (r: Reader<C>) => Y,
): void {
  forEachKeyedLeaf(r, n, (key, leaf) => {
    const extra = readExtra(leaf);
    out.push({ key, value: readValue(leaf), extra });
  });
}

/** Entries (with their extras) and the total extra of a `HashmapAugE n X Y` at `r`. */
export function readHashmapAugE<C, X, Y>(
  r: Reader<C>,
  n: number,
  readValue: (r: Reader<C>) => X,
  readExtra: (r: Reader<C>) => Y,
): { entries: HashmapEntry<X, Y>[]; extra: Y } {
  const entries: HashmapEntry<X, Y>[] = [];
  if (r.bool()) readHashmapAug(r.refReader(), n, entries, readValue, readExtra);
  return { entries, extra: readExtra(r) };
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
