// McBlockExtra's `shard_hashes:(HashmapE 32 ^(BinTree ShardDescr))`: the latest block of every shard
// that a masterchain block commits (block.tlb).
import type { BlockId } from '../model.js';
import { shardHex } from './block-info.js';
import { forEachKeyedLeaf } from '../tlb/hashmap-reader.js';
import type { Reader } from '../cell/reader.js';
import { CellLayoutError } from './reader.js';

/** A shard block as a masterchain block lists it. */
export interface ShardBlockRef extends BlockId {
  /** Masterchain seqno that registered it: equal to the listing block's seqno when it is new there. */
  regMcSeqno: number;
  startLt: bigint;
  endLt: bigint;
  genUtime: number;
}

/** A ShardDescr with the split/merge flags the shard walk and proof checks read. */
export interface ShardDescr extends ShardBlockRef {
  beforeSplit: boolean;
  beforeMerge: boolean;
  wantSplit: boolean;
  wantMerge: boolean;
}

export const MC_BLOCK_EXTRA_TAG = 0xcca5;

// shard_descr#b / shard_descr_new#a seq_no:uint32 reg_mc_seqno:uint32 start_lt:uint64 end_lt:uint64
//   root_hash:bits256 file_hash:bits256 before_split:Bool before_merge:Bool want_split:Bool want_merge:Bool
//   nx_cc_updated:Bool flags:(## 3) next_catchain_seqno:uint32 next_validator_shard:uint64
//   min_ref_mc_seqno:uint32 gen_utime:uint32 …
export function readShardDescr(r: Reader, workchain: number, shard: bigint): ShardDescr {
  const tag = r.uint(4);
  if (tag !== 0xa && tag !== 0xb) throw new CellLayoutError(`ShardDescr tag 0x${tag.toString(16)} is not 0xa or 0xb`);
  const seqno = r.uint(32);
  const regMcSeqno = r.uint(32);
  const startLt = r.bigUint(64);
  const endLt = r.bigUint(64);
  const rootHash = r.hex(256);
  const fileHash = r.hex(256);
  const beforeSplit = r.bool();
  const beforeMerge = r.bool();
  const wantSplit = r.bool();
  const wantMerge = r.bool();
  r.skip(4 + 32 + 64 + 32);
  const genUtime = r.uint(32);
  return {
    workchain, shard: shardHex(shard), seqno, rootHash, fileHash, regMcSeqno, startLt, endLt, genUtime,
    beforeSplit, beforeMerge, wantSplit, wantMerge,
  };
}

/** `bt_leaf$0 leaf:X | bt_fork$1 left:^ right:^`; a fork splits the shard in its two halves. */
function walkBinTree(r: Reader, workchain: number, shard: bigint, out: ShardBlockRef[]): void {
  if (!r.bool()) {
    const { beforeSplit, beforeMerge, wantSplit, wantMerge, ...ref } = readShardDescr(r, workchain, shard);
    out.push(ref);
    return;
  }
  const half = (shard & -shard) >> 1n;
  if (half === 0n) throw new CellLayoutError('shard tree deeper than 64 levels');
  walkBinTree(r.refReader(), workchain, shard - half, out);
  walkBinTree(r.refReader(), workchain, shard + half, out);
}

// masterchain_block_extra#cca5 key_block:(## 1) shard_hashes:ShardHashes shard_fees:ShardFees ^[…] config
export function readShardHashes(mcBlockExtra: Reader): ShardBlockRef[] {
  const tag = mcBlockExtra.uint(16);
  if (tag !== MC_BLOCK_EXTRA_TAG) throw new CellLayoutError(`McBlockExtra tag 0x${tag.toString(16)} is not 0xcca5`);
  mcBlockExtra.skip(1);
  return readShardHashesDict(mcBlockExtra);
}

/** `ShardHashes` = `HashmapE 32 ^(BinTree ShardDescr)` at the reader: every shard's latest block. */
export function readShardHashesDict(r: Reader): ShardBlockRef[] {
  const out: ShardBlockRef[] = [];
  if (!r.bool()) return out;
  forEachKeyedLeaf(r.refReader(), 32, (key, leaf) => {
    const workchain = Number(BigInt.asIntN(32, key));
    walkBinTree(leaf.refReader(), workchain, 1n << 63n, out);
  });
  return out;
}
