// Row types of the indexer's tables (migrations.ts); integers are bigint on both dialects.
export interface TrackedRow {
  asset: string;
  owner: string;
  contract: string;
  walk_lt: bigint | null;
  walk_hash: string | null;
  backfill_done: bigint;
  resync: bigint;
  /** 1 while a walk or a resync is pending (indexed: the backfill worker's queue). */
  pending: bigint;
  error: string | null;
  created_at: bigint;
  updated_at: bigint;
  /** The backfill worker walking it (claims.ts), and until when its claim holds (ms); null when unclaimed. */
  claimed_by: string | null;
  claim_until: bigint | null;
}

export interface TransactionRow {
  asset: string;
  owner: string;
  lt: bigint;
  hash: string;
  prev_lt: bigint;
  prev_hash: string;
  utime: bigint;
  mc_seqno: bigint;
  fee: string;
}

export interface TransferRow {
  asset: string;
  owner: string;
  lt: bigint;
  hash: string;
  idx: bigint;
  contract: string;
  direction: string;
  kind: string;
  status: string;
  sender: string | null;
  recipients: string;
  jetton: string | null;
  amount: string;
  comment: string | null;
  fee: string;
  utime: bigint;
  mc_seqno: bigint;
  reason: string | null;
  source: string | null;
}

export interface CheckpointRow {
  asset: string;
  owner: string;
  mc_seqno: bigint;
  last_lt: bigint;
  last_hash: string;
  balance: string;
  created_at: bigint;
}

export interface IndexerTables {
  indexer_tracked: TrackedRow;
  indexer_transactions: TransactionRow;
  indexer_transfers: TransferRow;
  indexer_checkpoints: CheckpointRow;
}
