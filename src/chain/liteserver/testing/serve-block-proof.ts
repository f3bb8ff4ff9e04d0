// liteServer.getBlockProof, backward part: from a known masterchain block to an older one in one
// blockLinkBack — the known block's state proves its `prev_blocks` entry of the target (key blocks also get
// their header as dest_proof). Forward links (signatures) are served by a separate function.
import { LiteErrorCode, LiteServerError } from '../tl/envelope.js';
import type { BlockLink, PartialBlockProof, RequestOf } from '../tl/lite-api.js';
import { readMcStateExtra } from '../trust/state.js';
import { hashmapPath, ProofBuilder } from './proof-builder.js';
import type { ServedChain } from './served.js';
import { CellReader } from '../../decode/reader.js';

/** One backward link `known → target` (target older); null when the target is not older (not served here). */
export function serveBackwardProof(chain: ServedChain, request: RequestOf<'getBlockProof'>): PartialBlockProof | null {
  const { knownBlock, targetBlock } = request;
  if (!(request.mode & 1) || !targetBlock) return null;
  if (knownBlock.workchain !== -1 || targetBlock.workchain !== -1) throw new LiteServerError(LiteErrorCode.error, 'block proofs link masterchain blocks only');
  if (targetBlock.seqno === knownBlock.seqno) {
    chain.exact(knownBlock);
    return { complete: true, from: knownBlock, to: targetBlock, steps: [] };
  }
  if (targetBlock.seqno > knownBlock.seqno) return null;
  const from = chain.exact(knownBlock);
  const to = chain.exact(targetBlock);
  const blockProof = new ProofBuilder().showWhole(from.root.refs[0]!, from.root.refs[2]!).proof(from.root);
  const state = from.state;
  const custom = state.refs[3]!;
  const info = readMcStateExtra(custom, 'serve').info;
  const prevBlocks = info.refs[0]!; // OldMcBlocksInfo root (HashmapAugE 32: the maybe bit precedes it)
  const path = hashmapPath(prevBlocks, 32, BigInt(targetBlock.seqno));
  const stateProof = new ProofBuilder().show(custom, info, ...path.cells).proof(state);
  const toKeyBlock = isKeyBlock(to.root.refs[0]!);
  const link: BlockLink = {
    kind: 'back', toKeyBlock, from: knownBlock, to: targetBlock,
    destProof: toKeyBlock ? chain.proofBoc('getBlockProof', [new ProofBuilder().showWhole(to.root.refs[0]!).proof(to.root)]) : Buffer.alloc(0),
    proof: chain.proofBoc('getBlockProof', [blockProof]),
    stateProof: chain.proofBoc('getBlockProof', [stateProof]),
  };
  return { complete: true, from: knownBlock, to: targetBlock, steps: [link] };
}

/** `block_info#9bc7a987 version:uint32 not_master:(## 1) after_merge:(## 1) before_split:(## 1) after_split:(## 1) want_split:Bool want_merge:Bool key_block:Bool …` */
function isKeyBlock(info: import('@ton/core').Cell): boolean {
  const r = new CellReader(info);
  r.skip(32 + 32 + 6);
  return r.bool();
}
