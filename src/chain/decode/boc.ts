// Bag-of-cells serialisation for the BoCs the model carries (message bodies, payloads, transactions).
// @ton/core's toBoc copies bits one at a time and re-hashes every cell to sort them, which made it
// the largest cost of decoding a transaction; cells here are ordered by identity (they come from one
// parsed BoC, already de-duplicated) and written from their bytes. The output is a standard BoC
// (magic b5ee9c72, no index, CRC32-C) that any reader, @ton/core included, parses back.
import type { Cell } from '@ton/core';
import { cellBytes, type CellReader } from './reader.js';

const MAGIC = 0xb5ee9c72;

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

export function crc32c(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = CRC32C_TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** One cell as the BoC writes it: descriptor inputs, padded data, children. */
interface Node {
  bytes: Uint8Array;
  bitLength: number;
  refs: Cell[];
  exotic: boolean;
  levelMask: number;
}

const nodeOf = (cell: Cell): Node => ({
  bytes: cellBytes(cell),
  bitLength: cell.bits.length,
  refs: cell.refs,
  exotic: cell.isExotic,
  levelMask: cell.mask.value,
});

const bytesFor = (n: number): number => Math.max(1, Math.ceil((32 - Math.clz32(n)) / 8));

function serialize(root: Node): Buffer {
  // Parents before children: reverse post-order of a depth-first walk.
  const index = new Map<Cell, number>();
  const postOrder: Cell[] = [];
  const visit = (cell: Cell): void => {
    if (index.has(cell)) return;
    index.set(cell, -1);
    for (const ref of cell.refs) visit(ref);
    postOrder.push(cell);
  };
  for (const ref of root.refs) visit(ref);
  const cells: Node[] = [root];
  for (let i = postOrder.length - 1; i >= 0; i--) {
    index.set(postOrder[i]!, cells.length);
    cells.push(nodeOf(postOrder[i]!));
  }

  const sizeBytes = bytesFor(cells.length);
  let totalCellSize = 0;
  for (const c of cells) totalCellSize += 2 + ((c.bitLength + 7) >> 3) + c.refs.length * sizeBytes;
  const offsetBytes = bytesFor(totalCellSize);
  const headerSize = 4 + 1 + 1 + 3 * sizeBytes + offsetBytes + sizeBytes;
  const out = Buffer.alloc(headerSize + totalCellSize + 4);
  let p = 0;
  const writeN = (value: number, n: number): void => {
    for (let i = n - 1; i >= 0; i--) out[p + i] = Math.floor(value / 2 ** (8 * (n - 1 - i))) & 0xff;
    p += n;
  };
  out.writeUInt32BE(MAGIC, 0);
  p = 4;
  out[p++] = 0x40 | sizeBytes; // has_idx 0, has_crc32c 1, has_cache_bits 0, flags 0, size
  out[p++] = offsetBytes;
  writeN(cells.length, sizeBytes);
  writeN(1, sizeBytes); // roots
  writeN(0, sizeBytes); // absent
  writeN(totalCellSize, offsetBytes);
  writeN(0, sizeBytes); // root index
  for (const c of cells) {
    const dataLength = (c.bitLength + 7) >> 3;
    out[p++] = c.refs.length + (c.exotic ? 8 : 0) + c.levelMask * 32;
    out[p++] = dataLength + (c.bitLength >> 3);
    out.set(c.bytes.subarray(0, dataLength), p);
    // Completion tag: a 1 bit right after the data when it does not fill the last byte.
    if (c.bitLength & 7) out[p + dataLength - 1]! |= 0x80 >> (c.bitLength & 7);
    p += dataLength;
    for (const ref of c.refs) writeN(index.get(ref)!, sizeBytes);
  }
  out.writeUInt32LE(crc32c(out.subarray(0, p)), p);
  return out;
}

/** A standard BoC of `cell`. */
export function cellToBoc(cell: Cell): Buffer {
  return serialize(nodeOf(cell));
}

/** A standard BoC of the unread part of `r` as its own ordinary cell, without building that cell. */
export function restToBoc(r: CellReader): Buffer {
  const { bytes, bitLength } = r.restBits();
  const refs = r.restRefs();
  let levelMask = 0;
  for (const ref of refs) levelMask |= ref.mask.value;
  return serialize({ bytes, bitLength, refs, exotic: false, levelMask });
}
