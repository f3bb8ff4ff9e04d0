// The errors of the cell layer. A BoC that is not one is a BocError (with a code naming what is wrong); a
// cell that does not hold what a layout says is a CellLayoutError, which decoders turn into a reason.

export type BocErrorCode =
  | 'truncated'
  | 'bad-magic'
  | 'bad-header'
  | 'bad-crc'
  | 'absurd-size'
  | 'bad-ref'
  | 'bad-cell'
  | 'bad-exotic';

/** Thrown when bytes are not a well-formed bag of cells; nothing of it is usable. */
export class BocError extends Error {
  constructor(readonly code: BocErrorCode, message: string) {
    super(`malformed BoC (${code}): ${message}`);
    this.name = 'BocError';
  }
}

/** Thrown when a cell does not hold what the layout says; decoders turn it into a reason. */
export class CellLayoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CellLayoutError';
  }
}

/**
 * Thrown when a reader is opened on a pruned branch: its bits are hashes of a cell a proof left out, never
 * data. A CellLayoutError, so decoders that turn layout errors into a reason do so; proof checks report it
 * as "not proven".
 */
export class PrunedCellError extends CellLayoutError {
  constructor(readonly prunedHash: string) {
    super(`cell ${prunedHash.slice(0, 16)}… is pruned (not in the proof)`);
    this.name = 'PrunedCellError';
  }
}
