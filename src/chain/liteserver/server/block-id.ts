// The TL id (tonNode.blockIdExt) of an archived block.
import type { BlockIdExt } from '../tl/lite-api.js';
import type { ArchivedBlock } from './archive.js';

export function tlBlockIdOf(b: Pick<ArchivedBlock, 'id'>): BlockIdExt {
  return {
    workchain: b.id.workchain,
    shard: BigInt.asIntN(64, BigInt(`0x${b.id.shard}`)),
    seqno: b.id.seqno,
    rootHash: Buffer.from(b.id.rootHash, 'hex'),
    fileHash: Buffer.from(b.id.fileHash, 'hex'),
  };
}
