// What every TL-B reader needs of a cell reader, whichever cells it reads: arena cells (Slice, the hot
// path) or @ton/core cells (CellReader, at the edges that hold those). `C` is the reader's cell type.

export interface Reader<C = unknown> {
  readonly remainingBits: number;
  readonly remainingRefs: number;
  /** Exotic cells (pruned branches, Merkle proofs, libraries) carry no readable layout. */
  readonly isExotic: boolean;
  clone(): Reader<C>;
  skip(n: number): void;
  bool(): boolean;
  /** Unsigned integer of up to 48 bits. */
  uint(n: number): number;
  /** Signed integer of up to 48 bits. */
  int(n: number): number;
  bigUint(n: number): bigint;
  varUint(lenBits: number): bigint;
  coins(): bigint;
  bytesOf(n: number): Buffer;
  hex(bits: number): string;
  /** The next reference. */
  ref(): C;
  /** A reader over the next reference. */
  refReader(): Reader<C>;
  maybeRef(): C | null;
  /** `Maybe ^X`: one bit, and a reference skipped when it is set. */
  skipMaybeRef(): void;
  /** The representation hash of the cell being read, as hex. */
  cellHash(): string;
  /** A standard BoC of the whole cell being read. */
  cellBoc(): Buffer;
  /** A standard BoC of the unread part as its own ordinary cell. */
  restToBoc(): Buffer;
}

/** Number of bits of `#<= m` (and of the length field of `HmLabel` for m). */
export function bitsForMax(m: number): number {
  return m === 0 ? 0 : 32 - Math.clz32(m);
}
