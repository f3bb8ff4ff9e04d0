// The header fields a signature check needs, read from a proven Block cell. Unlike readBlockInfo it stops
// before the references (master_ref, prev_ref), which a link's destination proof may leave pruned: the
// signatures bind the block's hashes, and the header only has to name the signing session and set.
import type { Cell } from '@ton/core';
import { readShardIdent } from '../../decode/block-info.js';
import { BLOCK_INFO_TAG } from '../../tlb/block-info.js';
import { ProofError, proofRead } from './errors.js';
import { provenReader } from './merkle.js';
import type { SignedHeader } from './signatures.js';
import { BLOCK_TAG } from '../../tlb/block.js';

export interface ProvenSignedHeader extends SignedHeader {
  workchain: number;
  shard: string;
  seqno: number;
  keyBlock: boolean;
  genUtime: number;
  prevKeyBlockSeqno: number;
}

/** Reads `Block.info` of a proven block (the cell a header proof proves) up to prev_key_block_seqno. */
export function readSignedHeader(block: Cell, check = 'header'): ProvenSignedHeader {
  return proofRead(check, () => {
    const b = provenReader(block, check);
    if (b.uint(32) !== BLOCK_TAG) throw new ProofError(check, 'malformed', 'proven cell is not a Block');
    const r = provenReader(b.ref(), check);
    const tag = r.uint(32);
    if (tag !== BLOCK_INFO_TAG) throw new ProofError(check, 'malformed', `BlockInfo tag 0x${tag.toString(16)}`);
    r.skip(32 + 6); // version, not_master … want_merge
    const keyBlock = r.bool();
    r.skip(1 + 8); // vert_seqno_incr, flags
    const seqno = r.uint(32);
    r.skip(32); // vert_seq_no
    const { workchain, shard } = readShardIdent(r);
    const genUtime = r.uint(32);
    r.skip(128); // start_lt, end_lt
    const genValidatorListHashShort = r.uint(32);
    const genCatchainSeqno = r.uint(32);
    r.skip(32); // min_ref_mc_seqno
    const prevKeyBlockSeqno = r.uint(32);
    return { workchain, shard, seqno, keyBlock, genUtime, genValidatorListHashShort, genCatchainSeqno, prevKeyBlockSeqno };
  });
}
