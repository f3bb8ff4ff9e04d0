// The only boundary that knows where blocks come from. Implementations: devnet (embedded, default),
// replay (benchmarks), liteserver (real networks). Shaped after the liteserver API so that a
// liteserver implementation satisfies it unchanged; docs/CHAIN_SOURCE.md maps each call.
import type { TupleItem } from '@ton/core';
import type {
  AccountId,
  AccountState,
  BlockHeader,
  BlockId,
  FinalizedBlock,
  HashHex,
  PendingMessage,
  SourcedTransaction,
  TransactionModel,
} from './model.js';

export type Network = 'devnet' | 'mainnet' | 'testnet' | 'replay';

/** Which chain a source follows; a store that holds one chain's history refuses another's. */
export interface ChainIdentity {
  network: Network;
  /** The chain within its network: a devnet's own id, the replay's generator options, a real network's zero state. */
  id: string;
}

/** Most transactions one `getTransactions` call returns, as the liteserver's `getTransactions`. */
export const MAX_TRANSACTIONS_PER_CALL = 16;

export interface GetMethodResult {
  exitCode: number;
  stack: TupleItem[];
  gasUsed: bigint;
}

export interface EmulationResult {
  /** Every account that had a transaction in the emulated trace, sorted. */
  involvedAccounts: AccountId[];
  /** Emulated transactions in execution order (not on chain). */
  transactions: TransactionModel[];
}

/**
 * A shard block the masterchain has not committed yet: `signed` when the shard's validators accepted
 * it (`signed_blocks` of liteServer.nonfinal.getPendingShardBlocks), else a candidate. Its contents match
 * its id; that the masterchain will commit it is not proven (docs/FINALITY.md).
 */
export interface NonFinalBlock {
  id: BlockId;
  genUtime: number;
  signed: boolean;
  /** Its transactions in lt order, located in this block (mcSeqno: the masterchain block expected to commit it). */
  transactions: TransactionModel[];
  /** The block's BoC, when the source has it (its root hash and sha256 are the id's). */
  boc?: Buffer;
}

/** An external message a source knows will not land: it left the mempool without a transaction. */
export interface DroppedMessage {
  hash: HashHex;
  /** The Message BoC, standard base64 (for the normalised hash). */
  boc: string;
  reason: string;
}

/** Thrown for a request the chain refuses (bad message, wallet would reject): safe to show to users. */
export class ChainRejectedError extends Error {
  constructor(message: string, readonly code: string = 'rejected') {
    super(message);
    this.name = 'ChainRejectedError';
  }
}

export interface ChainSource {
  readonly network: Network;

  /** Starts producing or polling; idempotent. */
  start(): Promise<void>;
  /** Stops and releases resources; idempotent. */
  stop(): Promise<void>;
  /** The chain this source follows; known once start() has resolved. */
  identity(): ChainIdentity;

  /** Latest finalized masterchain block. */
  getMasterchainHead(): Promise<BlockHeader>;
  /**
   * Calls `listener` with the seqno of every new finalized masterchain head (possibly skipping
   * numbers: the follower fills gaps with getFinalizedBlock). Returns an unsubscribe function.
   */
  onMasterchainHead(listener: (seqno: number) => void): () => void;
  /**
   * The masterchain block `seqno` with the shard blocks it newly commits and all their
   * transactions; null when the block does not exist yet. Throws when it is no longer
   * available (pruned history), with a message saying so.
   */
  getFinalizedBlock(seqno: number): Promise<FinalizedBlock | null>;
  /** Oldest masterchain seqno this source can still serve. */
  getOldestAvailableSeqno(): Promise<number>;

  /** Account state at the latest finalized block (or at `mcSeqno` when the source keeps history). */
  getAccountState(address: AccountId, mcSeqno?: number): Promise<AccountState>;
  /**
   * Transactions of `address` walking back from the transaction (lt, hash) inclusive, newest
   * first, at most MAX_TRANSACTIONS_PER_CALL (and at most `limit`). Stops at the account's first
   * transaction. Like liteserver `getTransactions`, the caller continues from the last item's
   * (prevLt, prevHash).
   */
  getTransactions(address: AccountId, lt: bigint, hash: HashHex, limit?: number): Promise<SourcedTransaction[]>;
  /** Runs a get-method on the latest finalized state. Non-zero exit codes are returned, not thrown. */
  runGetMethod(address: AccountId, method: string | number, stack?: TupleItem[]): Promise<GetMethodResult>;

  /** Submits an external message (a Message BoC); returns its hash. Throws ChainRejectedError when refused. */
  sendExternalMessage(boc: Buffer): Promise<{ hash: HashHex }>;
  /** Emulates a message on a copy of current state; never changes state. */
  emulateMessage(boc: Buffer): Promise<EmulationResult>;
  /** Messages accepted into the mempool and not yet on chain. */
  getPendingMessages(): Promise<PendingMessage[]>;
  /** Calls `listener` once for every message entering the mempool. Returns an unsubscribe function. */
  onPendingMessage(listener: (message: PendingMessage) => void): () => void;

  /**
   * Calls `listener` with every shard block this source sees before the masterchain commits it
   * (docs/FINALITY.md). Absent on sources that see finalized blocks only. Returns an unsubscribe function.
   */
  onNonFinalBlock?(listener: (block: NonFinalBlock) => void): () => void;
  /** For sources that learn it from their servers: true when non-final blocks come, false when refused, null not known yet. */
  nonFinalSupported?(): boolean | null;
  /** Calls `listener` for every external message the source dropped without a transaction. */
  onMessageDropped?(listener: (message: DroppedMessage) => void): () => void;
}
