// A small, fast sequential reader over one cell. @ton/core's Slice reads integers bit by bit through
// BigInt, which dominates the cost of decoding every transaction of the chain; this reader works on
// the cell's bytes with plain numbers and only falls back to BigInt above 48 bits.
import { beginCell, CellType, type Cell } from '@ton/core';
import { CellRef } from './cell.js';
import { cellBytes, coreCellToBoc, coreRestToBoc } from './core.js';
import { CellLayoutError, PrunedCellError } from './errors.js';
import type { Reader } from './reader.js';
import { Slice } from './slice.js';

/** A reader over either kind of cell: arena cells (the decode path) or @ton/core cells (the edges). */
export function readerOf(cell: Cell | CellRef): Reader<Cell> | Reader<CellRef> {
  return cell instanceof CellRef ? new Slice(cell) : new CellReader(cell);
}

export class CellReader implements Reader<Cell> {
  private readonly bytes: Uint8Array;
  private readonly bitLength: number;
  private bit = 0;
  private refIndex = 0;

  constructor(readonly cell: Cell) {
    // Strict on pruned branches always: reading their raw bits as a layout would invent data.
    if (cell.type === CellType.PrunedBranch) throw new PrunedCellError(cell.hash(0).toString('hex'));
    this.bytes = cellBytes(cell);
    this.bitLength = cell.bits.length;
  }

  get remainingBits(): number {
    return this.bitLength - this.bit;
  }

  get remainingRefs(): number {
    return this.cell.refs.length - this.refIndex;
  }

  /** Exotic cells (pruned branches, Merkle proofs) carry no readable layout. */
  get isExotic(): boolean {
    return this.cell.isExotic;
  }

  clone(): CellReader {
    const copy = Object.create(CellReader.prototype) as CellReader;
    Object.assign(copy, this);
    return copy;
  }

  private need(n: number): void {
    if (n > this.bitLength - this.bit) {
      throw new CellLayoutError(`needs ${n} bits, ${this.bitLength - this.bit} left`);
    }
  }

  skip(n: number): void {
    this.need(n);
    this.bit += n;
  }

  bool(): boolean {
    this.need(1);
    const b = this.bit++;
    return (this.bytes[b >> 3]! & (0x80 >> (b & 7))) !== 0;
  }

  /** Unsigned integer of up to 48 bits as a number. */
  uint(n: number): number {
    this.need(n);
    let value = 0;
    let pos = this.bit;
    let left = n;
    while (left > 0) {
      const offset = pos & 7;
      const take = Math.min(8 - offset, left);
      const chunk = (this.bytes[pos >> 3]! >> (8 - offset - take)) & ((1 << take) - 1);
      value = value * (1 << take) + chunk;
      pos += take;
      left -= take;
    }
    this.bit = pos;
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

  /** `n` whole bytes. */
  bytesOf(n: number): Buffer {
    this.need(n * 8);
    if ((this.bit & 7) === 0) {
      const start = this.bit >> 3;
      this.bit += n * 8;
      return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + start, n);
    }
    const out = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) out[i] = this.uint(8);
    return out;
  }

  /** `bits` bits (a multiple of 8) as lowercase hex, e.g. 256 for a hash. */
  hex(bits: number): string {
    return this.bytesOf(bits >> 3).toString('hex');
  }

  ref(): Cell {
    const ref = this.cell.refs[this.refIndex];
    if (!ref) throw new CellLayoutError(`needs a reference, ${this.remainingRefs} left`);
    this.refIndex++;
    return ref;
  }

  refReader(): CellReader {
    return new CellReader(this.ref());
  }

  cellHash(): string {
    return this.cell.hash().toString('hex');
  }

  cellBoc(): Buffer {
    return coreCellToBoc(this.cell);
  }

  restToBoc(): Buffer {
    const { bytes, bitLength } = this.restBits();
    return coreRestToBoc(bytes, bitLength, this.restRefs());
  }

  maybeRef(): Cell | null {
    return this.bool() ? this.ref() : null;
  }

  /** `HashmapE`/`Maybe ^X`: one bit, and a reference when it is set. */
  skipMaybeRef(): void {
    if (this.bool()) this.ref();
  }

  /** The unread bits as bytes (last byte zero-padded) and their count, without building a cell. */
  restBits(): { bytes: Uint8Array; bitLength: number } {
    const bitLength = this.remainingBits;
    if (this.bit === 0) return { bytes: this.bytes, bitLength };
    const out = new Uint8Array((bitLength + 7) >> 3);
    const shift = this.bit & 7;
    const start = this.bit >> 3;
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
  restRefs(): Cell[] {
    return this.refIndex === 0 ? this.cell.refs : this.cell.refs.slice(this.refIndex);
  }

  /** The unread part (bits and references) as a cell; the cell itself when nothing was read. */
  restAsCell(): Cell {
    if (this.bit === 0 && this.refIndex === 0) return this.cell;
    const b = beginCell().storeBits(this.cell.bits.substring(this.bit, this.remainingBits));
    for (let i = this.refIndex; i < this.cell.refs.length; i++) b.storeRef(this.cell.refs[i]!);
    return b.endCell();
  }
}
