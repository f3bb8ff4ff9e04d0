// Check (b): a shard block is the one a proven masterchain block lists. Either through the masterchain
// state (`getShardInfo`, `getAccountState`'s shard_proof: block + state proof, McStateExtra.shard_hashes) or
// through the block itself (`getAllShardsInfo`: McBlockExtra.shard_hashes, with the dictionary sent apart).
import { Cell } from '@ton/core';
import { BLOCK_EXTRA_TAG } from '../../decode/block.js';
import { CellReader } from '../../cell/core-reader.js';
import { MC_BLOCK_EXTRA_TAG, readShardDescr, readShardHashesDict, type ShardBlockRef, type ShardDescr } from '../../decode/shard-hashes.js';
import { describeBlock, shardIdHex, type BlockRef } from './block-ref.js';
import { expectHash, ProofError, proofRead } from './errors.js';
import { cellHash, hashHex, lookupHashmap, proofRoots, provenReader, provenValue, signedKey, unwrapMerkleProof } from './merkle.js';
import { mcStateExtraOf, provenStateOfBlock, readShardState } from './state.js';

export type { ShardDescr } from '../../decode/shard-hashes.js';

/**
 * The ShardDescr of the shard of `workchain` that holds `position` (a shard id, or an account's
 * `accountPosition`) in a proven `ShardHashes` root (the HashmapE's root cell, null when empty). Null when the proof
 * shows no such workchain; a pruned cell on the way is `not-proven`.
 */
export function findShardDescr(shardHashes: Cell | null, workchain: number, position: bigint, check: string): ShardDescr | null {
  return findShardLeaf(shardHashes, workchain, position, check)?.descr ?? null;
}

/** Like findShardDescr, with the BinTree leaf cell that holds the descriptor (what `getShardInfo` sends). */
export function findShardLeaf(shardHashes: Cell | null, workchain: number, position: bigint, check: string): { descr: ShardDescr; leaf: Cell } | null {
  if (!shardHashes) return null;
  const leaf = provenValue(lookupHashmap(shardHashes, 32, signedKey(workchain, 32), check), check, `workchain ${workchain}`);
  if (!leaf) return null;
  let node = proofRead(check, () => leaf.ref());
  let shard = 1n << 63n;
  for (;;) {
    const r = provenReader(node, check);
    const fork = proofRead(check, () => r.bool());
    if (!fork) return { descr: proofRead(check, () => readShardDescr(r, workchain, shard)), leaf: node };
    if (position === shard) throw new ProofError(check, 'mismatch', `shard ${shardIdHex(shard)} of workchain ${workchain} is split`);
    const half = (shard & -shard) >> 1n;
    if (half === 0n) throw new ProofError(check, 'malformed', 'shard tree deeper than 64 levels');
    const [left, right] = proofRead(check, () => [r.ref(), r.ref()]);
    node = position < shard ? left : right;
    shard = position < shard ? shard - half : shard + half;
  }
}

/**
 * The shard position of an account: its first 63 bits as a shard id (tag bit 1), so that it never equals
 * the id of a shard that is split (whose halves it falls between) and always lands in one leaf.
 */
export function accountPosition(accountId: string): bigint {
  return BigInt(`0x${accountId.slice(0, 16)}`) | 1n;
}

/** Whether shard `shard` (hex id) holds the position (a shard id or an account's first 64 bits). */
export function shardContains(shard: string, position: bigint): boolean {
  const id = BigInt(`0x${shard}`);
  const low = id & -id;
  return position >= id - low && position < id + low;
}

/** The ShardDescr must name `shardblk` exactly: shard, seqno, root and file hash (`<check>.descr`). */
export function expectDescrOf(descr: ShardDescr, shardblk: BlockRef, check: string): void {
  if (descr.shard !== shardIdHex(shardblk.shard) || descr.seqno !== shardblk.seqno) {
    throw new ProofError(`${check}.descr`, 'mismatch', `the masterchain lists (${descr.workchain}, ${descr.shard}, ${descr.seqno}), not ${describeBlock(shardblk)}`);
  }
  expectHash(`${check}.descr`, descr.rootHash, hashHex(shardblk.rootHash), 'shard block root hash');
  if (shardblk.fileHash !== undefined) expectHash(`${check}.descr`, descr.fileHash, hashHex(shardblk.fileHash), 'shard block file hash');
}

/**
 * (b) `shard_proof` (2 roots: masterchain block `mcBlock`, its state): the ShardDescr the state lists for
 * `shardblk`'s shard, which must be `shardblk`. `mcBlock` must already be trusted. `shardDescr`, the
 * `getShardInfo` reply's descriptor BoC, must be the proven leaf itself.
 */
export function checkShardBlockProof(shardProof: Buffer | Cell[], mcBlock: BlockRef, shardblk: BlockRef, check = 'shard', shardDescr?: Buffer): ShardDescr {
  const [blockProof, stateProof] = Array.isArray(shardProof) ? shardProof : proofRoots(shardProof, check, 2);
  if (!blockProof || !stateProof) throw new ProofError(check, 'malformed', 'a shard proof has two roots');
  const { state } = provenStateOfBlock(blockProof, stateProof, hashHex(mcBlock.rootHash), check);
  const extra = mcStateExtraOf(readShardState(state, `${check}.state`), `${check}.state`);
  const shard = BigInt(`0x${shardIdHex(shardblk.shard)}`);
  const found = findShardLeaf(extra.shardHashes, shardblk.workchain, shard, `${check}.shard_hashes`);
  if (!found) throw new ProofError(`${check}.shard_hashes`, 'mismatch', `workchain ${shardblk.workchain} is not in the masterchain state`);
  expectDescrOf(found.descr, shardblk, check);
  if (shardDescr !== undefined) {
    expectHash(`${check}.descr_boc`, cellHash(proofRoots(shardDescr, `${check}.descr_boc`, 1)[0]!), cellHash(found.leaf), 'sent ShardDescr hash');
  }
  return found.descr;
}

/**
 * (b') `getAllShardsInfo`: a one-root proof of masterchain block `mcBlock` reaching McBlockExtra, whose
 * (pruned) `shard_hashes` root must be the root of `data`'s ShardHashes. Returns every shard's top block.
 */
export function checkAllShardsInfo(proof: Buffer, data: Buffer, mcBlock: BlockRef, check = 'shards'): ShardBlockRef[] {
  const block = unwrapMerkleProof(proofRoots(proof, check, 1)[0]!, `${check}.root_hash`, mcBlock.rootHash);
  const provenRoot = proofRead(`${check}.mc_extra`, () => {
    const extraCell = block.refs[3];
    if (!extraCell) throw new ProofError(`${check}.mc_extra`, 'malformed', 'Block has no extra');
    const extra = provenReader(extraCell, `${check}.mc_extra`);
    if (extra.uint(32) !== BLOCK_EXTRA_TAG) throw new ProofError(`${check}.mc_extra`, 'malformed', 'not a BlockExtra');
    extra.skip(512); // rand_seed, created_by (in_msg_descr, out_msg_descr, account_blocks are refs 0..2)
    const custom = extra.cell.refs[3];
    if (!extra.bool() || !custom) throw new ProofError(`${check}.mc_extra`, 'malformed', 'not a masterchain block (no McBlockExtra)');
    const mcExtra = provenReader(custom, `${check}.mc_extra`);
    if (mcExtra.uint(16) !== MC_BLOCK_EXTRA_TAG) throw new ProofError(`${check}.mc_extra`, 'malformed', 'not a McBlockExtra');
    mcExtra.skip(1); // key_block
    return mcExtra.maybeRef();
  });
  const [dataRoot] = proofRoots(data, `${check}.data`, 1);
  const dataReader = provenReader(dataRoot!, `${check}.data`);
  const sent = proofRead(`${check}.data`, () => dataReader.clone().maybeRef());
  if ((sent === null) !== (provenRoot === null) || (sent && provenRoot && cellHash(sent) !== cellHash(provenRoot))) {
    throw new ProofError(`${check}.shard_hashes`, 'mismatch', `the ShardHashes sent (${sent ? cellHash(sent) : 'empty'}) are not the block's (${provenRoot ? cellHash(provenRoot) : 'empty'})`);
  }
  return proofRead(`${check}.data`, () => readShardHashesDict(new CellReader(dataRoot!)));
}
