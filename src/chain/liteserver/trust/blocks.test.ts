import { Cell, convertToMerkleProof } from '@ton/core';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { blockInfoCell } from '../../../../test/support/block-info.js';
import { flipBit, prunedBranch, replaceAt } from '../../../../test/support/merkle.js';
import { MC_31220993, mainnetFixture, proofFailure } from '../../../../test/support/proofs.js';
import { readBlockInfo } from '../../decode/block-info.js';
import { decodeBlock } from '../../decode/block.js';
import { checkBlockHeaderProof, checkFullBlock, checkPrevLinks, parentShards } from './blocks.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('(a) block header proof: mainnet masterchain block 31220993', () => {
  const proof = mainnetFixture('proofs/header_proof_mc31220993.boc');

  it('proves the header against the root hash', () => {
    const { info } = checkBlockHeaderProof(proof, MC_31220993);
    expect(info).toMatchObject({ workchain: -1, shard: '8000000000000000', seqno: 31220993, keyBlock: false, genUtime: 1689699158 });
    expect(info.prev[0]!.seqno).toBe(31220992);
    // The same bytes as TL carries them: a signed shard and hash bytes.
    const tl = { workchain: -1, shard: -(1n << 63n), seqno: 31220993, rootHash: Buffer.from(MC_31220993.rootHash, 'hex') };
    expect(checkBlockHeaderProof(proof, tl).info.seqno).toBe(31220993);
  });

  it('fails naming the link: another root hash, another block id, a flipped pruned hash, a pruned header', () => {
    expect(proofFailure(() => checkBlockHeaderProof(proof, { ...MC_31220993, rootHash: '00'.repeat(32) }))).toMatchObject({ check: 'header.root_hash', failure: 'mismatch' });
    expect(proofFailure(() => checkBlockHeaderProof(proof, { ...MC_31220993, seqno: 31220994 }))).toMatchObject({ check: 'header.id', failure: 'mismatch' });
    const block = Cell.fromBoc(proof)[0]!.refs[0]!;
    // value_flow (ref 1) is pruned in a header proof: flip one bit of its stored hash.
    const flipped = convertToMerkleProof(replaceAt(block, [1], (pruned) => flipBit(pruned, 16 + 100)));
    expect(proofFailure(() => checkBlockHeaderProof(flipped, MC_31220993))).toMatchObject({ check: 'header.root_hash', failure: 'mismatch' });
    // A proof that prunes the BlockInfo keeps the root hash but proves no header.
    const noInfo = convertToMerkleProof(replaceAt(block, [0], prunedBranch));
    expect(proofFailure(() => checkBlockHeaderProof(noInfo, MC_31220993))).toMatchObject({ check: 'header.info', failure: 'not-proven' });
  });
});

describe('full blocks: root hash, file hash and prev_ref links', () => {
  const mc = mainnetFixture('blocks/tongo-block-5.boc');
  const mcId = { workchain: -1, shard: '8000000000000000', seqno: 17734191, rootHash: '04c2c26fa7f6f84255d142ff2c4f98666db56879911fc2e83b3a284f20ca48ec', fileHash: sha256(mc) };

  it('accepts mainnet masterchain block 17734191 and basechain block 34703989 by their known root hashes', () => {
    expect(checkFullBlock(mc, mcId).info.seqno).toBe(17734191);
    const bc = mainnetFixture('blocks/block_0_8000000000000000_34703989.boc');
    const bcId = { workchain: 0, shard: '8000000000000000', seqno: 34703989, rootHash: '84753a60efefc7169959fdf34ea21f3fa9f5a85c3a8690db77b1f141e0ff47ee', fileHash: sha256(bc) };
    expect(checkFullBlock(bc, bcId).info.genUtime).toBe(1682417974);
  });

  it('fails naming the link: other bytes, another root, another block', () => {
    const tampered = Buffer.from(mc);
    tampered[tampered.length - 40]! ^= 1;
    expect(proofFailure(() => checkFullBlock(tampered, mcId))).toMatchObject({ check: 'block.file_hash', failure: 'mismatch' });
    // Same cells, serialised again: the file hash differs even though the root hash would match.
    const reserialised = Cell.fromBoc(mc)[0]!.toBoc({ idx: false, crc32: false });
    expect(proofFailure(() => checkFullBlock(reserialised, mcId))).toMatchObject({ check: 'block.file_hash' });
    expect(proofFailure(() => checkFullBlock(mc, { ...mcId, rootHash: 'ff'.repeat(32) }))).toMatchObject({ check: 'block.root_hash', failure: 'mismatch' });
    expect(proofFailure(() => checkFullBlock(mc, { ...mcId, seqno: 17734192 }))).toMatchObject({ check: 'block.id', failure: 'mismatch' });
  });

  const real = (f: string) => {
    const d = decodeBlock(mainnetFixture(f));
    const id = { workchain: 0, shard: d.header.shard, seqno: d.header.seqno, rootHash: d.header.rootHash, fileHash: d.header.fileHash };
    return { id, asParent: { endLt: d.header.endLt, seqno: id.seqno, rootHash: id.rootHash, fileHash: id.fileHash } };
  };

  it("links a child to its parent's real root and file hashes (blocks 54302208 and 54302203 of shard a000…)", () => {
    const [a, b] = [real('blocks/tongo-block-6.boc'), real('blocks/tongo-block-7.boc')];
    const inA000 = { shardPfxBits: 2, shardPrefix: 0x8000000000000000n };
    const child = readBlockInfo(blockInfoCell({ ...inA000, seqno: a!.id.seqno + 1, prev: [a!.asParent] }));
    checkPrevLinks(child, [a!.id]);
    expect(proofFailure(() => checkPrevLinks(child, [b!.id]))).toMatchObject({ check: 'block.prev_ref', failure: 'mismatch' });
    expect(proofFailure(() => checkPrevLinks(child, [{ ...a!.id, fileHash: b!.id.fileHash }]))).toMatchObject({ check: 'block.prev_ref' });
    expect(proofFailure(() => checkPrevLinks(child, [a!.id, b!.id]))).toMatchObject({ check: 'block.prev_ref' });
    // The right hashes, but a parent in another shard.
    expect(proofFailure(() => checkPrevLinks(child, [{ ...a!.id, shard: '8000000000000000' }]))).toMatchObject({ check: 'block.prev_ref', failure: 'mismatch' });
  });

  it('after a split the parent is the parent shard; after a merge the two halves, left first', () => {
    const parent = real('blocks/block_0_8000000000000000_34703989.boc');
    const inC000 = { shardPfxBits: 1, shardPrefix: 0x8000000000000000n };
    const split = readBlockInfo(blockInfoCell({ ...inC000, afterSplit: true, seqno: parent.id.seqno + 1, prev: [parent.asParent] }));
    expect(parentShards(split)).toEqual(['8000000000000000']);
    checkPrevLinks(split, [parent.id]);
    const [a, b] = [real('blocks/tongo-block-6.boc'), real('blocks/tongo-block-7.boc')];
    const merged = readBlockInfo(blockInfoCell({ ...inC000, afterMerge: true, seqno: a!.id.seqno + 1, prev: [a!.asParent, b!.asParent] }));
    expect(parentShards(merged)).toEqual(['a000000000000000', 'e000000000000000']);
    // Block 54302203 is of shard a000… itself, so as the right half (e000…) it is refused; with the shard
    // the merge needs (its hashes unchanged, the label only) the link holds.
    expect(proofFailure(() => checkPrevLinks(merged, [a!.id, b!.id]))).toMatchObject({ check: 'block.prev_ref' });
    checkPrevLinks(merged, [a!.id, { ...b!.id, shard: 'e000000000000000' }]);
    expect(proofFailure(() => checkPrevLinks(merged, [{ ...b!.id, shard: 'a000000000000000' }, { ...a!.id, shard: 'e000000000000000' }]))).toMatchObject({ check: 'block.prev_ref' });
  });
});
