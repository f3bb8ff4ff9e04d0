// TL (Type Language) binary primitives as TON's ADNL, liteserver and signature payloads use them:
// little-endian 32/64-bit integers, 256-bit hashes as raw bytes, byte strings padded to 4 bytes,
// vectors prefixed by a 32-bit count. Boxed values start with a 32-bit constructor id, bare ones don't.
import { crc32 } from 'node:zlib';

/** A malformed or unexpected TL value: the message names what was being read and where. */
export class TLError extends Error {
  override readonly name = 'TLError';
}

/**
 * Normalizes a TL declaration the way TON's schema compiler hashes it: no comment, no trailing `;`,
 * no explicit `#id`, no parentheses, single spaces.
 */
export function tlNormalize(declaration: string): string {
  return declaration
    .replace(/\/\/.*$/m, '')
    .replace(/;\s*$/, '')
    .replace(/^(\S+?)#[0-9a-fA-F]{1,8}(?=\s|$)/, '$1')
    .replace(/[()]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Constructor id of a TL declaration: crc32 of its normalized one-line text (unsigned). */
export function tlId(declaration: string): number {
  return crc32(tlNormalize(declaration)) >>> 0;
}

/** Hex form of a constructor id as schemas write it (`4d082b9a`). */
export function tlIdHex(id: number): string {
  return (id >>> 0).toString(16).padStart(8, '0');
}

export class TLWriter {
  private buf: Buffer;
  private len = 0;

  constructor(initialSize = 256) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  /** A constructor id (boxed value's first word). */
  id(constructorId: number): this {
    return this.uint32(constructorId);
  }

  int32(v: number): this {
    if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) throw new TLError(`int32 out of range: ${v}`);
    this.reserve(4);
    this.buf.writeInt32LE(v, this.len);
    this.len += 4;
    return this;
  }

  uint32(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new TLError(`uint32 out of range: ${v}`);
    this.reserve(4);
    this.buf.writeUInt32LE(v, this.len);
    this.len += 4;
    return this;
  }

  /** TL `long`: signed 64-bit. */
  int64(v: bigint): this {
    if (v < -(1n << 63n) || v >= 1n << 63n) throw new TLError(`int64 out of range: ${v}`);
    this.reserve(8);
    this.buf.writeBigInt64LE(v, this.len);
    this.len += 8;
    return this;
  }

  /** TL `int256`: 32 raw bytes (hashes and keys, written as stored). */
  int256(v: Uint8Array): this {
    if (v.length !== 32) throw new TLError(`int256 must be 32 bytes, got ${v.length}`);
    return this.raw(v);
  }

  /** TL `int128`: 16 raw bytes. */
  int128(v: Uint8Array): this {
    if (v.length !== 16) throw new TLError(`int128 must be 16 bytes, got ${v.length}`);
    return this.raw(v);
  }

  /** TL `bytes`: a 1-byte (< 254) or 0xfe + 3-byte length, the data, zero padding to a multiple of 4. */
  bytes(v: Uint8Array): this {
    const n = v.length;
    if (n >= 1 << 24) throw new TLError(`bytes too long for TL: ${n}`);
    const head = n < 254 ? 1 : 4;
    const pad = (4 - ((head + n) % 4)) % 4;
    this.reserve(head + n + pad);
    if (head === 1) this.buf[this.len++] = n;
    else {
      this.buf[this.len++] = 0xfe;
      this.buf.writeUIntLE(n, this.len, 3);
      this.len += 3;
    }
    this.buf.set(v, this.len);
    this.len += n;
    this.buf.fill(0, this.len, this.len + pad);
    this.len += pad;
    return this;
  }

  /** TL `string`: UTF-8 in the `bytes` encoding. */
  string(v: string): this {
    return this.bytes(Buffer.from(v, 'utf8'));
  }

  /** Boxed `Bool`: boolTrue / boolFalse. */
  bool(v: boolean): this {
    return this.uint32(v ? BOOL_TRUE : BOOL_FALSE);
  }

  /** Bytes written as they are (already-serialized TL, or a fixed-size field). */
  raw(v: Uint8Array): this {
    this.reserve(v.length);
    this.buf.set(v, this.len);
    this.len += v.length;
    return this;
  }

  /** Bare `vector t`: a 32-bit count, then each item. */
  vector<T>(items: readonly T[], write: (w: TLWriter, item: T) => void): this {
    this.uint32(items.length);
    for (const item of items) write(this, item);
    return this;
  }

  get length(): number {
    return this.len;
  }

  /** The bytes written so far (a copy). */
  finish(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.len));
  }
}

export class TLReader {
  private pos = 0;

  constructor(private readonly buf: Uint8Array) {}

  private view(): Buffer {
    return Buffer.from(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  private need(n: number, what: string): void {
    if (this.pos + n > this.buf.length) {
      throw new TLError(`TL: ${what} needs ${n} bytes at offset ${this.pos}, only ${this.buf.length - this.pos} left`);
    }
  }

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  int32(): number {
    this.need(4, 'int');
    const v = this.view().readInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  uint32(): number {
    this.need(4, 'uint32');
    const v = this.view().readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }

  /** Reads a constructor id without consuming it. */
  peekId(): number {
    this.need(4, 'constructor id');
    return this.view().readUInt32LE(this.pos);
  }

  /** Reads a constructor id and checks it is `expected`; `what` names the type in the error. */
  expectId(expected: number, what: string): void {
    const got = this.uint32();
    if (got !== expected >>> 0) {
      throw new TLError(`TL: expected ${what} (#${tlIdHex(expected)}) at offset ${this.pos - 4}, got #${tlIdHex(got)}`);
    }
  }

  int64(): bigint {
    this.need(8, 'long');
    const v = this.view().readBigInt64LE(this.pos);
    this.pos += 8;
    return v;
  }

  int256(): Buffer {
    return this.raw(32, 'int256');
  }

  int128(): Buffer {
    return this.raw(16, 'int128');
  }

  bytes(): Buffer {
    this.need(1, 'bytes length');
    const first = this.buf[this.pos]!;
    let head = 1;
    let n = first;
    if (first === 0xfe) {
      this.need(4, 'bytes length');
      n = this.view().readUIntLE(this.pos + 1, 3);
      head = 4;
    } else if (first === 0xff) {
      throw new TLError(`TL: bytes with 0xff length prefix at offset ${this.pos} are not supported`);
    }
    const pad = (4 - ((head + n) % 4)) % 4;
    this.need(head + n + pad, 'bytes');
    const start = this.pos + head;
    const out = Buffer.from(this.buf.subarray(start, start + n));
    this.pos = start + n + pad;
    return out;
  }

  string(): string {
    return this.bytes().toString('utf8');
  }

  bool(): boolean {
    const id = this.uint32();
    if (id === BOOL_TRUE) return true;
    if (id === BOOL_FALSE) return false;
    throw new TLError(`TL: expected Bool at offset ${this.pos - 4}, got #${tlIdHex(id)}`);
  }

  raw(n: number, what = 'raw bytes'): Buffer {
    this.need(n, what);
    const out = Buffer.from(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return out;
  }

  /** Bare `vector t`. `max` bounds the count so a hostile length cannot allocate without limit. */
  vector<T>(read: (r: TLReader) => T, max = 1 << 20): T[] {
    const n = this.uint32();
    if (n > max || n > this.remaining) throw new TLError(`TL: vector of ${n} items at offset ${this.pos - 4} is too long`);
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(read(this));
    return out;
  }

  /** The rest of the buffer, consumed. */
  rest(): Buffer {
    return this.raw(this.remaining);
  }

  /** Throws when bytes are left over: `what` names the value that should have filled the buffer. */
  end(what: string): void {
    if (this.remaining !== 0) throw new TLError(`TL: ${this.remaining} bytes left after ${what}`);
  }
}

export const BOOL_TRUE = tlId('boolTrue = Bool');
export const BOOL_FALSE = tlId('boolFalse = Bool');

/** Serializes with a fresh writer: `tlWrite(w => w.id(X).int32(1))`. */
export function tlWrite(write: (w: TLWriter) => void): Buffer {
  const w = new TLWriter();
  write(w);
  return w.finish();
}

/** Reads a whole buffer with `read`, refusing trailing bytes. */
export function tlRead<T>(buf: Uint8Array, read: (r: TLReader) => T, what: string): T {
  const r = new TLReader(buf);
  const v = read(r);
  r.end(what);
  return v;
}
