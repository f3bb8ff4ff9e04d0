// The cells of one parsed BoC, in typed arrays indexed by the cell's position in the BoC: where its data
// starts in the BoC's own bytes (never copied), its bit length, its descriptor (references, exotic flag,
// level mask) and its references. Hashes and depths are computed when one is first asked for, for every
// cell at once in one WebAssembly call (sha256.ts, hash-cells.ts), and kept: a cell is hashed once. Levels
// follow the TVM (crypto/vm/cells/DataCell.cpp): a cell with a level mask has one hash per significant level
// (level 0 and each bit of the mask), all kept in one flat array; a pruned branch carries its lower ones in
// its data.
import { BocError } from './errors.js';
import { hashArena, HashError } from './sha256.js';

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
    this.compute();
    const at = this.slot(i, level) * HASH;
    return this.hashes!.subarray(at, at + HASH);
  }

  depth(i: number, level = 3): number {
    this.compute();
    return this.depths![this.slot(i, level)]!;
  }

  /** The hash slot that answers `level`: levels above the mask's repeat the highest significant one. */
  private slot(i: number, level: number): number {
    const mask = this.d1s[i]! >> 5;
    return this.slots![i]! + (level >= 3 ? POP[mask]! : POP[mask & ((1 << level) - 1)]!);
  }

  /** Hashes every cell (the hashes of one usually need all the others: a BoC's cells hang from its roots). */
  private compute(): void {
    if (this.hashes !== null) return;
    const slots = new Uint32Array(this.count);
    let next = 0;
    for (let i = 0; i < this.count; i++) {
      slots[i] = next;
      next += POP[this.d1s[i]! >> 5]! + 1;
    }
    const hashes = new Uint8Array(next * HASH);
    const depths = new Uint16Array(next);
    const { error, cell } = hashArena({ bytes: this.bytes, count: this.count, d1s: this.d1s, bits: this.bits, dataAt: this.dataAt, refs: this.refs, slots, hashes, depths });
    if (error === HashError.MerkleMismatch) throw new BocError('bad-exotic', `Merkle cell ${cell}: its reference's hash is not the one it names`);
    if (error === HashError.TooDeep) throw new BocError('absurd-size', `cell ${cell} is more than 1024 cells deep`);
    if (error !== 0) throw new BocError('bad-cell', `cell ${cell}: hashing failed (${error})`);
    this.slots = slots;
    this.depths = depths;
    this.hashes = hashes;
  }
}
