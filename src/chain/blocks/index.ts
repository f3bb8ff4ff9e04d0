// The one block builder: real masterchain and shard blocks (src/chain/tlb storers) for the devnet and
// for the tests' synthetic chain (testing/synthetic.ts, left out of the build). See docs/BLOCKS.md.
export { buildBlock, accountBlocks, extBlkRef, MASTERCHAIN, type BlockInput, type BuiltBlock } from './build.js';
export { merkleUpdate, prunedBranch } from './merkle-update.js';
export { childShards, parentShard, siblingShard, shardContains, shardIdent, shardHex, parseShard, FULL_SHARD } from './shard.js';
export { zeroState, type ChainTop } from './zero-state.js';
