// The proof checks of liteserver replies (liteserver.md §Q4 (a)–(d)), one module each. Every check starts
// from a hash the caller already trusts and throws a ProofError naming the link that broke.
export { ProofError, type ProofFailure } from './errors.js';
export { type BlockRef } from './block-ref.js';
export { checkBlockHeaderProof, checkFullBlock, checkPrevLinks, parentShards, provenBlockRoot, type ProvenBlock } from './blocks.js';
export { checkAllShardsInfo, checkShardBlockProof, findShardDescr, type ShardDescr } from './shards.js';
export { checkAccountState, checkAccountStateProof, type AccountRef, type AccountStateReply, type ProvenAccountState } from './account.js';
export { checkTransactionHistory, checkTransactionInBlock, type ProvenTransaction } from './transactions.js';
export { checkConfigProof, mcStateExtraOf, provenConfigParam, provenStateOfBlock, readShardState } from './state.js';
