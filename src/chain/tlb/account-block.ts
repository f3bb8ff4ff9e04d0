// The account blocks of BlockExtra (block.tlb): which transactions of which account a block holds.
//   acc_trans#5 account_addr:bits256 transactions:(HashmapAug 64 ^Transaction CurrencyCollection)
//     state_update:^(HASH_UPDATE Account) = AccountBlock
//   _ (HashmapAugE 256 AccountBlock CurrencyCollection) = ShardAccountBlocks
// Extras are the transactions' total fees, summed up the forks (the node's aug rule for both maps).
import {
  beginCell, loadHashUpdate, storeCurrencyCollection, storeHashUpdate,
  type Builder, type Cell, type CurrencyCollection, type HashUpdate, type Slice,
} from '@ton/core';
import { CellReader } from '../cell/core-reader.js';
import type { Reader } from '../cell/reader.js';
import { addCurrency, readCurrencyWithExtras, ZERO } from './currency.js';
import { readHashmapAug, readHashmapAugE, sortByKey, storeHashmap, storeHashmapAugE, type HashmapCodec, type HashmapEntry } from './hashmap.js';

const ACC_TRANS_TAG = 0x5;

export interface AccountBlockTransaction {
  lt: bigint;
  /** The Transaction cell itself. */
  cell: Cell;
  /** The aug extra: the transaction's total_fees. */
  fees: CurrencyCollection;
}

export interface AccountBlock {
  /** The account's 256-bit address within its workchain. */
  address: bigint;
  /** In lt order; at least one. */
  transactions: AccountBlockTransaction[];
  /** Hashes of the Account cell before the first and after the last transaction. */
  stateUpdate: HashUpdate;
}

const feesCodec: Required<HashmapCodec<Cell, CurrencyCollection>> = {
  storeValue: (cell, b) => void b.storeRef(cell),
  extra: { store: (c, b) => void b.store(storeCurrencyCollection(c)), sum: addCurrency },
};

export function loadAccountBlock(r: Reader<Cell>): AccountBlock {
  const tag = r.uint(4);
  if (tag !== ACC_TRANS_TAG) throw new Error(`AccountBlock tag 0x${tag.toString(16)} is not 0x5`);
  const address = r.bigUint(256);
  const entries: HashmapEntry<Cell, CurrencyCollection>[] = [];
  readHashmapAug(r, 64, entries, (v) => v.ref(), readCurrencyWithExtras);
  const stateUpdate = loadHashUpdate(r.ref().beginParse());
  return { address, transactions: entries.map((e) => ({ lt: e.key, cell: e.value, fees: e.extra! })), stateUpdate };
}

/** Writes the AccountBlock and returns its extra (the sum of its transactions' fees). */
export function storeAccountBlock(src: AccountBlock, b: Builder): CurrencyCollection {
  b.storeUint(ACC_TRANS_TAG, 4).storeUint(src.address, 256);
  const entries = src.transactions.map((t) => ({ key: t.lt, value: t.cell, extra: t.fees }));
  const total = storeHashmap(b, sortByKey(entries), 64, feesCodec)!;
  b.storeRef(beginCell().store(storeHashUpdate(src.stateUpdate)));
  return total;
}

export function accountBlockFees(src: AccountBlock): CurrencyCollection {
  return src.transactions.reduce((sum, t) => addCurrency(sum, t.fees), ZERO);
}

/** ShardAccountBlocks at the reader; an @ton/core Slice is read as the cell it spans. */
export function loadShardAccountBlocks(from: Reader<Cell> | Slice): AccountBlock[] {
  const r = 'loadUint' in from ? new CellReader(from.asCell()) : from;
  return readHashmapAugE(r, 256, loadAccountBlock, readCurrencyWithExtras).entries.map((e) => e.value);
}

export function storeShardAccountBlocks(src: AccountBlock[]): (b: Builder) => void {
  return (b) => {
    const entries = src.map((a) => ({ key: a.address, value: a, extra: accountBlockFees(a) }));
    storeHashmapAugE(
      b,
      entries,
      256,
      { storeValue: (a, vb) => void storeAccountBlock(a, vb), extra: feesCodec.extra },
      ZERO,
    );
  };
}
