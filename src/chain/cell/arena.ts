// The cells of one parsed BoC, in typed arrays indexed by the cell's position in the BoC: where its data
// starts in the BoC's own bytes (never copied), its bit length, its descriptor (references, exotic flag,
// level mask) and its references. Hashes and depths are computed when first asked for, children first
// without recursion, and kept: a cell is hashed once. Levels follow the TVM (crypto/vm/cells/DataCell.cpp):
// a cell with a level mask has one hash per significant level (level 0 and each bit of the mask), all kept
// in one flat array; a pruned branch carries its lower ones in its data.
import { BocError } from './errors.js';
import { SHA_INPUT, sha256Input } from './sha256.js';

/** The first data byte of an exotic cell. */
export const ExoticType = { PrunedBranch: 1, Library: 2, MerkleProof: 3, MerkleUpdate: 4 } as const;

/** A pruned branch of the legacy layout (type, one hash, one depth; level 1 without a mask byte). */
export const LEGACY_PRUNED_BITS = 8 + 256 + 16;

/** Exotic type of an ordinary cell, for comparisons with ExoticType. */
export const ORDINARY = 0;

const HASH = 32;

/** popcount of a 3-bit level mask = the index of the cell's top hash. */
const POP = [0, 1, 1, 2, 1, 2, 2, 3];

export class CellArena {
  /** Byte offset of each cell's data in `bytes`. */
  readonly dataAt: Uint32Array;
  /** Data length in bits (0..1023). */
  readonly bits: Uint16Array;
  /** refs count | exotic (8) | level mask << 5, as the BoC's d1 without with_hashes. */
  readonly d1s: Uint8Array;
  /** Four slots per cell: the indexes of its references. */
  readonly refs: Uint32Array;
  /** First hash slot of each cell: it has popcount(mask) + 1 of them, lowest level first. */
  private slots: Uint32Array | null = null;
  private hashes: Uint8Array | null = null;
  private depths: Uint16Array | null = null;
  private done: Uint8Array | null = null;
  /** Marks for walks over the arena (BoC writing): a cell is seen in this walk when its mark is the stamp. */
  private walk: { mark: Uint32Array; index: Uint32Array; stamp: number } | null = null;

  constructor(
    readonly bytes: Uint8Array,
    readonly count: number,
    readonly roots: readonly number[],
  ) {
    this.dataAt = new Uint32Array(count);
    this.bits = new Uint16Array(count);
    this.d1s = new Uint8Array(count);
    this.refs = new Uint32Array(count * 4);
  }

  refCount(i: number): number {
    return this.d1s[i]! & 7;
  }

  isExotic(i: number): boolean {
    return (this.d1s[i]! & 8) !== 0;
  }

  /** ExoticType of the cell, or ORDINARY. */
  exoticType(i: number): number {
    return this.d1s[i]! & 8 ? this.bytes[this.dataAt[i]!]! : ORDINARY;
  }

  levelMask(i: number): number {
    return this.d1s[i]! >> 5;
  }

  ref(i: number, k: number): number {
    return this.refs[i * 4 + k]!;
  }

  /** Scratch arrays for one walk at a time; the stamp is new for each walk, so nothing is cleared. */
  walkScratch(): { mark: Uint32Array; index: Uint32Array; stamp: number } {
    this.walk ??= { mark: new Uint32Array(this.count), index: new Uint32Array(this.count), stamp: 0 };
    this.walk.stamp++;
    return this.walk;
  }

  /** The cell's hash at `level` (3, the default, is the representation hash), as a view into the arena. */
  hash(i: number, level = 3): Uint8Array {
    this.compute(i);
    const at = this.slot(i, level) * HASH;
    return this.hashes!.subarray(at, at + HASH);
  }

  depth(i: number, level = 3): number {
    this.compute(i);
    return this.depths![this.slot(i, level)]!;
  }

  /** The hash slot that answers `level`: levels above the mask's repeat the highest significant one. */
  private slot(i: number, level: number): number {
    const mask = this.d1s[i]! >> 5;
    return this.slots![i]! + (level >= 3 ? POP[mask]! : POP[mask & ((1 << level) - 1)]!);
  }

  private allocate(): void {
    const slots = new Uint32Array(this.count);
    let next = 0;
    for (let i = 0; i < this.count; i++) {
      slots[i] = next;
      next += POP[this.d1s[i]! >> 5]! + 1;
    }
    this.slots = slots;
    this.hashes = new Uint8Array(next * HASH);
    this.depths = new Uint16Array(next);
    this.done = new Uint8Array(this.count);
  }

  /** Computes the hashes of `root` and every cell under it not hashed yet, children first. */
  private compute(root: number): void {
    if (this.done === null) this.allocate();
    const done = this.done!;
    if (done[root]) return;
    if (root === 0) {
      // Children always come after their parents: from the last cell back, every child is ready.
      for (let i = this.count - 1; i >= 0; i--) if (!done[i]) (this.hashCell(i), (done[i] = 1));
      return;
    }
    const stack = [root];
    while (stack.length > 0) {
      const i = stack[stack.length - 1]!;
      if (done[i]) {
        stack.pop();
        continue;
      }
      let ready = true;
      const n = this.d1s[i]! & 7;
      for (let k = 0; k < n; k++) {
        const c = this.refs[i * 4 + k]!;
        if (!done[c]) {
          stack.push(c);
          ready = false;
        }
      }
      if (!ready) continue;
      this.hashCell(i);
      done[i] = 1;
      stack.pop();
    }
  }

  private hashCell(i: number): void {
    const d1 = this.d1s[i]!;
    const mask = d1 >> 5;
    const type = this.exoticType(i);
    if (type === ExoticType.PrunedBranch) return this.hashPruned(i, mask);
    const merkle = type === ExoticType.MerkleProof || type === ExoticType.MerkleUpdate;
    const first = this.slots![i]!;
    if (mask === 0) {
      this.depths![first] = this.hashAt(i, 0, 0, -1, merkle, first);
    } else {
      for (let level = 0, h = 0; level <= 3; level++) {
        // Level 0 and each level in the mask has its own hash; the others repeat the one below.
        if (level > 0 && !((mask >> (level - 1)) & 1)) continue;
        this.depths![first + h] = this.hashAt(i, level, mask & ((1 << level) - 1), h > 0 ? first + h - 1 : -1, merkle, first + h);
        h++;
      }
    }
    if (type === ExoticType.MerkleProof) this.checkMerkle(i, 1, 0);
    if (type === ExoticType.MerkleUpdate) (this.checkMerkle(i, 1, 0), this.checkMerkle(i, 1 + HASH, 1));
  }

  /** A Merkle cell's data names its child's level-0 hash; a proof whose child differs is no proof. */
  private checkMerkle(i: number, at: number, k: number): void {
    const stated = this.dataAt[i]! + at;
    const child = this.slot(this.refs[i * 4 + k]!, 0) * HASH;
    for (let b = 0; b < HASH; b++) {
      if (this.bytes[stated + b] !== this.hashes![child + b]) throw new BocError('bad-exotic', `Merkle cell ${i}: its reference's hash is not the one it names`);
    }
  }

  /** A pruned branch: its top hash from its own data; the lower ones are written in it. */
  private hashPruned(i: number, mask: number): void {
    const top = POP[mask]!;
    const first = this.slots![i]!;
    this.hashAt(i, 3, mask, -1, false, first + top);
    this.depths![first + top] = 0;
    const data = this.dataAt[i]! + (this.bits[i] === LEGACY_PRUNED_BITS ? 1 : 2);
    this.hashes!.set(this.bytes.subarray(data, data + top * HASH), first * HASH);
    for (let h = 0; h < top; h++) {
      const at = data + top * HASH + 2 * h;
      this.depths![first + h] = (this.bytes[at]! << 8) | this.bytes[at + 1]!;
    }
  }

  /**
   * Hashes cell `i` at `level` into hash slot `out` and returns its depth there. The input, written straight
   * into the hasher's buffer: d1 d2, the data (first hash) or the previous hash (slot `prev`), the
   * children's depths, the children's hashes.
   */
  private hashAt(i: number, level: number, levelMask: number, prev: number, merkle: boolean, out: number): number {
    const s = SHA_INPUT;
    const hashes = this.hashes!;
    const d1 = this.d1s[i]!;
    const bitLength = this.bits[i]!;
    const n = d1 & 7;
    s[0] = n | (d1 & 8) | (levelMask << 5);
    s[1] = (bitLength >> 3) + ((bitLength + 7) >> 3);
    let p = 2;
    const dataOrPrev = prev >= 0 ? HASH : (bitLength + 7) >> 3;
    if (prev >= 0) {
      for (let b = 0, from = prev * HASH; b < HASH; b++) s[p + b] = hashes[from + b]!;
      p += HASH;
    } else {
      const start = this.dataAt[i]!;
      const length = (bitLength + 7) >> 3;
      // The BoC holds the data already padded with its completion tag, as the hash wants it.
      for (let b = 0; b < length; b++) s[p + b] = this.bytes[start + b]!;
      p += length;
    }
    const childLevel = merkle ? level + 1 : level;
    const below = childLevel >= 3 ? 7 : (1 << childLevel) - 1;
    const { refs, d1s, depths } = this;
    const slots = this.slots!;
    let depth = 0;
    for (let k = 0; k < n; k++) {
      const c = refs[i * 4 + k]!;
      const mask = d1s[c]! >> 5;
      // the child's slot at childLevel (as slot(), inlined on the hot path)
      const slot = slots[c]! + POP[mask & below]!;
      const d = depths![slot]!;
      if (d + 1 > depth) depth = d + 1;
      s[p++] = d >> 8;
      s[p++] = d & 0xff;
      for (let b = 0, from = slot * HASH, to = 2 + dataOrPrev + 2 * n + k * HASH; b < HASH; b++) s[to + b] = hashes[from + b]!;
    }
    p += n * HASH;
    if (depth > 1024) throw new BocError('absurd-size', `cell ${i} is ${depth} cells deep (at most 1024)`);
    sha256Input(p, hashes, out * HASH);
    return depth;
  }
}
