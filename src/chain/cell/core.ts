// The edge to @ton/core: its Cell into an arena cell and back, for the parts that build cells or run the
// TVM (devnet, sandbox, proof building). Its cells are written with their bytes copied whole (its toBoc
// copies bits one at a time and re-hashes every cell to sort them) and then parsed like any BoC.
import { Cell } from '@ton/core';
import type { CellRef } from './cell.js';
import { bocRoot } from './parse.js';
import { BocWriter, bytesFor } from './serialize.js';

const EMPTY = new Uint8Array(0);

/** The cell's data bits as bytes (last byte zero-padded), using the public BitString API only. */
export function cellBytes(cell: Cell): Uint8Array {
  const bits = cell.bits;
  const length = bits.length;
  if (length === 0) return EMPTY;
  const whole = length & ~7;
  if (whole === length) {
    const direct = bits.subbuffer(0, length);
    if (direct) return direct;
  }
  const out = new Uint8Array((length + 7) >> 3);
  const head = whole > 0 ? bits.subbuffer(0, whole) : EMPTY;
  if (head) out.set(head);
  for (let i = head ? whole : 0; i < length; i++) {
    if (bits.at(i)) out[i >> 3]! |= 0x80 >> (i & 7);
  }
  return out;
}

/** One cell as the BoC writes it: descriptor inputs, padded data, children. */
interface Node {
  bytes: Uint8Array;
  bitLength: number;
  refs: Cell[];
  exotic: boolean;
  levelMask: number;
}

const nodeOf = (cell: Cell): Node => ({ bytes: cellBytes(cell), bitLength: cell.bits.length, refs: cell.refs, exotic: cell.isExotic, levelMask: cell.mask.value });

/** A standard BoC (no index, CRC32-C) of an @ton/core cell: root first, then reverse post-order. */
export function coreCellToBoc(cell: Cell): Buffer {
  return serialize(nodeOf(cell));
}

/** A standard BoC of an ordinary cell of these bits (zero-padded) and references, without building it. */
export function coreRestToBoc(bytes: Uint8Array, bitLength: number, refs: Cell[]): Buffer {
  let levelMask = 0;
  for (const ref of refs) levelMask |= ref.mask.value;
  return serialize({ bytes, bitLength, refs, exotic: false, levelMask });
}

function serialize(root: Node): Buffer {
  // Cells are ordered by identity: they come from one parsed BoC or one builder, already de-duplicated.
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
  const w = new BocWriter(cells.length, sizeBytes, totalCellSize);
  const { out } = w;
  for (const c of cells) {
    const dataLength = (c.bitLength + 7) >> 3;
    out[w.p++] = c.refs.length + (c.exotic ? 8 : 0) + c.levelMask * 32;
    out[w.p++] = dataLength + (c.bitLength >> 3);
    out.set(c.bytes.subarray(0, dataLength), w.p);
    // Completion tag: a 1 bit right after the data when it does not fill the last byte.
    if (c.bitLength & 7) out[w.p + dataLength - 1]! |= 0x80 >> (c.bitLength & 7);
    w.p += dataLength;
    for (const ref of c.refs) w.writeN(index.get(ref)!, sizeBytes);
  }
  return w.finish();
}

/** An @ton/core cell as an arena cell (the root of its own arena). */
export function fromCore(cell: Cell): CellRef {
  return bocRoot(coreCellToBoc(cell));
}

/** An arena cell as an @ton/core cell (for builders and the TVM). */
export function toCore(cell: CellRef): Cell {
  return Cell.fromBoc(cell.toBoc())[0]!;
}
