// Hashmaps of block.tlb ("hashmap.tlb" part) as the node writes them: plain `Hashmap n X` and the augmented
// `HashmapAug n X Y`, whose forks carry the sum of their children's extras. @ton/core's Dictionary writes
// no fork extras, so blocks and states (ShardAccounts, ShardAccountBlocks, OldMcBlocksInfo…) need this.
//   ahm_edge#_ label:(HmLabel ~l n) node:(HashmapAugNode m X Y)
//   ahmn_leaf#_ extra:Y value:X = HashmapAugNode 0 X Y
//   ahmn_fork#_ left:^(HashmapAug n X Y) right:^(HashmapAug n X Y) extra:Y = HashmapAugNode (n + 1) X Y
//   ahme_empty$0 extra:Y | ahme_root$1 root:^(HashmapAug n X Y) extra:Y = HashmapAugE n X Y
import { beginCell, type Builder, type Cell, type Slice } from '@ton/core';

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

const bitsForMax = (m: number): number => (m === 0 ? 0 : 32 - Math.clz32(m));

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

function loadLabel(s: Slice, m: number): { len: number; bits: bigint } {
  if (!s.loadBit()) {
    let len = 0;
    while (s.loadBit()) len++;
    return { len, bits: len ? s.loadUintBig(len) : 0n };
  }
  const width = bitsForMax(m);
  if (!s.loadBit()) {
    const len = s.loadUint(width);
    return { len, bits: len ? s.loadUintBig(len) : 0n };
  }
  const v = s.loadBit();
  const len = s.loadUint(width);
  return { len, bits: v ? (1n << BigInt(len)) - 1n : 0n };
}

/**
 * Reads a `Hashmap n X` / `HashmapAug n X Y` edge at `s`. `leaf` gets the full key and the slice placed
 * at the leaf's node (at `extra:Y value:X` for the augmented form); fork extras are skipped by `skipExtra`.
 */
export function loadHashmap(s: Slice, n: number, leaf: (key: bigint, s: Slice) => void, skipExtra?: (s: Slice) => void, prefix = 0n): void {
  const label = loadLabel(s, n);
  const key = (prefix << BigInt(label.len)) | label.bits;
  const m = n - label.len;
  if (m === 0) {
    leaf(key, s);
    return;
  }
  const left = s.loadRef();
  const right = s.loadRef();
  skipExtra?.(s);
  loadHashmap(left.beginParse(), m - 1, leaf, skipExtra, key << 1n);
  loadHashmap(right.beginParse(), m - 1, leaf, skipExtra, (key << 1n) | 1n);
}

/** Entries of a `HashmapE n X` whose root is at `s` (one bit, then a ref). */
export function loadHashmapE<X>(s: Slice, n: number, loadValue: (s: Slice) => X): HashmapEntry<X>[] {
  const out: HashmapEntry<X>[] = [];
  if (s.loadBit()) loadHashmap(s.loadRef().beginParse(), n, (key, leaf) => out.push({ key, value: loadValue(leaf) }));
  return out;
}

/** Entries (with their extras) and the total extra of a `HashmapAugE n X Y` at `s`. */
export function loadHashmapAugE<X, Y>(
  s: Slice,
  n: number,
  loadValue: (s: Slice) => X,
  loadExtra: (s: Slice) => Y,
): { entries: HashmapEntry<X, Y>[]; extra: Y } {
  const entries: HashmapEntry<X, Y>[] = [];
  if (s.loadBit()) loadHashmapAug(s.loadRef().beginParse(), n, entries, loadValue, loadExtra);
  return { entries, extra: loadExtra(s) };
}

/** Entries of an inline `HashmapAug n X Y` edge at `s` (appended to `out`). */
export function loadHashmapAug<X, Y>(
  s: Slice,
  n: number,
  out: HashmapEntry<X, Y>[],
  loadValue: (s: Slice) => X,
  loadExtra: (s: Slice) => Y,
): void {
  loadHashmap(
    s,
    n,
    (key, leaf) => {
      const extra = loadExtra(leaf);
      out.push({ key, value: loadValue(leaf), extra });
    },
    (fork) => void loadExtra(fork),
  );
}
