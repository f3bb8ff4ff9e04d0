// One reply of `liteServer.getBlockProof` checked link by link from a block the client already trusts
// (ton crypto/block/check-proof.cpp, tonutils-go VerifyProofChain): every link must start where the last
// one ended, forward links only from a proven key block (whose config names the signers) and only to a block
// whose proven header names that key block as its previous one, backward links only to a key block or the
// target. The reply may stop short (`complete: false`): the walk continues from what it proved.
import type { PartialBlockProof } from '../tl/lite-api.js';
import type { BlockIdExt } from '../tl/lite-types.js';
import { checkBackwardLink } from './backward-link.js';
import { describeBlockId, sameBlockId } from './block-ref.js';
import { ProofError } from './errors.js';
import { checkForwardLink } from './forward-link.js';

/** A masterchain block the walk has proven, and whether its proven header (or prev_blocks) says key block. */
export interface ProvenBlock {
  id: BlockIdExt;
  keyBlock: boolean;
}

export interface CheckedProof {
  /** The last block the reply proved (the target when `complete`). */
  reached: ProvenBlock;
  /** Key blocks the reply proved, oldest first. */
  keyBlocks: BlockIdExt[];
  /** Blocks the reply proved, oldest first (key blocks and the last one). */
  proven: BlockIdExt[];
  complete: boolean;
}



/**
 * Checks `reply` as the answer to getBlockProof(known = `from`, target = `target`). Throws a ProofError
 * naming the link (`proof.from`, `link.from`, `link.to`, `link.dest.prev_key_block`, `proof.to`, `proof.target`,
 * `proof.progress`, or the link checks' own names).
 */
export function checkPartialProof(reply: PartialBlockProof, from: ProvenBlock, target: BlockIdExt): CheckedProof {
  if (!sameBlockId(reply.from, from.id)) {
    throw new ProofError('proof.from', 'mismatch', `the proof starts at ${describeBlockId(reply.from)}, not the trusted ${describeBlockId(from.id)}`);
  }
  let at = from;
  const keyBlocks: BlockIdExt[] = [];
  const proven: BlockIdExt[] = [];
  for (const [i, link] of reply.steps.entries()) {
    if (!sameBlockId(link.from, at.id)) {
      throw new ProofError('link.from', 'mismatch', `link ${i} starts at ${describeBlockId(link.from)}, not at ${describeBlockId(at.id)} where the previous one ended`);
    }
    if (link.to.seqno >>> 0 > target.seqno >>> 0) {
      throw new ProofError('link.to', 'mismatch', `link ${i} goes to ${link.to.seqno}, past the target ${target.seqno}`);
    }
    if (link.kind === 'forward') {
      if (!at.keyBlock) throw new ProofError('link.from', 'mismatch', `link ${i} goes forward from ${describeBlockId(at.id)}, which is no proven key block`);
      const checked = checkForwardLink(link);
      // The signers are named by the newest key block before the target: no skipping one (and its new set).
      if (checked.header.prevKeyBlockSeqno !== at.id.seqno >>> 0) {
        throw new ProofError('link.dest.prev_key_block', 'mismatch', `block ${link.to.seqno} names key block ${checked.header.prevKeyBlockSeqno} as its previous, not the link's source ${at.id.seqno}`);
      }
    } else {
      checkBackwardLink(link);
      if (!link.toKeyBlock && !sameBlockId(link.to, target)) {
        throw new ProofError('link.back.key_block', 'mismatch', `link ${i} goes back to ${describeBlockId(link.to)}, which is neither a key block nor the target`);
      }
    }
    at = { id: link.to, keyBlock: link.toKeyBlock };
    if (at.keyBlock) keyBlocks.push(at.id);
    proven.push(at.id);
  }
  if (!sameBlockId(reply.to, at.id)) throw new ProofError('proof.to', 'mismatch', `the proof says it ends at ${describeBlockId(reply.to)}, its links at ${describeBlockId(at.id)}`);
  if (reply.complete && !sameBlockId(at.id, target)) {
    throw new ProofError('proof.target', 'mismatch', `the proof is complete at ${describeBlockId(at.id)}, not at the target ${describeBlockId(target)}`);
  }
  if (!reply.complete && at.id.seqno >>> 0 <= from.id.seqno >>> 0) {
    throw new ProofError('proof.progress', 'malformed', `an incomplete proof that gets no further than ${from.id.seqno}`);
  }
  return { reached: at, keyBlocks, proven, complete: reply.complete };
}
