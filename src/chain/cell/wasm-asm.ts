// The little WebAssembly assembler the cell hasher is written in (sha256.ts, hash-cells.ts): the opcodes they
// use, LEB128 immediates, and a code buffer with one method per instruction, so the generators read like
// the program they emit. Spec: https://webassembly.github.io/spec/core/binary/instructions.html

export const op = {
  block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b, br: 0x0c, brIf: 0x0d, return: 0x0f, call: 0x10,
  get: 0x20, set: 0x21, tee: 0x22,
  load: 0x28, load8u: 0x2d, load16u: 0x2f, store: 0x36, store8: 0x3a, store16: 0x3b,
  const: 0x41, eqz: 0x45, eq: 0x46, ne: 0x47, ltU: 0x49, gtU: 0x4b, geU: 0x4f,
  popcnt: 0x69, add: 0x6a, sub: 0x6b, mul: 0x6c, and: 0x71, or: 0x72, xor: 0x73, shl: 0x74, shrU: 0x76, rotl: 0x77, rotr: 0x78,
} as const;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

export function sleb(n: number): number[] {
  n |= 0;
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return (out.push(b), out);
    out.push(b | 0x80);
  }
}

/** Bytes of one function body, appended to by instruction. Memory accesses take a constant offset. */
export class Code {
  readonly c: number[] = [];
  emit(...bytes: number[]): this {
    this.c.push(...bytes);
    return this;
  }
  get(l: number): this {
    return this.emit(op.get, l);
  }
  set(l: number): this {
    return this.emit(op.set, l);
  }
  tee(l: number): this {
    return this.emit(op.tee, l);
  }
  i32(v: number): this {
    return this.emit(op.const, ...sleb(v));
  }
  load(offset = 0): this {
    return this.emit(op.load, 2, ...uleb(offset));
  }
  load8(offset = 0): this {
    return this.emit(op.load8u, 0, ...uleb(offset));
  }
  load16(offset = 0): this {
    return this.emit(op.load16u, 1, ...uleb(offset));
  }
  store(offset = 0): this {
    return this.emit(op.store, 2, ...uleb(offset));
  }
  store8(offset = 0): this {
    return this.emit(op.store8, 0, ...uleb(offset));
  }
  store16(offset = 0): this {
    return this.emit(op.store16, 1, ...uleb(offset));
  }
  /** memory.copy: (dest, src, n) on the stack. */
  copy(): this {
    return this.emit(0xfc, 10, 0, 0);
  }
  /** memory.fill: (dest, byte, n) on the stack. */
  fill(): this {
    return this.emit(0xfc, 11, 0);
  }
}

/** A module section: id, size, body. */
export function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}
