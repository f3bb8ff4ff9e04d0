// One backward step of `liteServer.getBlockProof`: from a trusted masterchain block to an older one through
// the `prev_blocks` of the trusted block's state (`OldMcBlocksInfo = HashmapAugE 32 KeyExtBlkRef KeyMaxLt`),
// which names every earlier masterchain block with its root hash, file hash and key-block flag. The walk
// uses it to reach the key block whose config signs the next forward link.
import type { Cell } from '@ton/core';
import type { BlockIdExt, BlockLink } from '../tl/lite-types.js';
import { describeBlockId, sameBlockId, shardIdHex } from './block-ref.js';
import { ProofError, proofRead } from './errors.js';
import { hashHex, lookupHashmapE, proofRoots, provenReader, provenValue, unwrapMerkleProof } from './merkle.js';
import { readSignedHeader } from './signed-header.js';
import { mcStateExtraOf, provenStateOfBlock, readShardState } from './state.js';

export type BackwardLink = Extract<BlockLink, { kind: 'back' }>;

const MC_SHARD = '8000000000000000';
const isMasterchain = (id: BlockIdExt) => id.workchain === -1 && shardIdHex(id.shard) === MC_SHARD;

/** `key_ext_blk_ref$_ key:Bool blk_ref:ExtBlkRef` of masterchain block `seqno` in a proven masterchain state. */
export function prevBlockEntry(state: Cell, seqno: number, check: string): { key: boolean; seqno: number; rootHash: string; fileHash: string } | null {
  const extra = mcStateExtraOf(readShardState(state, `${check}.state`), `${check}.state`);
  const info = provenReader(extra.info, `${check}.prev_blocks`);
  const lookup = proofRead(`${check}.prev_blocks`, () => {
    info.skip(16 + 32 + 32 + 1); // flags, validator_info
    return lookupHashmapE(info, 32, BigInt(seqno >>> 0), `${check}.prev_blocks`);
  });
  const leaf = provenValue(lookup, `${check}.prev_blocks`, `masterchain block ${seqno}`);
  if (!leaf) return null;
  return proofRead(`${check}.prev_blocks`, () => {
    leaf.skip(1 + 64); // extra: KeyMaxLt
    const key = leaf.bool();
    leaf.skip(64); // end_lt
    return { key, seqno: leaf.uint(32), rootHash: leaf.hex(256), fileHash: leaf.hex(256) };
  });
}

/**
 * Checks a backward link whose `from` is trusted: `proof` proves `from`'s block, `state_proof` its state
 * (through the block's MERKLE_UPDATE), whose `prev_blocks` must name `to` with the same hashes and key flag;
 * a key-block target's header must also be proven by `dest_proof`. Throws a ProofError naming the step.
 */
export function checkBackwardLink(link: BackwardLink): BlockIdExt {
  const { from, to } = link;
  if (!isMasterchain(from) || !isMasterchain(to)) throw new ProofError('link.blocks', 'malformed', 'both ends of a backward link must be masterchain blocks');
  if (to.seqno >>> 0 >= from.seqno >>> 0) throw new ProofError('link.blocks', 'malformed', `target ${to.seqno} is not before source ${from.seqno}`);

  const blockRoot = proofRoots(link.proof, 'link.back.block', 1)[0]!;
  const stateRoot = proofRoots(link.stateProof, 'link.back.state', 1)[0]!;
  const { state } = provenStateOfBlock(blockRoot, stateRoot, hashHex(from.rootHash), 'link.back');
  const entry = prevBlockEntry(state, to.seqno, 'link.back');
  if (!entry) throw new ProofError('link.back.prev_blocks', 'mismatch', `the state of ${from.seqno} names no masterchain block ${to.seqno}`);
  if (entry.rootHash !== hashHex(to.rootHash) || entry.fileHash !== hashHex(to.fileHash)) {
    throw new ProofError('link.back.prev_blocks', 'mismatch', `the state of ${from.seqno} names block ${to.seqno} with root hash ${entry.rootHash}, not ${hashHex(to.rootHash)}`);
  }
  if (entry.key !== link.toKeyBlock) {
    throw new ProofError('link.back.key_block', 'mismatch', `the link says to_key_block=${link.toKeyBlock}, prev_blocks says ${entry.key}`);
  }
  if (link.toKeyBlock) {
    const destRoot = proofRoots(link.destProof, 'link.dest', 1)[0]!;
    const header = readSignedHeader(unwrapMerkleProof(destRoot, 'link.dest.root_hash', hashHex(to.rootHash)), 'link.dest');
    if (!header.keyBlock || header.seqno !== to.seqno >>> 0) {
      throw new ProofError('link.dest.key_block', 'mismatch', `the proven header is block ${header.seqno} (key ${header.keyBlock}), not key block ${to.seqno}`);
    }
  }
  return to;
}

/**
 * A getBlockProof reply from a trusted masterchain block `from` to an older one: exactly one backward link,
 * from `from`, checked by checkBackwardLink. Returns the block `from`'s history holds at the link's end.
 * ProofError names (`<check>.steps`, `<check>.from`) say which part broke.
 */
export function checkBackwardProof(reply: { from: BlockIdExt; steps: BlockLink[] }, from: BlockIdExt, check: string): BlockIdExt {
  const step = reply.steps.length === 1 ? reply.steps[0]! : undefined;
  if (!step || step.kind !== 'back') throw new ProofError(`${check}.steps`, 'malformed', `expected one backward link from ${from.seqno}, got ${reply.steps.map((s) => s.kind).join(', ') || 'no link'}`);
  if (!sameBlockId(reply.from, from) || !sameBlockId(step.from, from)) throw new ProofError(`${check}.from`, 'mismatch', `the link starts at ${describeBlockId(step.from)}, not at the trusted ${describeBlockId(from)}`);
  return checkBackwardLink(step);
}

