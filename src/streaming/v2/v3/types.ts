// The JSON objects Streaming v2 notifications embed, as toncenter/ton-indexer's API v3 models define
// them (ton-index-go/index/models: blockchain.go, traces.go, actions.go, types.go, jetton.go). Field
// order is the Go struct order, which is the order encoding/json writes; docs/STREAMING.md, "v2
// notification objects", lists the facts with their sources.

/** Finality of a trace-based notification (docs.ton.org, Streaming API overview, "Finality model"). */
export type Finality = 'pending' | 'confirmed' | 'finalized';

/** API v3 `AccountAddress`: raw form with an upper-case hex part, `0:83DF…`. */
export type V3Address = string;
/** API v3 `HashType`: standard base64 with padding of the 32 bytes. */
export type V3Hash = string;

export interface V3BlockRef {
  workchain: number;
  /** Shard as upper-case hex of the signed 64-bit id, e.g. `8000000000000000`. */
  shard: string;
  seqno: number;
}

export interface V3MessageContent {
  hash: V3Hash | null;
  body: string | null;
  decoded: Record<string, unknown> | null;
}

export interface V3Message {
  hash: V3Hash;
  source: V3Address | null;
  destination: V3Address | null;
  value: string | null;
  value_extra_currencies: Record<string, string>;
  fwd_fee: string | null;
  ihr_fee: string | null;
  extra_flags: string | null;
  created_lt: string | null;
  created_at: string | null;
  opcode: string | null;
  decoded_opcode: string | null;
  ihr_disabled: boolean | null;
  bounce: boolean | null;
  bounced: boolean | null;
  import_fee: string | null;
  message_content: V3MessageContent | null;
  init_state: V3MessageContent | null;
  /** Only on external-in messages (TEP-467). */
  hash_norm?: V3Hash;
}

export interface V3AccountState {
  hash: V3Hash;
  balance: string | null;
  extra_currencies: Record<string, string> | null;
  account_status: string | null;
  frozen_hash: V3Hash | null;
  data_hash: V3Hash | null;
  code_hash: V3Hash | null;
  data_boc?: string;
  code_boc?: string;
}

/** Phases of `description`; absent keys are Go's `omitempty`. */
export type V3Phase = Record<string, unknown>;

export interface V3Description {
  type: string;
  aborted?: boolean;
  destroyed?: boolean;
  credit_first?: boolean;
  is_tock?: boolean;
  installed?: boolean;
  storage_ph?: V3Phase;
  credit_ph?: V3Phase;
  compute_ph?: V3Phase;
  action?: V3Phase;
  bounce?: V3Phase;
  split_info?: V3Phase;
}

export interface V3Transaction {
  account: V3Address;
  hash: V3Hash;
  lt: string;
  now: number;
  mc_block_seqno: number;
  trace_id?: V3Hash;
  trace_external_hash?: V3Hash;
  prev_trans_hash: V3Hash;
  prev_trans_lt: string;
  orig_status: string;
  end_status: string;
  total_fees: string;
  total_fees_extra_currencies: Record<string, string>;
  description: V3Description;
  block_ref: V3BlockRef;
  in_msg: V3Message | null;
  out_msgs: V3Message[];
  account_state_before: V3AccountState | null;
  account_state_after: V3AccountState | null;
  emulated: boolean;
  finality: Finality;
}

/** The `trace` notification's tree node (TraceNode): hashes only, transactions are in the map. */
export interface V3TraceNode {
  tx_hash: V3Hash;
  in_msg_hash?: V3Hash;
  children: V3TraceNode[];
}

export interface V3Action {
  trace_id: V3Hash | null;
  action_id: V3Hash;
  start_lt: string;
  end_lt: string;
  start_utime: number;
  end_utime: number;
  trace_end_lt: string;
  trace_end_utime: number;
  trace_mc_seqno_end: number;
  transactions: V3Hash[];
  success: boolean | null;
  type: ClassifiedActionType;
  details: Record<string, unknown>;
  trace_external_hash?: V3Hash;
  trace_external_hash_norm?: V3Hash;
  accounts?: V3Address[];
  finality: Finality;
}

/** The action types tonwatch classifies (docs/STREAMING.md lists the others, never emitted). */
export type ClassifiedActionType =
  | 'ton_transfer'
  | 'jetton_transfer'
  | 'jetton_mint'
  | 'jetton_burn'
  | 'nft_transfer'
  | 'nft_mint'
  | 'contract_deploy'
  | 'call_contract';

export interface V3AddressBookRow {
  user_friendly: string | null;
  domain: string | null;
  interfaces: string[] | null;
}
/** Keyed by the raw V3Address. */
export type V3AddressBook = Record<V3Address, V3AddressBookRow>;

export interface V3TokenInfo {
  valid?: boolean;
  type?: 'jetton_masters' | 'jetton_wallets' | 'nft_items' | 'nft_collections';
  name?: string;
  symbol?: string;
  description?: string;
  image?: string;
  nft_index?: string;
  extra?: Record<string, unknown>;
}
export interface V3AddressMetadata {
  is_indexed: boolean;
  token_info: V3TokenInfo[];
}
export type V3Metadata = Record<V3Address, V3AddressMetadata>;

/** `jettons_change`'s `jetton` (JettonWallet). */
export interface V3JettonWallet {
  address: V3Address;
  balance: string;
  owner: V3Address;
  jetton: V3Address;
  last_transaction_lt: string;
  code_hash: V3Hash | null;
  data_hash: V3Hash | null;
}
