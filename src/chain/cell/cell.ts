// One cell of a CellArena: the arena and the cell's index, nothing else. Made when a reader follows a
// reference (cheap, short-lived); everything it answers is read from the arena's arrays.
import type { CellArena } from './arena.js';
import { ExoticType } from './arena.js';
import { writeBoc } from './serialize.js';

export class CellRef {
  constructor(
    readonly arena: CellArena,
    readonly index: number,
  ) {}

  get bitLength(): number {
    return this.arena.bits[this.index]!;
  }

  get refCount(): number {
    return this.arena.d1s[this.index]! & 7;
  }

  get isExotic(): boolean {
    return (this.arena.d1s[this.index]! & 8) !== 0;
  }

  /** ExoticType, or 0 for an ordinary cell. */
  get exoticType(): number {
    return this.arena.exoticType(this.index);
  }

  get isPruned(): boolean {
    return this.arena.exoticType(this.index) === ExoticType.PrunedBranch;
  }

  get levelMask(): number {
    return this.arena.d1s[this.index]! >> 5;
  }

  ref(k: number): CellRef {
    if (k >= this.refCount) throw new RangeError(`cell has ${this.refCount} references, not ${k + 1}`);
    return new CellRef(this.arena, this.arena.refs[this.index * 4 + k]!);
  }

  get refs(): CellRef[] {
    const out: CellRef[] = [];
    for (let k = 0; k < this.refCount; k++) out.push(this.ref(k));
    return out;
  }

  /** Hash at `level` (default: the representation hash), a view into the arena: copy it to keep it. */
  hashBytes(level = 3): Uint8Array {
    return this.arena.hash(this.index, level);
  }

  hash(level = 3): Buffer {
    return Buffer.from(this.arena.hash(this.index, level));
  }

  hashHex(level = 3): string {
    const h = this.arena.hash(this.index, level);
    return Buffer.from(h.buffer, h.byteOffset, h.byteLength).toString('hex');
  }

  depth(level = 3): number {
    return this.arena.depth(this.index, level);
  }

  /** The data bits as bytes (a view into the BoC; the last byte ends with the completion tag when unaligned). */
  dataBytes(): Uint8Array {
    const at = this.arena.dataAt[this.index]!;
    return this.arena.bytes.subarray(at, at + ((this.bitLength + 7) >> 3));
  }

  /** A standard BoC (no index, CRC32-C) of this cell and everything under it. */
  toBoc(): Buffer {
    return writeBoc(this.arena, this.index);
  }

  equals(other: CellRef): boolean {
    return other.arena === this.arena ? other.index === this.index : Buffer.from(this.hashBytes()).equals(other.hashBytes());
  }
}
