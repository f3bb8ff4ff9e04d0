// BlockInfo as the chain model speaks of it: the header fields the decoder, the follower and the proof checks
// use, with shards and hashes as hex. The TL-B itself is read once, by tlb/block-info.ts (loss-less); this
// module only interprets what it read.
import type { Cell, ShardIdent } from '@ton/core';
import type { CellRef } from '../cell/cell.js';
import type { Reader } from '../cell/reader.js';
import { loadBlockInfo, loadShardIdent, type BlockInfo } from '../tlb/block-info.js';
import type { ExtBlkRef } from '../tlb/ext-blk-ref.js';
import { readerOf } from './reader.js';

/** A block reference as the model keeps it: `ext_blk_ref` with hex hashes. */
export interface ExtBlockRef {
  endLt: bigint;
  seqno: number;
  rootHash: string;
  fileHash: string;
}

export interface BlockHeaderInfo {
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

/** Shard id as 16 hex digits of the u64, e.g. `8000000000000000`. */
export function shardHex(shard: bigint): string {
  return shard.toString(16).padStart(16, '0');
}

/** A ShardIdent's shard id: the prefix is stored without its terminating bit, which the id carries. */
export function shardOfIdent(id: ShardIdent): { workchain: number; shard: string } {
  return { workchain: id.workchainId, shard: shardHex(id.shardPrefix | (1n << BigInt(63 - id.shardPrefixBits))) };
}

/** `ShardIdent` read (by tlb/) and interpreted. */
export function readShardIdent(r: Reader): { workchain: number; shard: string } {
  return shardOfIdent(loadShardIdent(r));
}

function extBlockRef(ref: ExtBlkRef): ExtBlockRef {
  return { endLt: ref.endLt, seqno: ref.seqno, rootHash: ref.rootHash.toString('hex'), fileHash: ref.fileHash.toString('hex') };
}

/** The model's header fields of a loaded BlockInfo. */
export function blockHeaderInfo(info: BlockInfo): BlockHeaderInfo {
  const { workchain, shard } = shardOfIdent(info.shard);
  const prev = info.prevRef.kind === 'prev_blk_info' ? [extBlockRef(info.prevRef.prev)] : [extBlockRef(info.prevRef.prev1), extBlockRef(info.prevRef.prev2)];
  return {
    workchain, shard, seqno: info.seqno, genUtime: info.genUtime, startLt: info.startLt, endLt: info.endLt, keyBlock: info.keyBlock,
    afterMerge: info.prevRef.kind === 'prev_blks_info', beforeSplit: info.beforeSplit, afterSplit: info.afterSplit,
    genValidatorListHashShort: info.genValidatorListHashShort, genCatchainSeqno: info.genCatchainSeqno,
    minRefMcSeqno: info.minRefMcSeqno, prevKeyBlockSeqno: info.prevKeyBlockSeqno,
    masterRef: info.masterRef ? extBlockRef(info.masterRef) : null, prev,
  };
}

/** A BlockInfo cell (or a reader at one) read and interpreted. */
export function readBlockInfo(cell: Cell | CellRef | Reader): BlockHeaderInfo {
  return blockHeaderInfo(loadBlockInfo('uint' in cell ? cell : readerOf(cell)));
}
