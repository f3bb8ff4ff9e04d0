// A sequential reader over one arena cell: integers read straight from the BoC's bytes with plain numbers
// (BigInt only above 48 bits), nothing copied unless asked for. The same methods as decode's CellReader
// over @ton/core cells, so the TL-B readers work on either.
import { ExoticType } from './arena.js';
import { CellRef } from './cell.js';
import { CellLayoutError, PrunedCellError } from './errors.js';
import type { Reader } from './reader.js';
import { writeLooseBoc } from './serialize.js';

export class Slice implements Reader<CellRef> {
  private readonly bytes: Uint8Array;
  /** Bit offset of the cell's data in `bytes`. */
  private readonly base: number;
  private readonly bitLength: number;
  private bit = 0;
  private refIndex = 0;

  constructor(readonly cell: CellRef) {
    const { arena, index } = cell;
    // Strict on pruned branches always: reading their raw bits as a layout would invent data.
    if (arena.exoticType(index) === ExoticType.PrunedBranch) throw new PrunedCellError(cell.hashHex(0));
    this.bytes = arena.bytes;
    this.base = arena.dataAt[index]! * 8;
    this.bitLength = arena.bits[index]!;
  }

  get remainingBits(): number {
    return this.bitLength - this.bit;
  }

  get remainingRefs(): number {
    return this.cell.refCount - this.refIndex;
  }

  /** Exotic cells (pruned branches, Merkle proofs) carry no readable layout. */
  get isExotic(): boolean {
    return this.cell.isExotic;
  }

  clone(): Slice {
    const copy = Object.create(Slice.prototype) as Slice;
    Object.assign(copy, this);
    return copy;
  }

  private need(n: number): void {
    if (n > this.bitLength - this.bit) throw new CellLayoutError(`needs ${n} bits, ${this.bitLength - this.bit} left`);
  }

  skip(n: number): void {
    this.need(n);
    this.bit += n;
  }

  bool(): boolean {
    this.need(1);
    const b = this.base + this.bit++;
    return (this.bytes[b >> 3]! & (0x80 >> (b & 7))) !== 0;
  }

  /** Unsigned integer of up to 48 bits as a number. */
  uint(n: number): number {
    this.need(n);
    let value = 0;
    let pos = this.base + this.bit;
    let left = n;
    while (left > 0) {
      const offset = pos & 7;
      const take = Math.min(8 - offset, left);
      const chunk = (this.bytes[pos >> 3]! >> (8 - offset - take)) & ((1 << take) - 1);
      value = value * (1 << take) + chunk;
      pos += take;
      left -= take;
    }
    this.bit += n;
    return value;
  }

  /** Signed (two's complement) integer of up to 48 bits. */
  int(n: number): number {
    if (n === 0) return 0;
    const raw = this.uint(n);
    const top = 2 ** (n - 1);
    return raw >= top ? raw - 2 * top : raw;
  }

  /** Unsigned integer of any width as a bigint. */
  bigUint(n: number): bigint {
    if (n <= 48) return BigInt(this.uint(n));
    this.need(n);
    let value = 0n;
    let left = n;
    while (left > 0) {
      const take = Math.min(32, left);
      value = (value << BigInt(take)) | BigInt(this.uint(take));
      left -= take;
    }
    return value;
  }

  /** `VarUInteger k`, where `lenBits` is the width of its length field (4 for Grams/Coins). */
  varUint(lenBits: number): bigint {
    const len = this.uint(lenBits);
    return len === 0 ? 0n : this.bigUint(len * 8);
  }

  /** Grams / Coins (`VarUInteger 16`). */
  coins(): bigint {
    return this.varUint(4);
  }

  /** `n` whole bytes: a view into the BoC when aligned, else a copy. */
  bytesOf(n: number): Buffer {
    this.need(n * 8);
    const at = this.base + this.bit;
    if ((at & 7) === 0) {
      this.bit += n * 8;
      return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + (at >> 3), n);
    }
    const out = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) out[i] = this.uint(8);
    return out;
  }

  /** `bits` bits (a multiple of 8) as lowercase hex, e.g. 256 for a hash. */
  hex(bits: number): string {
    return this.bytesOf(bits >> 3).toString('hex');
  }

  ref(): CellRef {
    if (this.refIndex >= this.cell.refCount) throw new CellLayoutError(`needs a reference, ${this.remainingRefs} left`);
    const { arena, index } = this.cell;
    return new CellRef(arena, arena.refs[index * 4 + this.refIndex++]!);
  }

  /** A reader over the next reference. */
  refReader(): Slice {
    return new Slice(this.ref());
  }

  maybeRef(): CellRef | null {
    return this.bool() ? this.ref() : null;
  }

  /** `HashmapE`/`Maybe ^X`: one bit, and a reference when it is set. */
  skipMaybeRef(): void {
    if (this.bool()) {
      if (this.refIndex >= this.cell.refCount) throw new CellLayoutError(`needs a reference, ${this.remainingRefs} left`);
      this.refIndex++;
    }
  }

  /** The unread bits as bytes (last byte zero-padded) and their count, without building a cell. */
  restBits(): { bytes: Uint8Array; bitLength: number } {
    const bitLength = this.remainingBits;
    const out = new Uint8Array((bitLength + 7) >> 3);
    const from = this.base + this.bit;
    const shift = from & 7;
    const start = from >> 3;
    for (let i = 0; i < out.length; i++) {
      const hi = this.bytes[start + i]! << shift;
      const lo = shift === 0 ? 0 : (this.bytes[start + i + 1] ?? 0) >> (8 - shift);
      out[i] = (hi | lo) & 0xff;
    }
    const spare = out.length * 8 - bitLength;
    if (spare > 0) out[out.length - 1]! &= (0xff << spare) & 0xff;
    return { bytes: out, bitLength };
  }

  /** The unread references. */
  restRefs(): CellRef[] {
    const out: CellRef[] = [];
    for (let k = this.refIndex; k < this.cell.refCount; k++) out.push(this.cell.ref(k));
    return out;
  }

  cellHash(): string {
    return this.cell.hashHex();
  }

  cellBoc(): Buffer {
    return this.cell.toBoc();
  }

  /** A standard BoC of the unread part as its own ordinary cell (the cell's own when nothing was read). */
  restToBoc(): Buffer {
    if (this.bit === 0 && this.refIndex === 0 && !this.cell.isExotic) return this.cell.toBoc();
    const { arena, index } = this.cell;
    const refs: number[] = [];
    for (let k = this.refIndex; k < this.cell.refCount; k++) refs.push(arena.refs[index * 4 + k]!);
    return writeLooseBoc(arena, { ...this.restBits(), refs });
  }
}
