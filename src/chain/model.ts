// The one model of the TON chain that every tonwatch component consumes.
// Plain data only: no classes, no cells. Values that can exceed 2^53 (coins, lt) are bigint;
// hashes are 64 lowercase hex; accounts are raw `<wc>:<64 hex>`. Events carry these objects
// through the bus, serialised with v8 structured clone (which keeps bigint exact).

/** Raw account id, `<workchain>:<64 lowercase hex>`, e.g. `0:83df…`. */
export type AccountId = string;
/** 64 lowercase hex characters (a 256-bit hash). */
export type HashHex = string;

export type AccountStatus = 'nonexist' | 'uninit' | 'active' | 'frozen';

export interface BlockId {
  workchain: number;
  /** Shard id as 16 lowercase hex digits of the u64, e.g. `8000000000000000`. */
  shard: string;
  seqno: number;
  rootHash: HashHex;
  fileHash: HashHex;
}

export interface BlockHeader extends BlockId {
  genUtime: number;
  startLt: bigint;
  endLt: bigint;
  /** Seqno of the masterchain block that committed this block (its own seqno for a masterchain block). */
  mcSeqno: number;
}

/** Where a forward payload (jetton) or body carried its human-readable content. */
export interface PayloadContent {
  /** Plain text comment (op 0), decoded as UTF-8 with invalid sequences replaced. */
  comment?: string;
  /** Encrypted comment (op 0x2167da4b), exposed as hex of the bytes after the opcode; never decrypted. */
  encryptedComment?: string;
  /** Invoice id from the `invoice_payload#7aa23eb5` layout, as a lowercase UUID string. */
  invoiceId?: string;
  /** Opcode of a binary payload that is neither a comment nor an invoice payload. */
  opcode?: number;
}

/** A forward payload of a jetton message, with where it was found. */
export interface ForwardPayload extends PayloadContent {
  /** `inline` (Either bit 0), `ref` (bit 1), or `none` for an empty payload. */
  layout: 'none' | 'inline' | 'ref';
  /** Base64 BoC of the payload cell when it is not empty. */
  boc?: string;
  /** Set when the payload could not be read as declared (e.g. bit 1 with no ref); the rest is best effort. */
  malformed?: string;
}

/** What a message body means. `unknown` is only for bodies we could not parse: it always says why. */
export type DecodedBody =
  | { kind: 'empty' }
  | { kind: 'text_comment'; text: string }
  | { kind: 'encrypted_comment'; data: string }
  | { kind: 'invoice_payload'; invoiceId: string; url: string | null }
  | {
      kind: 'jetton_transfer';
      queryId: bigint;
      amount: bigint;
      destination: AccountId | null;
      responseDestination: AccountId | null;
      forwardTonAmount: bigint;
      forwardPayload: ForwardPayload;
    }
  | {
      kind: 'jetton_internal_transfer';
      queryId: bigint;
      amount: bigint;
      /** Owner who sent the jetton transfer (the `from` field). */
      from: AccountId | null;
      responseAddress: AccountId | null;
      forwardTonAmount: bigint;
      forwardPayload: ForwardPayload;
    }
  | {
      kind: 'jetton_notify';
      queryId: bigint;
      amount: bigint;
      /** Owner who sent the jetton transfer. */
      sender: AccountId | null;
      forwardPayload: ForwardPayload;
    }
  | { kind: 'excess'; queryId: bigint }
  | { kind: 'jetton_burn'; queryId: bigint; amount: bigint; responseDestination: AccountId | null }
  | { kind: 'bounced'; originalOpcode: number | null }
  /** A well-formed body with an opcode we have no decoder for. */
  | { kind: 'binary'; opcode: number }
  | { kind: 'unknown'; reason: string };

export type MessageType = 'internal' | 'external-in' | 'external-out';

export interface MessageModel {
  /** Hash of the Message cell (trace links use it). */
  hash: HashHex;
  type: MessageType;
  /** Raw source; null for external-in. */
  source: AccountId | null;
  /** Raw destination; null for external-out. */
  destination: AccountId | null;
  /** Coins carried (0n for external messages). */
  value: bigint;
  fwdFee: bigint;
  bounce: boolean;
  bounced: boolean;
  createdLt: bigint;
  createdAt: number;
  /** First 32 bits of the body, or null when the body is shorter. */
  opcode: number | null;
  /** Base64 BoC of the body cell. */
  bodyBoc: string;
  /**
   * Representation hash of that body cell, when the producer held it hashed (a body in a reference: the
   * decoder hashes it with the message); absent for inline bodies. Saves consumers re-hashing `bodyBoc`.
   */
  bodyHash?: HashHex;
  /** The message carries a StateInit (a deploy). */
  hasInit: boolean;
  decoded: DecodedBody;
}

export type ComputePhase =
  | { type: 'skipped'; reason: 'no-state' | 'bad-state' | 'no-gas' | 'suspended' }
  | { type: 'vm'; success: boolean; exitCode: number; gasUsed: bigint; vmSteps: number };

export interface ActionPhase {
  success: boolean;
  valid: boolean;
  noFunds: boolean;
  resultCode: number;
  totalActions: number;
  messagesCreated: number;
}

export type BouncePhase =
  | { type: 'negative-funds' }
  | { type: 'no-funds'; requiredForwardFees: bigint }
  | { type: 'ok'; forwardFees: bigint };

/**
 * What happened to the value of the inbound internal message (compat.md §7):
 * `credited` — the account kept it; `bounced` — a bounce message returned it; `failed` — processing
 * failed and nothing bounced (value may have stayed, but the intent did not happen); `none` — no
 * inbound internal message (external message, tick-tock, no message). Internal messages always get
 * one of the first three, whatever their value.
 */
export type InboundOutcome = 'credited' | 'bounced' | 'failed' | 'none';

export interface TransactionModel {
  account: AccountId;
  lt: bigint;
  hash: HashHex;
  utime: number;
  prevLt: bigint;
  prevHash: HashHex;
  origStatus: AccountStatus;
  endStatus: AccountStatus;
  /** Transaction description kind; only `generic` ones carry user messages. */
  kind: 'generic' | 'tick-tock' | 'storage' | 'split-merge' | 'other';
  inMessage: MessageModel | null;
  outMessages: MessageModel[];
  computePhase: ComputePhase | null;
  actionPhase: ActionPhase | null;
  bouncePhase: BouncePhase | null;
  /** Credit phase amount, when there was one. */
  creditAmount: bigint | null;
  totalFees: bigint;
  aborted: boolean;
  destroyed: boolean;
  inbound: InboundOutcome;
  /** Block that holds the transaction. */
  block: { workchain: number; shard: string; seqno: number };
  /** Masterchain seqno that finalised it (equal to block.seqno on the masterchain). */
  mcSeqno: number;
  /**
   * Base64 BoC of the Transaction cell. Chain sources always fill it; event-log events leave it
   * out (no consumer needs it and it is ~40% of an event's size) — fetch it with getTransactions.
   */
  boc?: string;
}

/** A transaction as chain sources return it: with its raw BoC. */
export type SourcedTransaction = TransactionModel & { boc: string };

export const hasBoc = (tx: TransactionModel): tx is SourcedTransaction => typeof tx.boc === 'string';

/** A finished trace: every transaction caused by one root message, all messages consumed. */
export interface TraceModel {
  /** Hash of the root transaction. */
  hash: HashHex;
  /** Every account that had a transaction in the trace, sorted. */
  accounts: AccountId[];
  /** Transaction hashes in execution order. */
  transactions: HashHex[];
  /** Masterchain seqno of the first and of the completing block. */
  startMcSeqno: number;
  endMcSeqno: number;
  /**
   * Opcodes of the inbound messages of its transactions, sorted: what the `operations` filter
   * matches, recorded when the trace completes so every reader decides alike (absent on events
   * logged before it was recorded: they match no operation).
   */
  opcodes?: number[];
}

/** Links between a message and the transactions that created and consumed it. */
export interface TraceLink {
  messageHash: HashHex;
  createdBy: HashHex | null;
  consumedBy: HashHex | null;
}

/** A submitted external message that is not on chain yet. */
export interface PendingMessage {
  /** Hash of the Message cell. */
  hash: HashHex;
  /** Standard base64 (with padding) BoC of the whole Message cell. */
  boc: string;
  destination: AccountId;
  receivedAt: number;
  /** Accounts the emulated trace touches, sorted; null when the source cannot emulate. */
  involvedAccounts: AccountId[] | null;
  /**
   * Opcodes of the message's own body and of every message of its emulated trace, sorted, recorded
   * where it was admitted (the `operations` filter); absent when the source cannot emulate.
   */
  opcodes?: number[];
  /**
   * The emulated trace's transactions in execution order (not on chain), handed to in-process listeners
   * (the finality tracker); absent when the source did not emulate. Never stored: the event log keeps the
   * message without them.
   */
  emulated?: { transactions: TransactionModel[]; truncated: boolean };
  /** 'overlay' when heard on TON's gossip network (src/chain/overlay/); absent: the source's own mempool or send. */
  origin?: 'overlay';
}

/** Everything a masterchain block finalises, in the order consumers see it. */
export interface FinalizedBlock {
  masterchain: BlockHeader;
  /** Shard blocks newly committed by this masterchain block, in seqno order. */
  shards: BlockHeader[];
  /**
   * Transactions of the masterchain block and of the new shard blocks, ordered by
   * (block order: masterchain first, then shards as listed; then lt; then account).
   */
  transactions: SourcedTransaction[];
}

export interface AccountState {
  address: AccountId;
  status: AccountStatus;
  balance: bigint;
  lastTxLt: bigint;
  lastTxHash: HashHex;
  /** Base64 BoCs of code and data when active. */
  code: string | null;
  data: string | null;
  /** Masterchain seqno the state is taken at. */
  mcSeqno: number;
}

/**
 * An account's state with its code and data by hash: all a block's state update proves of an account
 * whose code or data that block did not change (those cells are pruned there).
 */
export interface AccountStateHashes {
  address: AccountId;
  status: AccountStatus;
  balance: bigint;
  lastTxLt: bigint;
  lastTxHash: HashHex;
  /** Hex hashes of the code and data cells when active. */
  codeHash: HashHex | null;
  dataHash: HashHex | null;
}
