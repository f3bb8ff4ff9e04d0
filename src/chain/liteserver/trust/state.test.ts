import { Cell, convertToMerkleProof } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { MC_31220993 as MC_ANCHOR, mainnetFixture as fixture, proofFailure as failure } from '../../../../test/support/proofs.js';
import { cellAt, flipBit, flippedBits, prunedBranch, rebuild, replaceAt } from '../../../../test/support/merkle.js';
import { readBlockInfo } from '../../decode/block-info.js';
import { unwrapMerkleProof } from './merkle.js';
import { findShardDescr } from './shards.js';
import { checkConfigProof, mcStateExtraOf, provenConfigParam, provenStateOfBlock, readMcStateInfo, readShardState } from './state.js';

const MC_31220993 = MC_ANCHOR.rootHash;

describe('proven masterchain state (shard proof of mainnet block 31220993)', () => {
  const [blockProof, stateProof] = Cell.fromBoc(fixture('proofs/shard_proof_mc31220993.boc'));

  it('links block and state, and the header agrees with the state it produced', () => {
    const { block, state } = provenStateOfBlock(blockProof!, stateProof!, MC_31220993, 'shard');
    const info = readBlockInfo(block.refs[0]!);
    const s = readShardState(state, 'shard.state');
    expect(s).toMatchObject({ globalId: -239, workchain: -1, shard: '8000000000000000', seqno: info.seqno, genUtime: info.genUtime, genLt: info.endLt });
    const stateInfo = readMcStateInfo(mcStateExtraOf(s, 'shard.state').info, 'shard.state');
    // Two independent structures: the header's catchain seqno and last key block match the state's.
    expect(info).toMatchObject({ seqno: 31220993, keyBlock: false, afterMerge: false, afterSplit: false, beforeSplit: false });
    expect(stateInfo.catchainSeqno).toBe(info.genCatchainSeqno);
    expect(stateInfo.lastKeyBlockSeqno).toBe(info.prevKeyBlockSeqno);
    expect(info.prevKeyBlockSeqno).toBeLessThan(info.seqno);
  });

  it('names the link when the state is not the one of this block', () => {
    const other = Cell.fromBoc(fixture('proofs/account_proof_EQBvW8.boc'))[1]!;
    expect(failure(() => provenStateOfBlock(blockProof!, other, MC_31220993, 'shard'))).toMatchObject({ check: 'shard.state_root', failure: 'mismatch' });
    expect(failure(() => provenStateOfBlock(blockProof!, stateProof!, '00'.repeat(32), 'shard'))).toMatchObject({ check: 'shard.block_root_hash' });
    // One bit flipped in the MERKLE_UPDATE's new hash (and its pruned new state): the block's hash changes, so its anchor breaks.
    const forged = convertToMerkleProof(replaceAt(blockProof!.refs[0]!, [2], (u) => rebuild(u, flippedBits(u, 8 + 256 + 3), [u.refs[0]!, flipBit(u.refs[1]!, 16 + 3)])));
    expect(failure(() => provenStateOfBlock(forged, stateProof!, MC_31220993, 'shard'))).toMatchObject({ check: 'shard.block_root_hash', failure: 'mismatch' });
    // The state's accounts are pruned in a masterchain shard proof.
    expect(cellAt(readShardState(unwrapMerkleProof(stateProof!, 's'), 's').accounts, []).isExotic).toBe(true);
  });
});

describe('config params from mainnet config proofs', () => {
  for (const [file, seqno, consensus] of [['config/tongo-config_proof_65466080.boc', 65466080, true], ['config/tongo-config_proof_33651872.boc', 33651872, false]] as const) {
    it(`${file}: params 28 and 34 are proven, 36 proven absent, param 30 only after the consensus upgrade`, () => {
      const state = readShardState(unwrapMerkleProof(Cell.fromBoc(fixture(file))[0]!, 'config'), 'config');
      expect(state.seqno).toBe(seqno);
      const extra = mcStateExtraOf(state, 'config');
      expect(provenConfigParam(extra.configParams, 34)).not.toBeNull();
      expect(provenConfigParam(extra.configParams, 28)!.bits.length).toBe(144);
      expect(provenConfigParam(extra.configParams, 36)).toBeNull();
      expect(provenConfigParam(extra.configParams, 30) !== null).toBe(consensus);
      // Keys are int32: the root forks on the sign bit, and -999 (negative) is a real mainnet param.
      expect(provenConfigParam(extra.configParams, -999)!.bits.length).toBe(256);
      expect(provenConfigParam(extra.configParams, -12345)).toBeNull();
      // A proof that leaves keys 64..127 out (the right fork under the 24-zero label of the positive side):
      // param 79 there is not-proven, never absent; params 0 and 3 on the kept side stay found / absent.
      const cut = replaceAt(extra.configParams, [0, 1], prunedBranch);
      expect(failure(() => provenConfigParam(cut, 79))).toMatchObject({ check: 'config.param79', failure: 'not-proven' });
      expect(failure(() => provenConfigParam(cut, 99))).toMatchObject({ failure: 'not-proven' });
      expect(provenConfigParam(cut, 0)).not.toBeNull();
      expect(provenConfigParam(cut, 3)).toBeNull();
    });
  }
});

describe('the other config proofs in the fixtures', () => {
  it('config_proof_toncore.boc: a state with pruned parts but no Merkle wrapper proves nothing by itself', () => {
    const root = Cell.fromBoc(fixture('proofs/config_proof_toncore.boc'))[0]!;
    expect(failure(() => unwrapMerkleProof(root, 'config'))).toMatchObject({ check: 'config', failure: 'malformed' });
    // Read as a cell tree anyway: its config is whole, its shard_hashes pruned (not-proven, never "no shards").
    const state = readShardState(root, 'config');
    expect(state).toMatchObject({ globalId: -239, workchain: -1, seqno: 20429810 });
    const extra = mcStateExtraOf(state, 'config');
    expect(provenConfigParam(extra.configParams, 34)).not.toBeNull();
    expect(failure(() => findShardDescr(extra.shardHashes, 0, 1n << 63n, 'shard_hashes'))).toMatchObject({ check: 'shard_hashes', failure: 'not-proven' });
  });

  it('tongo-config_proof_4324374.boc (testnet): a param 79 others find malformed is returned as a cell, no crash', () => {
    const state = readShardState(unwrapMerkleProof(Cell.fromBoc(fixture('config/tongo-config_proof_4324374.boc'))[0]!, 'config'), 'config');
    expect(state).toMatchObject({ globalId: -3, seqno: 4324374 });
    const extra = mcStateExtraOf(state, 'config');
    expect(provenConfigParam(extra.configParams, 79)!.refs.length).toBeGreaterThan(0);
    expect(provenConfigParam(extra.configParams, 34)).not.toBeNull();
    expect(provenConfigParam(extra.configParams, 30)).toBeNull();
  });
});

describe('checkConfigProof (getConfigParams reply)', () => {
  const [blockProof, stateProof] = Cell.fromBoc(fixture('proofs/shard_proof_mc31220993.boc'));
  const stateBoc = blockProof!.toBoc();

  it("links the config proof to the block: another block's state is refused, a pruned config is not proven", () => {
    // Block 31220993's own state proof: its config is pruned there, so param 34 is not proven (never absent).
    expect(failure(() => checkConfigProof(stateBoc, stateProof!.toBoc(), MC_31220993, [34]))).toMatchObject({ check: 'config.param34', failure: 'not-proven' });
    // A real config proof of block 65466080 served for block 31220993.
    const other = fixture('config/tongo-config_proof_65466080.boc');
    expect(failure(() => checkConfigProof(stateBoc, other, MC_31220993, [34]))).toMatchObject({ check: 'config.state_root', failure: 'mismatch' });
    expect(failure(() => checkConfigProof(stateBoc, stateProof!.toBoc(), '00'.repeat(32), [34]))).toMatchObject({ check: 'config.block_root_hash' });
  });
});
