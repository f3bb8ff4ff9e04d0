// McStateExtra and OldMcBlocksInfo (block.tlb): what the masterchain state adds to a shard state.
//   masterchain_state_extra#cc26 shard_hashes:ShardHashes config:ConfigParams
//     ^[ flags:(## 16) { flags <= 1 } validator_info:ValidatorInfo prev_blocks:OldMcBlocksInfo
//        after_key_block:Bool last_key_block:(Maybe ExtBlkRef) block_create_stats:(flags . 0)?BlockCreateStats ]
//     global_balance:CurrencyCollection = McStateExtra
//   validator_info$_ validator_list_hash_short:uint32 catchain_seqno:uint32 nx_cc_updated:Bool = ValidatorInfo
//   _ key:Bool max_end_lt:uint64 = KeyMaxLt;  _ key:Bool blk_ref:ExtBlkRef = KeyExtBlkRef
//   _ (HashmapAugE 32 KeyExtBlkRef KeyMaxLt) = OldMcBlocksInfo
// The first level and the ^[…] cell are read over `Reader` with their parts left as cells, for the proof
// checks (liteserver/trust/state.ts), whose proofs prune them; loadMcStateExtra reads everything on top.
import { beginCell, Cell, type Builder, type Slice } from '@ton/core';
import { CellReader } from '../cell/core-reader.js';
import { CellLayoutError } from '../cell/errors.js';
import type { Reader } from '../cell/reader.js';
import { readRawCurrency, storeRawCurrency, type RawCurrency } from './currency.js';
import { readExtBlkRef, storeExtBlkRef, type ExtBlkRef } from './ext-blk-ref.js';
import { readHashmapAugE, storeHashmapAugE, type HashmapCache, type HashmapCodec } from './hashmap.js';
import { storeConfigParams, type ConfigParams } from './mc-block-extra.js';
import { loadShardHashes, storeShardHashes, type ShardHashes } from './shard-descr.js';

export const MC_STATE_EXTRA_TAG = 0xcc26;

export interface ValidatorInfo {
  validatorListHashShort: number;
  catchainSeqno: number;
  nxCcUpdated: boolean;
}

export interface KeyMaxLt {
  key: boolean;
  maxEndLt: bigint;
}

/** One earlier masterchain block in OldMcBlocksInfo (keyed by its seqno). */
export interface OldMcBlock {
  key: boolean;
  ref: ExtBlkRef;
}

/** OldMcBlocksInfo kept as its root and total; `storeOldMcBlocks` builds one from entries. */
export interface OldMcBlocksInfo {
  root: Cell | null;
  total: KeyMaxLt;
}

export interface McStateExtra {
  shardHashes: ShardHashes;
  config: ConfigParams;
  flags: number;
  validatorInfo: ValidatorInfo;
  prevBlocks: OldMcBlocksInfo;
  afterKeyBlock: boolean;
  lastKeyBlock: ExtBlkRef | null;
  /** `block_create_stats` as its bits and refs (present when flags bit 0 is set). */
  blockCreateStats: Cell | null;
  globalBalance: RawCurrency;
}

const keyMaxLt = {
  store: (k: KeyMaxLt, b: Builder) => void b.storeBit(k.key).storeUint(k.maxEndLt, 64),
  read: (r: Reader): KeyMaxLt => ({ key: r.bool(), maxEndLt: r.bigUint(64) }),
  // A fork's extra: any key block below, and the largest end lt.
  sum: (l: KeyMaxLt, r: KeyMaxLt): KeyMaxLt => ({ key: l.key || r.key, maxEndLt: l.maxEndLt > r.maxEndLt ? l.maxEndLt : r.maxEndLt }),
};

const oldMcBlockCodec: Required<HashmapCodec<OldMcBlock, KeyMaxLt>> = {
  storeValue: (v, b) => void b.storeBit(v.key).store(storeExtBlkRef(v.ref)),
  extra: keyMaxLt,
};

/** OldMcBlocksInfo for these blocks (each keyed by its seqno); a cache reuses unchanged subtrees. */
export function buildOldMcBlocks(blocks: OldMcBlock[], cache?: HashmapCache<KeyMaxLt>): OldMcBlocksInfo {
  const b = beginCell();
  const entries = blocks.map((v) => ({ key: BigInt(v.ref.seqno), value: v, extra: { key: v.key, maxEndLt: v.ref.endLt } }));
  const total = storeHashmapAugE(b, entries, 32, oldMcBlockCodec, { key: false, maxEndLt: 0n }, cache);
  const s = b.endCell().beginParse();
  return { root: s.loadBit() ? s.loadRef() : null, total };
}

export function loadOldMcBlocks(info: OldMcBlocksInfo): OldMcBlock[] {
  const r = new CellReader(beginCell().store(storeOldMcBlocksInfo(info)).endCell());
  return readHashmapAugE(r, 32, (v) => ({ key: v.bool(), ref: readExtBlkRef(v) }), keyMaxLt.read).entries.map((e) => e.value);
}

function storeOldMcBlocksInfo(src: OldMcBlocksInfo): (b: Builder) => void {
  return (b) => {
    if (src.root) b.storeBit(1).storeRef(src.root);
    else b.storeBit(0);
    keyMaxLt.store(src.total, b);
  };
}

/** McStateExtra's first level, its parts as cells; the reader is left at `global_balance`. */
export interface McStateExtraParts<C> {
  /** `ShardHashes` root, null when empty. */
  shardHashes: C | null;
  config: { configAddress: Buffer; config: C };
  /** `^[ flags validator_info prev_blocks after_key_block last_key_block … ]` */
  info: C;
}

export function loadMcStateExtraParts<C>(r: Reader<C>): McStateExtraParts<C> {
  const tag = r.uint(16);
  if (tag !== MC_STATE_EXTRA_TAG) throw new CellLayoutError(`McStateExtra tag 0x${tag.toString(16)} is not 0xcc26`);
  return { shardHashes: r.maybeRef(), config: { configAddress: Buffer.from(r.bytesOf(32)), config: r.ref() }, info: r.ref() };
}

/** The `^[…]` cell up to `last_key_block`, `prev_blocks` as its root; the reader is left at `block_create_stats`. */
export interface McStateInfo<C> {
  flags: number;
  validatorInfo: ValidatorInfo;
  prevBlocks: { root: C | null; total: KeyMaxLt };
  afterKeyBlock: boolean;
  lastKeyBlock: ExtBlkRef | null;
}

export function loadMcStateInfo<C>(r: Reader<C>): McStateInfo<C> {
  const flags = r.uint(16);
  const validatorInfo = { validatorListHashShort: r.uint(32), catchainSeqno: r.uint(32), nxCcUpdated: r.bool() };
  const prevBlocks = { root: r.maybeRef(), total: { key: r.bool(), maxEndLt: r.bigUint(64) } };
  const afterKeyBlock = r.bool();
  return { flags, validatorInfo, prevBlocks, afterKeyBlock, lastKeyBlock: r.bool() ? readExtBlkRef(r) : null };
}

/** Every field; an @ton/core Slice is read as the cell it spans. */
export function loadMcStateExtra(from: Reader<Cell> | Slice): McStateExtra {
  const r = 'loadUint' in from ? new CellReader(from.asCell()) : from;
  const parts = loadMcStateExtraParts(r);
  const shardHashes = loadShardHashes(parts.shardHashes);
  const o = new CellReader(parts.info);
  const info = loadMcStateInfo(o);
  const blockCreateStats = info.flags & 1 ? Cell.fromBoc(o.restToBoc())[0]! : null;
  return { shardHashes, config: parts.config, ...info, blockCreateStats, globalBalance: readRawCurrency(r) };
}

export function storeMcStateExtra(src: McStateExtra): (b: Builder) => void {
  return (b) => {
    b.storeUint(MC_STATE_EXTRA_TAG, 16).store(storeShardHashes(src.shardHashes)).store(storeConfigParams(src.config));
    const o = beginCell().storeUint(src.flags, 16);
    o.storeUint(src.validatorInfo.validatorListHashShort, 32).storeUint(src.validatorInfo.catchainSeqno, 32).storeBit(src.validatorInfo.nxCcUpdated);
    o.store(storeOldMcBlocksInfo(src.prevBlocks)).storeBit(src.afterKeyBlock);
    if (src.lastKeyBlock) o.storeBit(1).store(storeExtBlkRef(src.lastKeyBlock));
    else o.storeBit(0);
    if (src.blockCreateStats) o.storeSlice(src.blockCreateStats.beginParse());
    b.storeRef(o).store(storeRawCurrency(src.globalBalance));
  };
}
