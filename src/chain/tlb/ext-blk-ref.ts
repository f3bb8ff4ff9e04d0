// ext_blk_ref$_ end_lt:uint64 seq_no:uint32 root_hash:bits256 file_hash:bits256 = ExtBlkRef (block.tlb)
import type { Builder } from '@ton/core';
import type { Reader } from '../cell/reader.js';

export interface ExtBlkRef {
  endLt: bigint;
  seqno: number;
  rootHash: Buffer;
  fileHash: Buffer;
}

/** Over either kind of cell (the hashes copied out of the BoC). */
export function readExtBlkRef(r: Reader): ExtBlkRef {
  return { endLt: r.bigUint(64), seqno: r.uint(32), rootHash: Buffer.from(r.bytesOf(32)), fileHash: Buffer.from(r.bytesOf(32)) };
}

export function storeExtBlkRef(src: ExtBlkRef): (b: Builder) => void {
  return (b) => {
    b.storeUint(src.endLt, 64).storeUint(src.seqno, 32).storeBuffer(src.rootHash, 32).storeBuffer(src.fileHash, 32);
  };
}
