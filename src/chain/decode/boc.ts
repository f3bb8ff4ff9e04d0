// BoCs of @ton/core cells for the model (message bodies, payloads, transactions): the writer lives in the
// cell layer (cell/core.ts); these names stay for the callers that hold @ton/core cells.
import type { Cell } from '@ton/core';
import { coreCellToBoc } from '../cell/core.js';
import type { CellReader } from './reader.js';

export { crc32c } from '../cell/crc32c.js';

/** A standard BoC of `cell`. */
export function cellToBoc(cell: Cell): Buffer {
  return coreCellToBoc(cell);
}

/** A standard BoC of the unread part of `r` as its own ordinary cell, without building that cell. */
export function restToBoc(r: CellReader): Buffer {
  return r.restToBoc();
}
