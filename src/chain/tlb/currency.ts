// CurrencyCollection arithmetic for the augmented maps and value flows of blocks (block.tlb):
//   currencies$_ grams:Grams other:ExtraCurrencyCollection = CurrencyCollection
import { Dictionary, type CurrencyCollection } from '@ton/core';

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
