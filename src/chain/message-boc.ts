// The first check of a submitted message on every chain source: the bytes are a BoC with one root.
import { Cell } from '@ton/core';
import { ChainRejectedError } from './source.js';

/** The one root cell of a submitted BoC; anything else is refused as `invalid_boc`. */
export function singleRootBoc(boc: Buffer): Cell {
  try {
    const roots = Cell.fromBoc(boc);
    if (roots.length !== 1) throw new Error(`expected one root cell, got ${roots.length}`);
    return roots[0]!;
  } catch (err) {
    throw new ChainRejectedError(`invalid message BoC: ${err instanceof Error ? err.message : String(err)}`, 'invalid_boc');
  }
}
