// CurrencyCollection arithmetic for the augmented maps and value flows of blocks (block.tlb):
//   currencies$_ grams:Grams other:ExtraCurrencyCollection = CurrencyCollection
import { beginCell, Dictionary, type Builder, type Cell, type CurrencyCollection } from '@ton/core';
import { CellRef } from '../cell/cell.js';
import { toCore } from '../cell/core.js';
import type { Reader } from '../cell/reader.js';

export const ZERO: CurrencyCollection = { coins: 0n };

export function currency(coins: bigint): CurrencyCollection {
  return { coins };
}

/** a + b, extra currencies added by id. */
export function addCurrency(a: CurrencyCollection, b: CurrencyCollection): CurrencyCollection {
  if (!a.other && !b.other) return { coins: a.coins + b.coins };
  const other = Dictionary.empty(Dictionary.Keys.Uint(32), Dictionary.Values.BigVarUint(5));
  for (const src of [a.other, b.other]) {
    if (!src) continue;
    for (const [id, amount] of src) other.set(id, (other.get(id) ?? 0n) + amount);
  }
  return { coins: a.coins + b.coins, other };
}

/**
 * A CurrencyCollection whose extra-currency map is kept as its root cell: reading it never walks the map,
 * so it round-trips even inside a Merkle proof where the map is pruned.
 */
export interface RawCurrency {
  coins: bigint;
  other: Cell | null;
}

export function readRawCurrency(r: Reader<Cell>): RawCurrency {
  return { coins: r.coins(), other: r.maybeRef() };
}

export function storeRawCurrency(src: RawCurrency): (b: Builder) => void {
  return (b) => {
    b.storeCoins(src.coins);
    if (src.other) b.storeBit(1).storeRef(src.other);
    else b.storeBit(0);
  };
}

export function rawCurrency(c: CurrencyCollection): RawCurrency {
  if (!c.other || c.other.size === 0) return { coins: c.coins, other: null };
  return { coins: c.coins, other: beginCell().storeDictDirect(c.other).endCell() };
}

/**
 * A CurrencyCollection over either kind of cell, extra currencies included, as @ton/core's
 * loadCurrencyCollection gives it ({ coins } when no extras); decode/message.ts's readCurrencyCollection
 * gives the coins alone.
 */
export function readCurrencyWithExtras(r: Reader): CurrencyCollection {
  const coins = r.coins();
  const root = r.maybeRef();
  if (root === null) return { coins };
  const cell = root instanceof CellRef ? toCore(root) : (root as Cell);
  const other = Dictionary.loadDirect(Dictionary.Keys.Uint(32), Dictionary.Values.BigVarUint(5), cell);
  return other.size === 0 ? { coins } : { coins, other };
}
