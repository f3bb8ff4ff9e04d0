// The cells of one parsed BoC, in typed arrays indexed by the cell's position in the BoC: where its data
// starts in the BoC's own bytes (never copied), its bit length, its descriptor (references, exotic flag,
// level mask) and its references. Hashes and depths are computed when first asked for, children first
// without recursion, and kept: a cell is hashed once. Levels follow the TVM (crypto/vm/cells/DataCell.cpp):
// a cell with a level mask has one hash per significant level; a pruned branch carries its lower ones.
import { hash as oneShot } from 'node:crypto';
import { BocError } from './errors.js';

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
  /** Top-level (representation) hash of each cell, once computed. */
  private hashes: Uint8Array | null = null;
  private depths: Uint16Array | null = null;
  private done: Uint8Array | null = null;
  /** Lower-level hashes and depths of cells with a level mask (index 0..top-1), once computed. */
  private readonly lower = new Map<number, { hashes: Uint8Array; depths: number[] }>();

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

  /** The cell's hash at `level` (3, the default, is the representation hash), as a view into the arena. */
  hash(i: number, level = 3): Uint8Array {
    this.compute(i);
    const at = this.slot(i, level);
    if (at < 0) return this.hashes!.subarray(i * HASH, i * HASH + HASH);
    return this.lower.get(i)!.hashes.subarray(at * HASH, at * HASH + HASH);
  }

  depth(i: number, level = 3): number {
    this.compute(i);
    const at = this.slot(i, level);
    return at < 0 ? this.depths![i]! : this.lower.get(i)!.depths[at]!;
  }

  /** Which stored hash answers `level`: -1 for the top one, else an index into the lower ones. */
  private slot(i: number, level: number): number {
    const mask = this.d1s[i]! >> 5;
    if (mask === 0) return -1;
    const index = POP[mask & ((1 << Math.min(level, 3)) - 1)]!;
    return index === POP[mask] ? -1 : index;
  }

  /** Computes the hashes of `root` and every cell under it not hashed yet, children first. */
  private compute(root: number): void {
    if (this.done === null) {
      this.hashes = new Uint8Array(this.count * HASH);
      this.depths = new Uint16Array(this.count);
      this.done = new Uint8Array(this.count);
    }
    const done = this.done;
    if (done[root]) return;
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
    const top = POP[mask]!;
    const lower = top > 0 ? { hashes: new Uint8Array(top * HASH), depths: new Array<number>(top) } : null;
    let prev: Uint8Array | null = null;
    for (let level = 0, h = 0; level <= 3 && h <= top; level++) {
      // Level 0 and each level in the mask has its own hash; the others repeat the one below.
      if (level > 0 && !((mask >> (level - 1)) & 1)) continue;
      const { digest, depth } = this.hashAt(i, level, mask & ((1 << level) - 1), prev, merkle);
      if (h === top) {
        this.hashes!.set(digest, i * HASH);
        this.depths![i] = depth;
      } else {
        lower!.hashes.set(digest, h * HASH);
        lower!.depths[h] = depth;
      }
      prev = digest;
      h++;
    }
    if (lower) this.lower.set(i, lower);
    if (type === ExoticType.MerkleProof) this.checkMerkle(i, 1, 0);
    if (type === ExoticType.MerkleUpdate) (this.checkMerkle(i, 1, 0), this.checkMerkle(i, 1 + HASH, 1));
  }

  /** A Merkle cell's data names its child's level-0 hash; a proof whose child differs is no proof. */
  private checkMerkle(i: number, at: number, k: number): void {
    const stated = this.bytes.subarray(this.dataAt[i]! + at, this.dataAt[i]! + at + HASH);
    const child = this.hash(this.refs[i * 4 + k]!, 0);
    for (let b = 0; b < HASH; b++) {
      if (stated[b] !== child[b]) throw new BocError('bad-exotic', `Merkle cell ${i}: its reference's hash is not the one it names`);
    }
  }

  /** A pruned branch: its top hash from its own data; the lower ones are written in it. */
  private hashPruned(i: number, mask: number): void {
    const top = POP[mask]!;
    const { digest } = this.hashAt(i, 3, mask, null, false);
    this.hashes!.set(digest, i * HASH);
    this.depths![i] = 0;
    const data = this.dataAt[i]! + (this.bits[i] === LEGACY_PRUNED_BITS ? 1 : 2);
    const hashes = this.bytes.slice(data, data + top * HASH);
    const depths: number[] = [];
    for (let h = 0; h < top; h++) {
      const at = data + top * HASH + 2 * h;
      depths.push((this.bytes[at]! << 8) | this.bytes[at + 1]!);
    }
    this.lower.set(i, { hashes, depths });
  }

  // d1 d2, then the data (first hash) or the previous hash, the children's depths, the children's hashes.
  private readonly scratch = new Uint8Array(2 + 128 + 4 * 2 + 4 * HASH);

  private hashAt(i: number, level: number, levelMask: number, prev: Uint8Array | null, merkle: boolean): { digest: Uint8Array; depth: number } {
    const s = this.scratch;
    const d1 = this.d1s[i]!;
    const bitLength = this.bits[i]!;
    const n = d1 & 7;
    s[0] = n | (d1 & 8) | (levelMask << 5);
    s[1] = (bitLength >> 3) + ((bitLength + 7) >> 3);
    let p = 2;
    if (prev) {
      s.set(prev, p);
      p += HASH;
    } else {
      const start = this.dataAt[i]!;
      const length = (bitLength + 7) >> 3;
      // The BoC holds the data already padded with its completion tag, as the hash wants it.
      for (let b = 0; b < length; b++) s[p + b] = this.bytes[start + b]!;
      p += length;
    }
    const childLevel = merkle ? level + 1 : level;
    let depth = 0;
    for (let k = 0; k < n; k++) {
      const c = this.refs[i * 4 + k]!;
      const d = this.depth(c, childLevel);
      if (d + 1 > depth) depth = d + 1;
      s[p++] = d >> 8;
      s[p++] = d & 0xff;
    }
    for (let k = 0; k < n; k++) {
      s.set(this.hash(this.refs[i * 4 + k]!, childLevel), p);
      p += HASH;
    }
    if (depth > 1024) throw new BocError('absurd-size', `cell ${i} is ${depth} cells deep (at most 1024)`);
    return { digest: oneShot('sha256', s.subarray(0, p), 'buffer') as unknown as Uint8Array, depth };
  }
}
