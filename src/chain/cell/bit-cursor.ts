// Sequential reading of a cell's data bits from bytes, shared by both readers (Slice over arena cells,
// CellReader over @ton/core cells): integers with plain numbers up to 48 bits (BigInt only above), whole
// bytes without copying when aligned. @ton/core's Slice reads bit by bit through BigInt.
import { CellLayoutError } from './errors.js';

export abstract class BitCursor {
  protected bit = 0;

  /** `bytes` holds the data from bit offset `base`, `bitLength` bits of it. */
  protected constructor(
    protected readonly bytes: Uint8Array,
    protected readonly base: number,
    protected readonly bitLength: number,
  ) {}

  get remainingBits(): number {
    return this.bitLength - this.bit;
  }

  /** An independent reader at the same place. */
  clone(): this {
    return Object.assign(Object.create(Object.getPrototypeOf(this) as object) as this, this);
  }

  protected need(n: number): void {
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
    if (n <= 64) {
      // query ids and lts: two plain reads, one BigInt when the value fits a double exactly
      const hi = this.uint(n - 32);
      const lo = this.uint(32);
      return hi < 0x200000 ? BigInt(hi * 0x100000000 + lo) : (BigInt(hi) << 32n) | BigInt(lo);
    }
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

  /** `n` whole bytes: a view into the cell's bytes when aligned, else a copy. */
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
}
