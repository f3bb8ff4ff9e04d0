// The block ids the checks take: the chain model's hex form or the TL form (signed u64 shard, hash bytes).
import { shardHex } from '../../decode/block-info.js';
import type { BlockIdExt } from '../tl/lite-types.js';
import { hashHex, type HashLike } from './merkle.js';

export interface BlockRef {
  workchain: number;
  /** 16 hex digits (`8000000000000000`) or the u64 as a (signed or unsigned) bigint. */
  shard: string | bigint;
  seqno: number;
  rootHash: HashLike;
  fileHash?: HashLike;
}

export function shardIdHex(shard: string | bigint): string {
  return typeof shard === 'string' ? shard.toLowerCase().padStart(16, '0') : shardHex(BigInt.asUintN(64, shard));
}

/** `wc:shard:seqno` for messages. */
export function describeBlock(id: BlockRef): string {
  return `(${id.workchain}, ${shardIdHex(id.shard)}, ${id.seqno})`;
}

export function refHashes(id: BlockRef): { rootHash: string; fileHash: string | undefined } {
  return { rootHash: hashHex(id.rootHash), fileHash: id.fileHash === undefined ? undefined : hashHex(id.fileHash) };
}

/** The same TL block id: workchain, shard (signed or not), seqno and both hashes. */
export function sameBlockId(a: BlockIdExt, b: BlockIdExt): boolean {
  return a.workchain === b.workchain && BigInt.asUintN(64, a.shard) === BigInt.asUintN(64, b.shard) && a.seqno >>> 0 === b.seqno >>> 0
    && a.rootHash.equals(b.rootHash) && a.fileHash.equals(b.fileHash);
}

/** `(wc,shard,seqno):root…` of a TL block id, for messages. */
export const describeBlockId = (id: BlockIdExt): string =>
  `(${id.workchain},${BigInt.asUintN(64, id.shard).toString(16)},${id.seqno}):${id.rootHash.toString('hex').slice(0, 16)}…`;
