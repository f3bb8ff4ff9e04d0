// The block ids the checks take: the chain model's hex form or the TL form (signed u64 shard, hash bytes).
import { shardHex } from '../../decode/block-info.js';
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
