// BlockInfo and the block ids it refers to (block.tlb): header fields of a full Block.
import type { Cell } from '@ton/core';
import type { CellRef } from '../cell/cell.js';
import type { Reader } from '../cell/reader.js';
import { CellLayoutError, readerOf } from './reader.js';

export const BLOCK_INFO_TAG = 0x9bc7a987;

/** `ext_blk_ref$_ end_lt:uint64 seq_no:uint32 root_hash:bits256 file_hash:bits256` */
export interface ExtBlockRef {
  endLt: bigint;
  seqno: number;
  rootHash: string;
  fileHash: string;
}

export interface BlockInfo {
  workchain: number;
  shard: string;
  seqno: number;
  genUtime: number;
  startLt: bigint;
  endLt: bigint;
  keyBlock: boolean;
  /** This block follows a merge of two shard blocks (two `prev`). */
  afterMerge: boolean;
  /** This block is the last before its shard splits. */
  beforeSplit: boolean;
  /** This block is the first of a half after a split (its parent is in the parent shard). */
  afterSplit: boolean;
  /** Short hash of the validator set that signed it (checked against config param 34 by the signature chain). */
  genValidatorListHashShort: number;
  genCatchainSeqno: number;
  minRefMcSeqno: number;
  prevKeyBlockSeqno: number;
  /** For a shard block: the latest masterchain block it knew of (not the one that commits it). */
  masterRef: ExtBlockRef | null;
  /** Previous block(s): two after a merge. */
  prev: ExtBlockRef[];
}

export function readExtBlockRef(r: Reader): ExtBlockRef {
  return { endLt: r.bigUint(64), seqno: r.uint(32), rootHash: r.hex(256), fileHash: r.hex(256) };
}

/** Shard id as 16 hex digits of the u64, e.g. `8000000000000000`. */
export function shardHex(shard: bigint): string {
  return shard.toString(16).padStart(16, '0');
}

/**
 * `shard_ident$00 shard_pfx_bits:(#<= 60) workchain_id:int32 shard_prefix:uint64`: the prefix is stored
 * without its terminating bit, which the shard id carries (as the node's ShardId deserializer adds it).
 */
export function readShardIdent(r: Reader): { workchain: number; shard: string } {
  if (r.uint(2) !== 0) throw new CellLayoutError('ShardIdent tag is not 00');
  const pfxBits = r.uint(6);
  if (pfxBits > 60) throw new CellLayoutError(`shard prefix of ${pfxBits} bits exceeds 60`);
  const workchain = r.int(32);
  const prefix = r.bigUint(64);
  const tagBit = 1n << BigInt(63 - pfxBits);
  return { workchain, shard: shardHex(prefix | tagBit) };
}

// block_info#9bc7a987 version:uint32 not_master:(## 1) after_merge:(## 1) before_split:(## 1)
//   after_split:(## 1) want_split:Bool want_merge:Bool key_block:Bool vert_seqno_incr:(## 1) flags:(## 8)
//   seq_no:# vert_seq_no:# shard:ShardIdent gen_utime:uint32 start_lt:uint64 end_lt:uint64
//   gen_validator_list_hash_short:uint32 gen_catchain_seqno:uint32 min_ref_mc_seqno:uint32
//   prev_key_block_seqno:uint32 gen_software:flags.0?GlobalVersion master_ref:not_master?^BlkMasterInfo
//   prev_ref:^(BlkPrevInfo after_merge) prev_vert_ref:vert_seqno_incr?^(BlkPrevInfo 0)
export function readBlockInfo(cell: Cell | CellRef | Reader): BlockInfo {
  const r = 'uint' in cell ? cell : readerOf(cell);
  const tag = r.uint(32);
  if (tag !== BLOCK_INFO_TAG) throw new CellLayoutError(`BlockInfo tag is 0x${tag.toString(16)}, expected 0x9bc7a987`);
  r.skip(32);
  const notMaster = r.bool();
  const afterMerge = r.bool();
  const beforeSplit = r.bool();
  const afterSplit = r.bool();
  r.skip(2); // want_split, want_merge
  const keyBlock = r.bool();
  r.skip(1);
  const flags = r.uint(8);
  const seqno = r.uint(32);
  r.skip(32);
  const { workchain, shard } = readShardIdent(r);
  const genUtime = r.uint(32);
  const startLt = r.bigUint(64);
  const endLt = r.bigUint(64);
  const genValidatorListHashShort = r.uint(32);
  const genCatchainSeqno = r.uint(32);
  const minRefMcSeqno = r.uint(32);
  const prevKeyBlockSeqno = r.uint(32);
  if (flags & 1) r.skip(8 + 32 + 64); // capabilities#c4 version:uint32 capabilities:uint64
  const masterRef = notMaster ? readExtBlockRef(r.refReader()) : null;
  const prevCell = r.refReader();
  const prev = afterMerge
    ? [readExtBlockRef(prevCell.refReader()), readExtBlockRef(prevCell.refReader())]
    : [readExtBlockRef(prevCell)];
  return {
    workchain, shard, seqno, genUtime, startLt, endLt, keyBlock, afterMerge, beforeSplit, afterSplit,
    genValidatorListHashShort, genCatchainSeqno, minRefMcSeqno, prevKeyBlockSeqno, masterRef, prev,
  };
}
