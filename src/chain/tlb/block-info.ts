// BlockInfo (block.tlb), every field kept so that store(load(cell)) gives the same cell:
//   block_info#9bc7a987 version:uint32 not_master:(## 1) after_merge:(## 1) before_split:(## 1)
//     after_split:(## 1) want_split:Bool want_merge:Bool key_block:Bool vert_seqno_incr:(## 1)
//     flags:(## 8) { flags <= 1 } seq_no:# vert_seq_no:# shard:ShardIdent gen_utime:uint32
//     start_lt:uint64 end_lt:uint64 gen_validator_list_hash_short:uint32 gen_catchain_seqno:uint32
//     min_ref_mc_seqno:uint32 prev_key_block_seqno:uint32 gen_software:flags.0?GlobalVersion
//     master_ref:not_master?^BlkMasterInfo prev_ref:^(BlkPrevInfo after_merge)
//     prev_vert_ref:vert_seqno_incr?^(BlkPrevInfo 0)
//   prev_blk_info$_ prev:ExtBlkRef = BlkPrevInfo 0
//   prev_blks_info$_ prev1:^ExtBlkRef prev2:^ExtBlkRef = BlkPrevInfo 1
//   master_info$_ master:ExtBlkRef = BlkMasterInfo
//   capabilities#c4 version:uint32 capabilities:uint64 = GlobalVersion
//   shard_ident$00 shard_pfx_bits:(#<= 60) workchain_id:int32 shard_prefix:uint64 = ShardIdent
// Read over `Reader`, so arena cells (the decoder, proofs) and @ton/core cells (the builder) take one path.
import { beginCell, storeShardIdent, type Builder, type Cell, type ShardIdent, type Slice } from '@ton/core';
import type { CellRef } from '../cell/cell.js';
import { readerOf } from '../cell/core-reader.js';
import { CellLayoutError } from '../cell/errors.js';
import type { Reader } from '../cell/reader.js';
import { readExtBlkRef, storeExtBlkRef, type ExtBlkRef } from './ext-blk-ref.js';

export const BLOCK_INFO_TAG = 0x9bc7a987;
const GLOBAL_VERSION_TAG = 0xc4;

/** `BlkPrevInfo`: one parent, or two after a merge (`after_merge` is which one this is). */
export type BlkPrevInfo = { kind: 'prev_blk_info'; prev: ExtBlkRef } | { kind: 'prev_blks_info'; prev1: ExtBlkRef; prev2: ExtBlkRef };

export interface GlobalVersion {
  version: number;
  capabilities: bigint;
}

export interface BlockInfo {
  version: number;
  beforeSplit: boolean;
  afterSplit: boolean;
  wantSplit: boolean;
  wantMerge: boolean;
  keyBlock: boolean;
  seqno: number;
  vertSeqno: number;
  shard: ShardIdent;
  genUtime: number;
  startLt: bigint;
  endLt: bigint;
  genValidatorListHashShort: number;
  genCatchainSeqno: number;
  minRefMcSeqno: number;
  prevKeyBlockSeqno: number;
  /** Present exactly when flags bit 0 is set. */
  genSoftware: GlobalVersion | null;
  /** Shard blocks only (`not_master`): the latest masterchain block known to the collator. */
  masterRef: ExtBlkRef | null;
  /** `after_merge` is `prevRef.kind === 'prev_blks_info'`. */
  prevRef: BlkPrevInfo;
  /** `vert_seqno_incr` is its presence. */
  prevVertRef: ExtBlkRef | null;
}

export function loadBlkPrevInfo(r: Reader, afterMerge: boolean): BlkPrevInfo {
  if (!afterMerge) return { kind: 'prev_blk_info', prev: readExtBlkRef(r) };
  return { kind: 'prev_blks_info', prev1: readExtBlkRef(r.refReader()), prev2: readExtBlkRef(r.refReader()) };
}

export function loadShardIdent(r: Reader): ShardIdent {
  if (r.uint(2) !== 0) throw new CellLayoutError('ShardIdent tag is not 00');
  const shardPrefixBits = r.uint(6);
  if (shardPrefixBits > 60) throw new CellLayoutError(`shard prefix of ${shardPrefixBits} bits exceeds 60`);
  return { shardPrefixBits, workchainId: r.int(32), shardPrefix: r.bigUint(64) };
}

export function storeBlkPrevInfo(src: BlkPrevInfo): (b: Builder) => void {
  return (b) => {
    if (src.kind === 'prev_blk_info') b.store(storeExtBlkRef(src.prev));
    else b.storeRef(beginCell().store(storeExtBlkRef(src.prev1))).storeRef(beginCell().store(storeExtBlkRef(src.prev2)));
  };
}

/** Reads a BlockInfo; an @ton/core Slice (callers that hold one: the archive, the builder's tests) is read as the cell it spans. */
export function loadBlockInfo(from: Reader | Slice): BlockInfo {
  const s = 'loadUint' in from ? readerOf(from.asCell()) : from;
  const tag = s.uint(32);
  if (tag !== BLOCK_INFO_TAG) throw new CellLayoutError(`BlockInfo tag 0x${tag.toString(16)} is not 0x9bc7a987`);
  const version = s.uint(32);
  const notMaster = s.bool();
  const afterMerge = s.bool();
  const beforeSplit = s.bool();
  const afterSplit = s.bool();
  const wantSplit = s.bool();
  const wantMerge = s.bool();
  const keyBlock = s.bool();
  const vertSeqnoIncr = s.bool();
  const flags = s.uint(8);
  if (flags > 1) throw new CellLayoutError(`BlockInfo flags ${flags} > 1`);
  const seqno = s.uint(32);
  const vertSeqno = s.uint(32);
  const shard = loadShardIdent(s);
  const genUtime = s.uint(32);
  const startLt = s.bigUint(64);
  const endLt = s.bigUint(64);
  const genValidatorListHashShort = s.uint(32);
  const genCatchainSeqno = s.uint(32);
  const minRefMcSeqno = s.uint(32);
  const prevKeyBlockSeqno = s.uint(32);
  let genSoftware: GlobalVersion | null = null;
  if (flags & 1) {
    const t = s.uint(8);
    if (t !== GLOBAL_VERSION_TAG) throw new CellLayoutError(`GlobalVersion tag 0x${t.toString(16)} is not 0xc4`);
    genSoftware = { version: s.uint(32), capabilities: s.bigUint(64) };
  }
  const masterRef = notMaster ? readExtBlkRef(s.refReader()) : null;
  const prevRef = loadBlkPrevInfo(s.refReader(), afterMerge);
  const prevVertRef = vertSeqnoIncr ? readExtBlkRef(s.refReader()) : null;
  return {
    version, beforeSplit, afterSplit, wantSplit, wantMerge, keyBlock, seqno, vertSeqno, shard, genUtime, startLt, endLt,
    genValidatorListHashShort, genCatchainSeqno, minRefMcSeqno, prevKeyBlockSeqno, genSoftware, masterRef, prevRef, prevVertRef,
  };
}

/** The BlockInfo a Block's first reference holds, from either kind of cell. */
export function blockInfoOf(cell: Cell | CellRef): BlockInfo {
  return loadBlockInfo(readerOf(cell));
}

export function storeBlockInfo(src: BlockInfo): (b: Builder) => void {
  return (b) => {
    b.storeUint(BLOCK_INFO_TAG, 32).storeUint(src.version, 32);
    b.storeBit(src.masterRef !== null).storeBit(src.prevRef.kind === 'prev_blks_info');
    b.storeBit(src.beforeSplit).storeBit(src.afterSplit).storeBit(src.wantSplit).storeBit(src.wantMerge);
    b.storeBit(src.keyBlock).storeBit(src.prevVertRef !== null).storeUint(src.genSoftware ? 1 : 0, 8);
    b.storeUint(src.seqno, 32).storeUint(src.vertSeqno, 32).store(storeShardIdent(src.shard));
    b.storeUint(src.genUtime, 32).storeUint(src.startLt, 64).storeUint(src.endLt, 64);
    b.storeUint(src.genValidatorListHashShort, 32).storeUint(src.genCatchainSeqno, 32);
    b.storeUint(src.minRefMcSeqno, 32).storeUint(src.prevKeyBlockSeqno, 32);
    if (src.genSoftware) {
      b.storeUint(GLOBAL_VERSION_TAG, 8).storeUint(src.genSoftware.version, 32).storeUint(src.genSoftware.capabilities, 64);
    }
    if (src.masterRef) b.storeRef(beginCell().store(storeExtBlkRef(src.masterRef)));
    b.storeRef(beginCell().store(storeBlkPrevInfo(src.prevRef)));
    if (src.prevVertRef) b.storeRef(beginCell().store(storeExtBlkRef(src.prevVertRef)));
  };
}
