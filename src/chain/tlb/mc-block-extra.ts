// McBlockExtra (block.tlb): what a masterchain block adds — the shard blocks it commits, and the config in
// key blocks.
//   masterchain_block_extra#cca5 key_block:(## 1) shard_hashes:ShardHashes shard_fees:ShardFees
//     ^[ prev_blk_signatures:(HashmapE 16 CryptoSignaturePair) recover_create_msg:(Maybe ^InMsg)
//        mint_msg:(Maybe ^InMsg) ] config:key_block?ConfigParams
//   _ (HashmapAugE 96 ShardFeeCreated ShardFeeCreated) = ShardFees
//   shard_fee_created$_ fees:CurrencyCollection create:CurrencyCollection = ShardFeeCreated
//   _ config_addr:bits256 config:^(Hashmap 32 ^Cell) = ConfigParams
import { beginCell, loadCurrencyCollection, storeCurrencyCollection, type Builder, type Cell, type CurrencyCollection, type Slice } from '@ton/core';
import { ZERO } from './currency.js';
import { loadShardHashes, storeShardHashes, type ShardHashes } from './shard-descr.js';

export const MC_BLOCK_EXTRA_TAG = 0xcca5;

export interface ShardFeeCreated {
  fees: CurrencyCollection;
  create: CurrencyCollection;
}

/** ShardFees kept as its root cell (not interpreted) and its total. */
export interface ShardFees {
  root: Cell | null;
  total: ShardFeeCreated;
}

export interface ConfigParams {
  configAddress: Buffer;
  /** The `Hashmap 32 ^Cell` root cell. */
  config: Cell;
}

export interface McBlockExtra {
  shardHashes: ShardHashes;
  shardFees: ShardFees;
  /** `HashmapE 16 CryptoSignaturePair` root, or null when empty. */
  prevBlkSignatures: Cell | null;
  recoverCreateMsg: Cell | null;
  mintMsg: Cell | null;
  /** Key blocks only (`key_block` is its presence). */
  config: ConfigParams | null;
}

export const NO_SHARD_FEES: ShardFees = { root: null, total: { fees: ZERO, create: ZERO } };

const loadMaybeRef = (s: Slice): Cell | null => (s.loadBit() ? s.loadRef() : null);
const storeMaybeRef = (b: Builder, c: Cell | null): Builder => (c ? b.storeBit(1).storeRef(c) : b.storeBit(0));

export function loadConfigParams(s: Slice): ConfigParams {
  return { configAddress: s.loadBuffer(32), config: s.loadRef() };
}

export function storeConfigParams(src: ConfigParams): (b: Builder) => void {
  return (b) => void b.storeBuffer(src.configAddress, 32).storeRef(src.config);
}

export function loadMcBlockExtra(s: Slice): McBlockExtra {
  const tag = s.loadUint(16);
  if (tag !== MC_BLOCK_EXTRA_TAG) throw new Error(`McBlockExtra tag 0x${tag.toString(16)} is not 0xcca5`);
  const keyBlock = s.loadBit();
  const shardHashes = loadShardHashes(loadMaybeRef(s));
  const feesRoot = loadMaybeRef(s);
  const shardFees = { root: feesRoot, total: { fees: loadCurrencyCollection(s), create: loadCurrencyCollection(s) } };
  const sigs = s.loadRef().beginParse();
  const prevBlkSignatures = loadMaybeRef(sigs);
  const recoverCreateMsg = loadMaybeRef(sigs);
  const mintMsg = loadMaybeRef(sigs);
  const config = keyBlock ? loadConfigParams(s) : null;
  return { shardHashes, shardFees, prevBlkSignatures, recoverCreateMsg, mintMsg, config };
}

export function storeMcBlockExtra(src: McBlockExtra): (b: Builder) => void {
  return (b) => {
    b.storeUint(MC_BLOCK_EXTRA_TAG, 16).storeBit(src.config !== null).store(storeShardHashes(src.shardHashes));
    storeMaybeRef(b, src.shardFees.root);
    b.store(storeCurrencyCollection(src.shardFees.total.fees)).store(storeCurrencyCollection(src.shardFees.total.create));
    const sigs = beginCell();
    storeMaybeRef(storeMaybeRef(storeMaybeRef(sigs, src.prevBlkSignatures), src.recoverCreateMsg), src.mintMsg);
    b.storeRef(sigs);
    if (src.config) b.store(storeConfigParams(src.config));
  };
}
