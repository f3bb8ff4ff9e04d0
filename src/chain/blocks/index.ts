// The one block builder: real masterchain and shard blocks (src/chain/tlb storers) for the synthetic chain
// of tests, the fake liteserver and the devnet. See docs/BLOCKS.md.
export { buildBlock, accountBlocks, extBlkRef, MASTERCHAIN, type BlockInput, type BuiltBlock } from './build.js';
export { merkleUpdate, prunedBranch } from './merkle-update.js';
export { childShards, parentShard, siblingShard, shardContains, shardIdent, shardHex, parseShard, FULL_SHARD } from './shard.js';
export { SyntheticChain, BASECHAIN, LT_STEP, type MasterchainStep, type NextMasterchainOptions, type SyntheticChainOptions } from './synthetic.js';
export { transferTransaction, newAccount, shardAccountEntry, type Transfer, type SyntheticAccount } from './transfer.js';
export { zeroState, type ChainTop } from './zero-state.js';
