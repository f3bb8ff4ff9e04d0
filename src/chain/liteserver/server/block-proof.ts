// liteServer.getBlockProof as the node answers it (validator/impl/liteserver.cpp): to an older masterchain
// block one backward link (the known block's state proves its `prev_blocks` entry); to a newer one, from a
// non-key known block a backward link to its previous key block, then forward links key block → next key
// block → … → the target, each carrying the target's header, the source key block's config and the
// validators' signatures the archive stored. At most `maxLinks` links a reply (`complete: false`).
import type { Cell } from '@ton/core';
import { LiteErrorCode, LiteServerError } from '../tl/envelope.js';
import type { BlockLink, PartialBlockProof, RequestOf } from '../tl/lite-api.js';
import type { SignatureSet } from '../tl/lite-types.js';
import { readMcStateExtra } from '../trust/state.js';
import type { ArchivedBlock } from './archive.js';
import { tlBlockIdOf } from './block-id.js';
import { hashmapPath, ProofBuilder } from './proof-builder.js';

/** Links a reply carries at most, as the node caps them. */
export const MAX_PROOF_LINKS = 16;

/** A masterchain block as the prover needs it. */
export interface LinkedBlock {
  block: ArchivedBlock;
  keyBlock: boolean;
  prevKeyBlockSeqno: number;
}

export interface BlockProofSource {
  /** The masterchain block `id` names, hashes included, at or below the served head; 651 otherwise. */
  exact(id: RequestOf<'getBlockProof'>['knownBlock']): LinkedBlock;
  /** The served masterchain block of this seqno. */
  at(seqno: number): LinkedBlock;
  headSeqno(): number;
  /** The validators' signatures of masterchain block `seqno`, or null when the archive has none. */
  signatures(seqno: number): SignatureSet | null;
  /** The state after a block (651 when no longer kept). */
  stateOf(block: ArchivedBlock): Cell;
  proofBoc(roots: Cell[]): Buffer;
}

const seqnoOf = (b: LinkedBlock) => b.block.id.seqno;

export function serveBlockProof(src: BlockProofSource, req: RequestOf<'getBlockProof'>, maxLinks = MAX_PROOF_LINKS): PartialBlockProof {
  if (req.knownBlock.workchain !== -1 || (req.targetBlock && req.targetBlock.workchain !== -1)) {
    throw new LiteServerError(LiteErrorCode.error, 'block proofs link masterchain blocks only');
  }
  const known = src.exact(req.knownBlock);
  const target = req.mode & 1 && req.targetBlock ? src.exact(req.targetBlock) : src.at(src.headSeqno());
  const from = tlBlockIdOf(known.block);
  const to = tlBlockIdOf(target.block);
  if (seqnoOf(target) < seqnoOf(known)) return { complete: true, from, to, steps: [backwardLink(src, known, target)] };
  const steps: BlockLink[] = [];
  let cursor = known;
  if (!known.keyBlock && seqnoOf(target) > seqnoOf(known)) {
    if (known.prevKeyBlockSeqno === 0) {
      throw new LiteServerError(LiteErrorCode.error, `no key block precedes block ${seqnoOf(known)} but the zero state, and forward links start from a key block`);
    }
    cursor = src.at(known.prevKeyBlockSeqno);
    steps.push(backwardLink(src, known, cursor));
  }
  // Key blocks after the cursor up to the target, found back from the target by prev_key_block_seqno.
  const keys: number[] = [];
  for (let k = target.keyBlock ? seqnoOf(target) : target.prevKeyBlockSeqno; k > seqnoOf(cursor); k = src.at(k).prevKeyBlockSeqno) keys.push(k);
  const hops = keys.reverse().filter((k) => k !== seqnoOf(target)).map((k) => src.at(k));
  hops.push(target);
  for (const next of hops) {
    if (seqnoOf(cursor) >= seqnoOf(target) || steps.length >= maxLinks) break;
    steps.push(forwardLink(src, cursor, next));
    cursor = next;
  }
  return { complete: seqnoOf(cursor) === seqnoOf(target), from, to: tlBlockIdOf(cursor.block), steps };
}

/** The Block root with BlockInfo whole: what a link's `dest_proof` proves. */
function headerProof(proofBoc: (roots: Cell[]) => Buffer, b: ArchivedBlock): Buffer {
  return proofBoc([new ProofBuilder().showWhole(b.root.refs[0]!).proof(b.root)]);
}

function forwardLink(src: BlockProofSource, from: LinkedBlock, to: LinkedBlock): BlockLink {
  const signatures = src.signatures(seqnoOf(to));
  if (!signatures) throw new LiteServerError(LiteErrorCode.error, `masterchain block ${seqnoOf(to)} has no stored validator signatures`);
  return forwardLinkOf(from, to, signatures, src.proofBoc);
}

/** A forward link `from` (a key block) → `to`, signed by `signatures`. */
export function forwardLinkOf(from: LinkedBlock, to: LinkedBlock, signatures: SignatureSet, proofBoc: (roots: Cell[]) => Buffer): BlockLink {
  // The source key block down extra → McBlockExtra → its config, the config whole.
  const extra = from.block.root.refs[3]!;
  const custom = extra.refs[3]!;
  const config = custom.refs[custom.refs.length - 1]!;
  return {
    kind: 'forward',
    toKeyBlock: to.keyBlock,
    from: tlBlockIdOf(from.block),
    to: tlBlockIdOf(to.block),
    destProof: headerProof(proofBoc, to.block),
    configProof: proofBoc([new ProofBuilder().show(extra, custom).showWhole(config).proof(from.block.root)]),
    signatures,
  };
}

function backwardLink(src: BlockProofSource, from: LinkedBlock, to: LinkedBlock): BlockLink {
  return backwardLinkOf(from, to, src.stateOf(from.block), src.proofBoc);
}

/** `from`'s block down to its state_update, and its `state` down `prev_blocks` to `to`'s entry. */
export function backwardLinkOf(from: LinkedBlock, to: LinkedBlock, state: Cell, proofBoc: (roots: Cell[]) => Buffer): BlockLink {
  const blockProof = new ProofBuilder().showWhole(from.block.root.refs[0]!, from.block.root.refs[2]!).proof(from.block.root);
  const custom = state.refs[3]!;
  const info = readMcStateExtra(custom, 'serve').info;
  const path = hashmapPath(info.refs[0]!, 32, BigInt(seqnoOf(to)));
  const stateProof = new ProofBuilder().show(custom, info, ...path.cells).proof(state);
  return {
    kind: 'back',
    toKeyBlock: to.keyBlock,
    from: tlBlockIdOf(from.block),
    to: tlBlockIdOf(to.block),
    destProof: to.keyBlock ? headerProof(proofBoc, to.block) : Buffer.alloc(0),
    proof: proofBoc([blockProof]),
    stateProof: proofBoc([stateProof]),
  };
}
