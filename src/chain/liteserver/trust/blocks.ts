// Check (a), block headers proven by a Merkle proof against the block's root hash, and full blocks checked
// by root hash and file hash, each linked to its parents through prev_ref.
import { createHash } from 'node:crypto';
import { Cell } from '@ton/core';
import { CellRef } from '../../cell/cell.js';
import { BocError } from '../../cell/errors.js';
import { bocRoots } from '../../cell/parse.js';
import { Slice } from '../../cell/slice.js';
import { readBlockInfo, shardHex, type BlockHeaderInfo as BlockInfo } from '../../decode/block-info.js';
import { BLOCK_TAG } from '../../tlb/block.js';
import { describeBlock, refHashes, shardIdHex, type BlockRef } from './block-ref.js';
import { expectHash, ProofError, proofRead } from './errors.js';
import { hashHex, proofRoots, provenReader, unwrapMerkleProof } from './merkle.js';

/** A proven block: its root cell (maybe with pruned parts) and its header. */
export interface ProvenBlock {
  block: Cell;
  info: BlockInfo;
}

/** A full block checked by its hashes: its root in the cell layer's arena, and its header. */
export interface CheckedFullBlock {
  block: CellRef;
  info: BlockInfo;
}

/** Reads the header of a proven Block cell and checks it is the block `id` names (`<check>.id`). */
export function provenBlockInfo(block: Cell | CellRef, id: BlockRef, check: string): BlockInfo {
  const r = block instanceof CellRef ? proofRead(`${check}.block`, () => new Slice(block)) : provenReader(block, `${check}.block`);
  const info = proofRead(`${check}.info`, () => {
    const tag = r.uint(32);
    if (tag !== BLOCK_TAG) throw new ProofError(`${check}.block`, 'malformed', `tag 0x${tag.toString(16)} is not a Block`);
    r.skip(32); // global_id
    return readBlockInfo(r.refReader());
  });
  if (info.workchain !== id.workchain || info.shard !== shardIdHex(id.shard) || info.seqno !== id.seqno) {
    throw new ProofError(`${check}.id`, 'mismatch', `the header is of block (${info.workchain}, ${info.shard}, ${info.seqno}), not ${describeBlock(id)}`);
  }
  return info;
}

/**
 * A one-root block proof anchored by `id.rootHash` alone: the Block cell, whose header the proof may leave
 * out (the root hash names the block already).
 */
export function provenBlockRoot(proof: Buffer | Cell, id: BlockRef, check: string): Cell {
  const root = proof instanceof Cell ? proof : proofRoots(proof, check, 1)[0]!;
  const block = unwrapMerkleProof(root, `${check}.root_hash`, id.rootHash);
  const tag = proofRead(`${check}.block`, () => provenReader(block, `${check}.block`).uint(32));
  if (tag !== BLOCK_TAG) throw new ProofError(`${check}.block`, 'malformed', `tag 0x${tag.toString(16)} is not a Block`);
  return block;
}

/** (a) `blockHeader.header_proof` (or any one-root block proof) of block `id`. */
export function checkBlockHeaderProof(proof: Buffer | Cell, id: BlockRef, check = 'header'): ProvenBlock {
  const root = proof instanceof Cell ? proof : proofRoots(proof, check, 1)[0]!;
  const block = unwrapMerkleProof(root, `${check}.root_hash`, id.rootHash);
  return { block, info: provenBlockInfo(block, id, check) };
}

/** A full block BoC: one root whose hash is `id.rootHash`, bytes whose sha256 is `id.fileHash`. */
export function checkFullBlock(boc: Buffer, id: BlockRef, check = 'block'): CheckedFullBlock {
  const { rootHash, fileHash } = refHashes(id);
  if (fileHash !== undefined) expectHash(`${check}.file_hash`, createHash('sha256').update(boc).digest('hex'), fileHash, 'sha256 of the BoC');
  // Read by the cell layer: the decoder walks the same arena, nothing is parsed twice.
  let root: CellRef;
  let hash: string;
  try {
    const roots = bocRoots(boc);
    if (roots.length !== 1) throw new ProofError(check, 'malformed', `expected 1 root(s), got ${roots.length}`);
    root = roots[0]!;
    hash = root.hashHex(0);
  } catch (err) {
    if (err instanceof BocError) throw new ProofError(check, 'malformed', `not a valid BoC: ${err.message}`);
    throw err;
  }
  expectHash(`${check}.root_hash`, hash, rootHash, 'root cell hash');
  return { block: root, info: provenBlockInfo(root, id, check) };
}

/**
 * The shards of a block's parents: the two halves after a merge (left first), the parent shard after a
 * split, else its own shard. The masterchain never splits.
 */
export function parentShards(info: BlockInfo): string[] {
  const shard = BigInt(`0x${info.shard}`);
  const low = shard & -shard;
  if (info.afterMerge) return [shardHex(shard - (low >> 1n)), shardHex(shard + (low >> 1n))];
  if (info.afterSplit) return [shardHex((shard - low) | (low << 1n))];
  return [info.shard];
}

/**
 * A child's `prev_ref` must name its parents exactly: one parent, or two after a merge (left half first),
 * in the shards `parentShards` gives. Parents need their file hash.
 */
export function checkPrevLinks(child: BlockInfo, parents: BlockRef[], check = 'block.prev_ref'): void {
  const expected = child.afterMerge ? 2 : 1;
  if (parents.length !== expected || child.prev.length !== expected) {
    throw new ProofError(check, 'mismatch', `block ${child.seqno} has ${child.prev.length} parent(s) (after_merge ${child.afterMerge}), ${parents.length} given`);
  }
  const shards = parentShards(child);
  child.prev.forEach((prev, i) => {
    const parent = parents[i]!;
    if (parent.workchain !== child.workchain || shardIdHex(parent.shard) !== shards[i]) {
      throw new ProofError(check, 'mismatch', `parent ${i} ${describeBlock(parent)} is not in shard (${child.workchain}, ${shards[i]})`);
    }
    if (parent.fileHash === undefined) throw new ProofError(check, 'malformed', `parent ${describeBlock(parent)} has no file hash`);
    if (prev.seqno !== parent.seqno) throw new ProofError(check, 'mismatch', `prev_ref ${i} is seqno ${prev.seqno}, the parent is ${parent.seqno}`);
    expectHash(check, prev.rootHash, hashHex(parent.rootHash), `prev_ref ${i} root hash`);
    expectHash(check, prev.fileHash, hashHex(parent.fileHash), `prev_ref ${i} file hash`);
  });
}
