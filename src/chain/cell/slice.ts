// A sequential reader over one arena cell: integers read straight from the BoC's bytes with plain numbers
// (BigInt only above 48 bits), nothing copied unless asked for. The same methods as decode's CellReader
// over @ton/core cells, so the TL-B readers work on either.
import { ExoticType } from './arena.js';
import { BitCursor } from './bit-cursor.js';
import { CellRef } from './cell.js';
import { CellLayoutError, PrunedCellError } from './errors.js';
import type { Reader } from './reader.js';
import { writeLooseBoc } from './serialize.js';

export class Slice extends BitCursor implements Reader<CellRef> {
  private refIndex = 0;

  constructor(readonly cell: CellRef) {
    const { arena, index } = cell;
    // Strict on pruned branches always: reading their raw bits as a layout would invent data.
    if (arena.exoticType(index) === ExoticType.PrunedBranch) throw new PrunedCellError(cell.hashHex(0));
    super(arena.bytes, arena.dataAt[index]! * 8, arena.bits[index]!);
  }

  get remainingRefs(): number {
    return this.cell.refCount - this.refIndex;
  }

  /** Exotic cells (pruned branches, Merkle proofs) carry no readable layout. */
  get isExotic(): boolean {
    return this.cell.isExotic;
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
