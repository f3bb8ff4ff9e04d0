// A reader over an @ton/core cell, for the callers that hold those (the block builder, proof checks, the
// TVM's results): the same bit reading as Slice (BitCursor) over the cell's bytes.
import { beginCell, CellType, type Cell } from '@ton/core';
import { BitCursor } from './bit-cursor.js';
import { CellRef } from './cell.js';
import { cellBytes, coreCellToBoc, coreRestToBoc } from './core.js';
import { CellLayoutError, PrunedCellError } from './errors.js';
import type { Reader } from './reader.js';
import { Slice } from './slice.js';

/** A reader over either kind of cell: arena cells (the decode path) or @ton/core cells (the edges). */
export function readerOf(cell: Cell | CellRef): Reader<Cell> | Reader<CellRef> {
  return cell instanceof CellRef ? new Slice(cell) : new CellReader(cell);
}

export class CellReader extends BitCursor implements Reader<Cell> {
  private refIndex = 0;

  constructor(readonly cell: Cell) {
    // Strict on pruned branches always: reading their raw bits as a layout would invent data.
    if (cell.type === CellType.PrunedBranch) throw new PrunedCellError(cell.hash(0).toString('hex'));
    super(cellBytes(cell), 0, cell.bits.length);
  }

  get remainingRefs(): number {
    return this.cell.refs.length - this.refIndex;
  }

  /** Exotic cells (pruned branches, Merkle proofs) carry no readable layout. */
  get isExotic(): boolean {
    return this.cell.isExotic;
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
