import { beginCell, Cell, convertToMerkleProof, Dictionary } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { cellAt, findPath, flipBit, flippedBits, proveOnly, prunedBranch, rebuild, replaceAt } from '../../../../test/support/merkle.js';
import { MC_31220993, mainnetFixture, proofFailure } from '../../../../test/support/proofs.js';
import { decodeBlock } from '../../decode/block.js';
import { accountPosition, checkAllShardsInfo, checkShardBlockProof, findShardDescr } from './shards.js';
import { cellHash } from './merkle.js';

// Basechain block 36908135, the top of shard 8000000000000000 that masterchain block 31220993 lists.
const SHARD_BLOCK = { workchain: 0, shard: '8000000000000000', seqno: 36908135, rootHash: '39e5cbca5bf69750b5d9897872c3a0d7a3e614e521c53e4de728fafed38dce27' };
// ShardDescr bits: bt_leaf$0, tag 4, seq_no 32, reg_mc_seqno 32, start_lt 64, end_lt 64, then root_hash.
const DESCR_ROOT_HASH_BIT = 1 + 4 + 32 + 32 + 64 + 64;

describe('(b) shard block in the masterchain state: mainnet block 31220993', () => {
  const shardProof = mainnetFixture('proofs/shard_proof_mc31220993.boc');
  const descrBoc = mainnetFixture('proofs/shard_descr_wc0.boc');

  it('finds the ShardDescr of basechain block 36908135, the same leaf getShardInfo sends', () => {
    const descr = checkShardBlockProof(shardProof, MC_31220993, SHARD_BLOCK, 'shard', descrBoc);
    expect(descr).toMatchObject({ workchain: 0, shard: '8000000000000000', seqno: 36908135, regMcSeqno: 31220993, rootHash: SHARD_BLOCK.rootHash });
    expect(descr.fileHash).toMatch(/^[0-9a-f]{64}$/);
    // With the file hash it now knows, the check still holds; TL's signed shard form too.
    checkShardBlockProof(shardProof, MC_31220993, { ...SHARD_BLOCK, shard: -(1n << 63n), fileHash: descr.fileHash });
  });

  it('fails naming the link: a shard descriptor of another block, a forged descriptor, another mc block', () => {
    expect(proofFailure(() => checkShardBlockProof(shardProof, MC_31220993, { ...SHARD_BLOCK, seqno: 36908134 }))).toMatchObject({ check: 'shard.descr', failure: 'mismatch' });
    expect(proofFailure(() => checkShardBlockProof(shardProof, MC_31220993, { ...SHARD_BLOCK, rootHash: '2b4e96320f9d0afb02e5d55b6b42c3349e33540620ecc07b399211fd56e4de3e' }))).toMatchObject({ check: 'shard.descr' });
    expect(proofFailure(() => checkShardBlockProof(shardProof, MC_31220993, { ...SHARD_BLOCK, shard: '4000000000000000' }))).toMatchObject({ check: 'shard.descr' });
    expect(proofFailure(() => checkShardBlockProof(shardProof, MC_31220993, { ...SHARD_BLOCK, workchain: 1 }))).toMatchObject({ check: 'shard.shard_hashes', failure: 'mismatch' });
    // getShardInfo's descriptor of another block (one bit of its root hash flipped).
    const otherDescr = flipBit(Cell.fromBoc(descrBoc)[0]!, DESCR_ROOT_HASH_BIT + 7).toBoc();
    expect(proofFailure(() => checkShardBlockProof(shardProof, MC_31220993, SHARD_BLOCK, 'shard', otherDescr))).toMatchObject({ check: 'shard.descr_boc', failure: 'mismatch' });
    // A state whose descriptor names another shard block: the state hash no longer matches the block's.
    const [blockProof, stateProof] = Cell.fromBoc(shardProof);
    const state = stateProof!.refs[0]!;
    const path = findPath(state, (c) => cellHash(c) === cellHash(Cell.fromBoc(descrBoc)[0]!));
    const forgedState = replaceAt(state, path, (leaf) => flipBit(leaf, DESCR_ROOT_HASH_BIT + 7));
    const forged = [blockProof!, convertToMerkleProof(forgedState)];
    expect(proofFailure(() => checkShardBlockProof(forged, MC_31220993, SHARD_BLOCK))).toMatchObject({ check: 'shard.state_root', failure: 'mismatch' });
    expect(proofFailure(() => checkShardBlockProof(shardProof, { ...MC_31220993, rootHash: SHARD_BLOCK.rootHash }, SHARD_BLOCK))).toMatchObject({ check: 'shard.block_root_hash' });
  });

  it('says not-proven when the shard tree is pruned on the way', () => {
    const [blockProof, stateProof] = Cell.fromBoc(shardProof);
    const state = stateProof!.refs[0]!;
    const path = findPath(state, (c) => cellHash(c) === cellHash(Cell.fromBoc(descrBoc)[0]!));
    const pruned = replaceAt(state, path, prunedBranch);
    expect(cellHash(pruned)).toBe(cellHash(state));
    const proof = [blockProof!, convertToMerkleProof(pruned)];
    expect(proofFailure(() => checkShardBlockProof(proof, MC_31220993, SHARD_BLOCK))).toMatchObject({ check: 'shard.shard_hashes', failure: 'not-proven' });
  });
});

describe("(b') getAllShardsInfo: one-root proof of the block's McBlockExtra, ShardHashes sent apart", () => {
  // Built from real mainnet masterchain block 17734191: the proof keeps Block → BlockExtra → McBlockExtra.
  const bytes = mainnetFixture('blocks/tongo-block-5.boc');
  const block = Cell.fromBoc(bytes)[0]!;
  const mcId = { workchain: -1, shard: '8000000000000000', seqno: 17734191, rootHash: '04c2c26fa7f6f84255d142ff2c4f98666db56879911fc2e83b3a284f20ca48ec' };
  const mcExtra = block.refs[3]!.refs[3]!;
  const proof = proveOnly(block, (c) => c === mcExtra).toBoc();
  const shardHashesRoot = mcExtra.refs[0]!;
  const data = beginCell().storeMaybeRef(shardHashesRoot).endCell().toBoc();

  it('returns every shard top the block lists', () => {
    expect(cellAt(Cell.fromBoc(proof)[0]!.refs[0]!, [3, 3, 0]).isExotic).toBe(true); // shard_hashes pruned in the proof
    expect(checkAllShardsInfo(proof, data, mcId)).toEqual(decodeBlock(bytes).shardBlocks);
  });

  it('fails when the sent ShardHashes are not the block\'s', () => {
    const path = findPath(shardHashesRoot, (c) => c.bits.length > DESCR_ROOT_HASH_BIT + 256);
    const forged = replaceAt(shardHashesRoot, path, (leaf) => rebuild(leaf, flippedBits(leaf, DESCR_ROOT_HASH_BIT + 3), leaf.refs));
    const forgedData = beginCell().storeMaybeRef(forged).endCell().toBoc();
    expect(proofFailure(() => checkAllShardsInfo(proof, forgedData, mcId))).toMatchObject({ check: 'shards.shard_hashes', failure: 'mismatch' });
    expect(proofFailure(() => checkAllShardsInfo(proof, beginCell().storeBit(false).endCell().toBoc(), mcId))).toMatchObject({ check: 'shards.shard_hashes' });
    expect(proofFailure(() => checkAllShardsInfo(proof, data, { ...mcId, rootHash: '00'.repeat(32) }))).toMatchObject({ check: 'shards.root_hash' });
  });
});

describe('findShardDescr on a split workchain', () => {
  // Two real descriptor leaves (of the mainnet shard descr) under one fork: shards 4000… and c000….
  const leaf = Cell.fromBoc(mainnetFixture('proofs/shard_descr_wc0.boc'))[0]!;
  const tree = beginCell().storeBit(true).storeRef(leaf).storeRef(leaf).endCell();
  const dict = Dictionary.empty(Dictionary.Keys.Int(32), Dictionary.Values.Cell());
  dict.set(0, tree);
  const root = beginCell().storeDictDirect(dict).endCell();

  it('an account lands in its half, even one whose first 64 bits equal the split shard id', () => {
    expect(findShardDescr(root, 0, accountPosition('8000000000000000'.padEnd(64, '0')), 's')!.shard).toBe('c000000000000000');
    expect(findShardDescr(root, 0, accountPosition('7fffffffffffffff'.padEnd(64, 'f')), 's')!.shard).toBe('4000000000000000');
    expect(findShardDescr(root, 0, 0xc000000000000000n, 's')!.shard).toBe('c000000000000000');
    expect(findShardDescr(root, 1, 0xc000000000000000n, 's')).toBeNull();
    // Asking for the shard that split is an error, not a guess.
    expect(proofFailure(() => findShardDescr(root, 0, 0x8000000000000000n, 's'))).toMatchObject({ check: 's', failure: 'mismatch' });
  });
});
