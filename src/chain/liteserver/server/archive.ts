// What a liteserver needs of a chain to answer with proofs: its blocks as cells and the state after each.
// SyntheticChain (src/chain/blocks/testing/) satisfies it as it is; the devnet implements it over its storage.
import type { Cell } from '@ton/core';
import type { BlockId } from '../../model.js';
import type { SignatureSet } from '../tl/lite-types.js';
import type { ExtBlkRef } from '../../tlb/ext-blk-ref.js';

/** One block of the archive: a BuiltBlock satisfies it. */
export interface ArchivedBlock {
  /** Shard as 16 hex digits, hashes as hex: root hash = `root.hash()`, file hash = sha256 of `boc`. */
  id: BlockId;
  /** The Block cell. */
  root: Cell;
  /** The block's BoC as served by getBlock. */
  boc: Buffer;
  /**
   * The whole ShardStateUnsplit after this block: account and shard proofs are cut from it. Null when the
   * archive no longer keeps it (queries that need it are then refused; blocks and headers are still served).
   */
  state: Cell | null;
}

/**
 * A chain's blocks. The server finds shard blocks from the masterchain blocks (their shard_hashes, then
 * prev_ref back), and indexes their transactions itself: the archive answers only the lookups below.
 */
export interface BlockArchive {
  /** Newest masterchain block available (the server serves up to the head it is told to advance to). */
  readonly masterchainSeqno: number;
  /** Masterchain blocks 1 … masterchainSeqno. */
  masterchainBlock(seqno: number): ArchivedBlock | undefined;
  /** Any block (masterchain or shard) by its root hash in hex. */
  block(rootHash: string): ArchivedBlock | undefined;
  /** The masterchain zero state the chain starts from (the `init` of getMasterchainInfo and global configs). */
  zeroStates(): { masterchain: { ref: ExtBlkRef } };
  /** The validators' signatures of masterchain block `seqno` (forward links of getBlockProof need them). */
  signatures?(seqno: number): SignatureSet | null;
}
