// One forward step of `liteServer.getBlockProof` (ton crypto/block/check-proof.cpp, forward links): the
// target's header proven by `dest_proof`, the source key block's params 34 and 28 proven by `config_proof`,
// and the target signed by the masterchain validators those params name. The walk that chains these steps
// from a trusted key block (and the backward links) lives with its caller.
import type { BlockIdExt, BlockLink } from '../tl/lite-types.js';
import { shardIdHex } from './block-ref.js';
import { configOfKeyBlock, readTrustConfig, type TrustConfig } from './config-params.js';
import { ProofError } from './errors.js';
import { proofRoots, unwrapMerkleProof } from './merkle.js';
import { readSignedHeader, type ProvenSignedHeader } from './signed-header.js';
import { verifyBlockSignatures, type SignatureReport } from './signatures.js';

export type ForwardLink = Extract<BlockLink, { kind: 'forward' }>;

export interface ProvenForwardLink {
  /** The target, now trusted: its root and file hash are what the validators signed. */
  to: BlockIdExt;
  header: ProvenSignedHeader;
  /** The source key block's params (the caller may keep them for the next link from the same source). */
  sourceConfig: TrustConfig;
  report: SignatureReport;
}

const MC_SHARD = '8000000000000000';
const isMasterchain = (id: BlockIdExt) => id.workchain === -1 && shardIdHex(id.shard) === MC_SHARD;

/**
 * Checks a forward link whose `from` is already trusted (its root hash is the one the caller proved).
 * Throws a ProofError naming the step: `link.blocks`, `link.dest.*`, `link.config.*` / `config.param*`,
 * `signatures.*`.
 */
export function checkForwardLink(link: ForwardLink): ProvenForwardLink {
  const { from, to } = link;
  if (!isMasterchain(from) || !isMasterchain(to)) throw new ProofError('link.blocks', 'malformed', 'both ends of a forward link must be masterchain blocks');
  if (to.seqno >>> 0 <= from.seqno >>> 0) throw new ProofError('link.blocks', 'malformed', `target ${to.seqno} is not after source ${from.seqno}`);

  const destRoot = proofRoots(link.destProof, 'link.dest', 1)[0]!;
  const header = readSignedHeader(unwrapMerkleProof(destRoot, 'link.dest.root_hash', to.rootHash.toString('hex')), 'link.dest');
  if (header.workchain !== -1 || header.shard !== MC_SHARD || header.seqno !== to.seqno >>> 0) {
    throw new ProofError('link.dest.id', 'mismatch', `the proven header is of (${header.workchain}, ${header.shard}, ${header.seqno}), not seqno ${to.seqno}`);
  }
  if (header.keyBlock !== link.toKeyBlock) {
    throw new ProofError('link.dest.key_block', 'mismatch', `the link says to_key_block=${link.toKeyBlock}, the header says ${header.keyBlock}`);
  }

  const configRoot = proofRoots(link.configProof, 'link.config', 1)[0]!;
  const source = unwrapMerkleProof(configRoot, 'link.config.root_hash', from.rootHash.toString('hex'));
  // The root hash pins the block; its header may be pruned (the node proves only extra → custom → config).
  const sourceConfig = readTrustConfig(configOfKeyBlock(source));
  const report = verifyBlockSignatures(to, header, sourceConfig, link.signatures);
  return { to, header, sourceConfig, report };
}
