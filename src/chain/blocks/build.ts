// One real block (masterchain or shard) from its transactions and the accounts after them: the Block cell
// with BlockInfo, ValueFlow, the Merkle update of its ShardStateUnsplit and BlockExtra (account blocks; for
// the masterchain McBlockExtra), the BoC, and the ids (root hash = the cell's hash, file hash = the BoC's).
import { createHash } from 'node:crypto';
import { beginCell, loadCurrencyCollection, type Cell, type CurrencyCollection } from '@ton/core';
import type { BlockId } from '../model.js';
import type { AccountBlock } from '../tlb/account-block.js';
import type { BlkPrevInfo, BlockInfo } from '../tlb/block-info.js';
import { emptyInMsgDescr, emptyOutMsgDescr, storeBlock, type Block } from '../tlb/block.js';
import { addCurrency, rawCurrency, ZERO } from '../tlb/currency.js';
import type { ExtBlkRef } from '../tlb/ext-blk-ref.js';
import type { McBlockExtra } from '../tlb/mc-block-extra.js';
import type { HashmapCache } from '../tlb/hashmap.js';
import { emptyOutMsgQueueInfo, storeShardAccounts, storeShardStateUnsplit, type DepthBalance, type ShardAccountEntry } from '../tlb/shard-state.js';
import { merkleUpdate } from './merkle-update.js';
import { shardHex, shardIdent } from './shard.js';

export const MASTERCHAIN = -1;

export interface BlockInput {
  globalId: number;
  workchain: number;
  /** Shard id as a u64 with its tag bit (FULL_SHARD for the masterchain). */
  shard: bigint;
  seqno: number;
  genUtime: number;
  startLt: bigint;
  endLt: bigint;
  /** One parent, or two (prev_blks_info) after a merge. */
  prev: BlkPrevInfo;
  afterSplit?: boolean;
  beforeSplit?: boolean;
  wantSplit?: boolean;
  wantMerge?: boolean;
  keyBlock?: boolean;
  /** The validator set that signs it: short hash of the list and catchain seqno (0 when unsigned). */
  genValidatorListHashShort?: number;
  genCatchainSeqno?: number;
  /** Shard blocks: the latest masterchain block the shard knows (also the state's master_ref). */
  masterRef: ExtBlkRef | null;
  minRefMcSeqno: number;
  prevKeyBlockSeqno: number;
  /** Transaction cells of this block, any order. */
  transactions: Cell[];
  /** Every account of the shard after this block (the state's ShardAccounts). */
  accounts: ShardAccountEntry[];
  /** Reuses the ShardAccounts cells of this chain's previous block for the accounts it did not change. */
  accountsCache?: HashmapCache<DepthBalance>;
  /** The state this block starts from: the parent's, or split_state(prev1, prev2) after a merge. */
  prevState: Cell;
  /** Total balance of the previous state (ValueFlow.from_prev_blk). */
  prevBalance: CurrencyCollection;
  /** Masterchain blocks only. */
  mcBlockExtra?: McBlockExtra;
  /** Masterchain blocks only: the McStateExtra cell of the new state. */
  mcStateExtra?: Cell;
}

export interface BuiltBlock {
  id: BlockId;
  root: Cell;
  boc: Buffer;
  /** The new ShardStateUnsplit root. */
  state: Cell;
  /** Total balance of the new state. */
  balance: CurrencyCollection;
  /** The reference children and masterchain blocks hold to this block. */
  ref: ExtBlkRef;
  info: BlockInfo;
  block: Block;
}

/** The ExtBlkRef of a built block or a zero state. */
export function extBlkRef(endLt: bigint, seqno: number, root: Cell, boc: Buffer): ExtBlkRef {
  return { endLt, seqno, rootHash: root.hash(), fileHash: sha256(boc) };
}

/**
 * What an AccountBlock needs of a Transaction cell, read without parsing its messages and phases:
 *   transaction$0111 account_addr:bits256 lt:uint64 prev_trans_hash:bits256 prev_trans_lt:uint64 now:uint32
 *     outmsg_cnt:uint15 orig_status:AccountStatus end_status:AccountStatus ^[ in_msg out_msgs ]
 *     total_fees:CurrencyCollection state_update:^(HASH_UPDATE Account) description:^TransactionDescr
 *   update_hashes#72 old_hash:bits256 new_hash:bits256 = HASH_UPDATE X
 */
function transactionSummary(cell: Cell): { address: bigint; lt: bigint; fees: CurrencyCollection; oldHash: Buffer; newHash: Buffer } {
  const s = cell.beginParse();
  if (s.loadUint(4) !== 0b0111) throw new Error('not a Transaction cell (tag 0111)');
  const address = s.loadUintBig(256);
  const lt = s.loadUintBig(64);
  s.skip(256 + 64 + 32 + 15 + 2 + 2);
  s.loadRef(); // in_msg and out_msgs
  const fees = loadCurrencyCollection(s);
  const update = s.loadRef().beginParse(true);
  if (update.loadUint(8) !== 0x72) throw new Error('transaction state_update is not a HASH_UPDATE (tag 72)');
  return { address, lt, fees, oldHash: update.loadBuffer(32), newHash: update.loadBuffer(32) };
}

/** AccountBlocks of these transactions: grouped by account, each with its transactions' fees and state hashes. */
export function accountBlocks(transactions: Cell[]): AccountBlock[] {
  const byAccount = new Map<bigint, { block: AccountBlock; first: bigint; last: bigint }>();
  for (const cell of transactions) {
    const tx = transactionSummary(cell);
    const entry = byAccount.get(tx.address);
    if (!entry) {
      const block = { address: tx.address, transactions: [{ lt: tx.lt, cell, fees: tx.fees }], stateUpdate: { oldHash: tx.oldHash, newHash: tx.newHash } };
      byAccount.set(tx.address, { block, first: tx.lt, last: tx.lt });
      continue;
    }
    entry.block.transactions.push({ lt: tx.lt, cell, fees: tx.fees });
    // the account's update runs from its first transaction's old state to its last one's new state
    if (tx.lt < entry.first) (entry.first = tx.lt), (entry.block.stateUpdate = { ...entry.block.stateUpdate, oldHash: tx.oldHash });
    if (tx.lt > entry.last) (entry.last = tx.lt), (entry.block.stateUpdate = { ...entry.block.stateUpdate, newHash: tx.newHash });
  }
  const blocks = [...byAccount.values()].map((e) => e.block);
  for (const block of blocks) block.transactions.sort((a, b) => (a.lt < b.lt ? -1 : 1));
  return blocks;
}

/** What the state a block leaves depends on: the block's header fields and the shard's accounts. */
export type StateInput = Pick<
  BlockInput,
  'globalId' | 'workchain' | 'shard' | 'seqno' | 'genUtime' | 'endLt' | 'minRefMcSeqno' | 'beforeSplit' | 'masterRef' | 'accounts' | 'accountsCache' | 'mcStateExtra'
>;

/** The ShardStateUnsplit a block leaves (the new side of its state_update), with its total balance. */
export function blockState(input: StateInput): { state: Cell; balance: CurrencyCollection } {
  const accounts = storeShardAccounts(input.accounts, input.accountsCache);
  const state = beginCell()
    .store(
      storeShardStateUnsplit({
        globalId: input.globalId,
        shard: shardIdent(input.workchain, input.shard),
        seqno: input.seqno,
        vertSeqno: 0,
        genUtime: input.genUtime,
        genLt: input.endLt,
        minRefMcSeqno: input.minRefMcSeqno,
        outMsgQueueInfo: emptyOutMsgQueueInfo(),
        beforeSplit: input.beforeSplit ?? false,
        accounts: accounts.cell,
        overloadHistory: 0n,
        underloadHistory: 0n,
        totalBalance: rawCurrency(accounts.total),
        totalValidatorFees: rawCurrency(ZERO),
        libraries: null,
        masterRef: input.masterRef,
        custom: input.mcStateExtra ?? null,
      }),
    )
    .endCell();
  return { state, balance: accounts.total };
}

export function buildBlock(input: BlockInput): BuiltBlock {
  const { state, balance } = blockState(input);
  const blocks = accountBlocks(input.transactions);
  const fees = blocks.flatMap((a) => a.transactions).reduce((sum, t) => addCurrency(sum, t.fees), ZERO);
  const info: BlockInfo = {
    version: 0,
    beforeSplit: input.beforeSplit ?? false,
    afterSplit: input.afterSplit ?? false,
    wantSplit: input.wantSplit ?? false,
    wantMerge: input.wantMerge ?? false,
    keyBlock: input.keyBlock ?? false,
    seqno: input.seqno,
    vertSeqno: 0,
    shard: shardIdent(input.workchain, input.shard),
    genUtime: input.genUtime,
    startLt: input.startLt,
    endLt: input.endLt,
    genValidatorListHashShort: input.genValidatorListHashShort ?? 0,
    genCatchainSeqno: input.genCatchainSeqno ?? 0,
    minRefMcSeqno: input.minRefMcSeqno,
    prevKeyBlockSeqno: input.prevKeyBlockSeqno,
    genSoftware: null,
    masterRef: input.masterRef,
    prevRef: input.prev,
    prevVertRef: null,
  };
  const seed = sha256(Buffer.from(`tonwatch-synthetic:${input.workchain}:${shardHex(input.shard)}:${input.seqno}`));
  const block: Block = {
    globalId: input.globalId,
    info,
    valueFlow: {
      fromPrevBlk: input.prevBalance,
      toNextBlk: balance,
      imported: ZERO,
      exported: ZERO,
      feesCollected: fees,
      burned: null,
      feesImported: ZERO,
      recovered: ZERO,
      created: ZERO,
      minted: ZERO,
    },
    stateUpdate: merkleUpdate(input.prevState, state),
    extra: {
      inMsgDescr: emptyInMsgDescr(),
      outMsgDescr: emptyOutMsgDescr(),
      accountBlocks: blocks,
      randSeed: seed,
      createdBy: Buffer.alloc(32),
      custom: input.mcBlockExtra ?? null,
    },
  };
  const root = beginCell().store(storeBlock(block)).endCell();
  const boc = root.toBoc({ idx: false, crc32: true });
  const ref = extBlkRef(input.endLt, input.seqno, root, boc);
  const id: BlockId = {
    workchain: input.workchain,
    shard: shardHex(input.shard),
    seqno: input.seqno,
    rootHash: ref.rootHash.toString('hex'),
    fileHash: ref.fileHash.toString('hex'),
  };
  return { id, root, boc, state, balance, ref, info, block };
}

function sha256(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}
