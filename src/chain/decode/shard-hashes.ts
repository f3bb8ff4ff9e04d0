// McBlockExtra's `shard_hashes:(HashmapE 32 ^(BinTree ShardDescr))`: the latest block of every shard
// that a masterchain block commits (block.tlb), as the model speaks of it; tlb/shard-descr.ts reads the TL-B.
import type { BlockId } from '../model.js';
import { shardHex } from './block-info.js';
import { forEachKeyedLeaf } from '../tlb/hashmap.js';
import { loadShardDescrHead, loadShardTree, shardTreeLeaves, type ShardDescrHead } from '../tlb/shard-descr.js';
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

/** A ShardDescr (read by tlb/shard-descr.ts, fees left unread: proofs prune them) as the model speaks of it. */
export function readShardDescr(r: Reader, workchain: number, shard: bigint): ShardDescr {
  return shardDescrOf(loadShardDescrHead(r), workchain, shard);
}

function shardDescrOf(d: ShardDescrHead, workchain: number, shard: bigint): ShardDescr {
  return {
    workchain, shard: shardHex(shard), seqno: d.seqno, rootHash: d.rootHash.toString('hex'), fileHash: d.fileHash.toString('hex'),
    regMcSeqno: d.regMcSeqno, startLt: d.startLt, endLt: d.endLt, genUtime: d.genUtime,
    beforeSplit: d.beforeSplit, beforeMerge: d.beforeMerge, wantSplit: d.wantSplit, wantMerge: d.wantMerge,
  };
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
    for (const { shard, descr } of shardTreeLeaves(loadShardTree(leaf.refReader(), loadShardDescrHead))) {
      const { beforeSplit, beforeMerge, wantSplit, wantMerge, ...ref } = shardDescrOf(descr, workchain, shard);
      out.push(ref);
    }
  });
  return out;
}
