// Writes cells of a CellArena back as a standard BoC (magic b5ee9c72, no index, CRC32-C): the root first,
// then the cells under it in reverse post-order of a depth-first walk, each copied from the arena's bytes
// with its references renumbered. The same bytes core.ts writes from @ton/core cells.
import type { CellArena } from './arena.js';
import { crc32c } from './crc32c.js';

const MAGIC = 0xb5ee9c72;

/** A root that is not (yet) an arena cell: the unread rest of a slice, with arena references. */
export interface LooseRoot {
  /** Data bits, zero-padded (no completion tag). */
  bytes: Uint8Array;
  bitLength: number;
  refs: number[];
}

/** A BoC of arena cell `root` and everything under it. */
export function writeBoc(arena: CellArena, root: number): Buffer {
  return write(arena, root, null);
}

/** A BoC whose root is `loose` (an ordinary cell) over arena cells. */
export function writeLooseBoc(arena: CellArena, loose: LooseRoot): Buffer {
  return write(arena, -1, loose);
}

function write(arena: CellArena, root: number, loose: LooseRoot | null): Buffer {
  const { d1s, bits, refs, dataAt, bytes } = arena;
  const { mark, index, stamp } = arena.walkScratch();
  // Parents before children: reverse post-order of a depth-first walk from the root's references
  // (iterative: a BoC may be deeper than the stack).
  const postOrder: number[] = [];
  const rootRefs = loose ? loose.refs : Array.from({ length: d1s[root]! & 7 }, (_, k) => refs[root * 4 + k]!);
  if (!loose) mark[root] = stamp;
  const stack: number[] = [];
  const next: number[] = [];
  for (const r of rootRefs) {
    if (mark[r] === stamp) continue;
    mark[r] = stamp;
    stack.push(r);
    next.push(0);
    while (stack.length > 0) {
      const top = stack.length - 1;
      const i = stack[top]!;
      const k = next[top]!;
      if (k < (d1s[i]! & 7)) {
        next[top] = k + 1;
        const c = refs[i * 4 + k]!;
        if (mark[c] !== stamp) {
          mark[c] = stamp;
          stack.push(c);
          next.push(0);
        }
      } else {
        postOrder.push(i);
        stack.pop();
        next.pop();
      }
    }
  }
  if (!loose) index[root] = 0;
  const order: number[] = [];
  for (let i = postOrder.length - 1; i >= 0; i--) {
    index[postOrder[i]!] = order.length + 1;
    order.push(postOrder[i]!);
  }
  const count = order.length + 1;
  const sizeBytes = bytesFor(count);
  const rootBits = loose ? loose.bitLength : bits[root]!;
  let totalSize = 2 + ((rootBits + 7) >> 3) + rootRefs.length * sizeBytes;
  for (const i of order) totalSize += 2 + ((bits[i]! + 7) >> 3) + (d1s[i]! & 7) * sizeBytes;
  const w = new BocWriter(count, sizeBytes, totalSize);
  const { out } = w;
  const cell = (i: number): void => {
    const bitLength = bits[i]!;
    const length = (bitLength + 7) >> 3;
    out[w.p++] = d1s[i]!;
    out[w.p++] = (bitLength >> 3) + length;
    out.set(bytes.subarray(dataAt[i]!, dataAt[i]! + length), w.p);
    w.p += length;
    for (let k = 0; k < (d1s[i]! & 7); k++) w.writeN(index[refs[i * 4 + k]!]!, sizeBytes);
  };
  if (loose) {
    const length = (loose.bitLength + 7) >> 3;
    let mask = 0;
    for (const r of loose.refs) mask |= d1s[r]! >> 5;
    out[w.p++] = loose.refs.length | (mask << 5);
    out[w.p++] = (loose.bitLength >> 3) + length;
    out.set(loose.bytes.subarray(0, length), w.p);
    // Completion tag: a 1 bit right after the data when it does not fill the last byte.
    if (loose.bitLength & 7) out[w.p + length - 1]! |= 0x80 >> (loose.bitLength & 7);
    w.p += length;
    for (const r of loose.refs) w.writeN(index[r]!, sizeBytes);
  } else {
    cell(root);
  }
  for (const i of order) cell(i);
  return w.finish();
}

/** Bytes for a number up to `n` in a BoC header (at least one). */
export const bytesFor = (n: number): number => Math.max(1, Math.ceil((32 - Math.clz32(n)) / 8));

/** A one-root BoC being written (no index, CRC32-C): the header on construction, cells at `p`, then finish. */
export class BocWriter {
  readonly out: Buffer;
  p = 0;

  constructor(count: number, readonly sizeBytes: number, totalSize: number) {
    const offsetBytes = bytesFor(totalSize);
    this.out = Buffer.allocUnsafe(4 + 2 + 3 * sizeBytes + offsetBytes + sizeBytes + totalSize + 4);
    this.out.writeUInt32BE(MAGIC, 0);
    this.out[4] = 0x40 | sizeBytes; // has_idx 0, has_crc32c 1, has_cache_bits 0, flags 0, size
    this.out[5] = offsetBytes;
    this.p = 6;
    this.writeN(count, sizeBytes);
    this.writeN(1, sizeBytes); // roots
    this.writeN(0, sizeBytes); // absent
    this.writeN(totalSize, offsetBytes);
    this.writeN(0, sizeBytes); // root index
  }

  /** `value` big-endian in `n` bytes. */
  writeN(value: number, n: number): void {
    for (let k = n - 1; k >= 0; k--) {
      this.out[this.p + k] = value & 0xff;
      value = Math.floor(value / 256);
    }
    this.p += n;
  }

  /** The BoC with its CRC32-C. */
  finish(): Buffer {
    this.out.writeUInt32LE(crc32c(this.out.subarray(0, this.p)), this.p);
    return this.out;
  }
}
