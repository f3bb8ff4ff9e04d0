// ShardStateUnsplit and ShardAccounts (block.tlb): the state a block's state_update moves between.
//   shard_state#9023afe2 global_id:int32 shard_id:ShardIdent seq_no:uint32 vert_seq_no:# gen_utime:uint32
//     gen_lt:uint64 min_ref_mc_seqno:uint32 out_msg_queue_info:^OutMsgQueueInfo before_split:(## 1)
//     accounts:^ShardAccounts ^[ overload_history:uint64 underload_history:uint64
//     total_balance:CurrencyCollection total_validator_fees:CurrencyCollection libraries:(HashmapE 256 LibDescr)
//     master_ref:(Maybe BlkMasterInfo) ] custom:(Maybe ^McStateExtra) = ShardStateUnsplit
//   split_state#5f327da5 left:^ShardStateUnsplit right:^ShardStateUnsplit = ShardState
//   _ (HashmapAugE 256 ShardAccount DepthBalanceInfo) = ShardAccounts
//   depth_balance$_ split_depth:(#<= 30) balance:CurrencyCollection = DepthBalanceInfo
//   account_descr$_ account:^Account last_trans_hash:bits256 last_trans_lt:uint64 = ShardAccount
// Parts a state proof may prune (queue, accounts, libraries, McStateExtra) are kept as cells.
import {
  beginCell, loadAccount, loadShardIdent, storeCurrencyCollection, storeShardIdent,
  type Builder, type Cell, type CurrencyCollection, type ShardIdent, type Slice,
} from '@ton/core';
import { CellReader } from '../cell/core-reader.js';
import type { Reader } from '../cell/reader.js';
import { addCurrency, readCurrencyWithExtras, readRawCurrency, storeRawCurrency, ZERO, type RawCurrency } from './currency.js';
import { readExtBlkRef, storeExtBlkRef, type ExtBlkRef } from './ext-blk-ref.js';
import { readHashmapAugE, storeHashmapAugE, type HashmapCache, type HashmapCodec } from './hashmap.js';

export const SHARD_STATE_TAG = 0x9023afe2;
export const SPLIT_STATE_TAG = 0x5f327da5;

export interface ShardStateUnsplit {
  globalId: number;
  shard: ShardIdent;
  seqno: number;
  vertSeqno: number;
  genUtime: number;
  genLt: bigint;
  minRefMcSeqno: number;
  outMsgQueueInfo: Cell;
  beforeSplit: boolean;
  /** The ShardAccounts cell (see storeShardAccounts). */
  accounts: Cell;
  overloadHistory: bigint;
  underloadHistory: bigint;
  totalBalance: RawCurrency;
  totalValidatorFees: RawCurrency;
  /** `HashmapE 256 LibDescr` root, or null when empty. */
  libraries: Cell | null;
  masterRef: ExtBlkRef | null;
  /** The McStateExtra cell (masterchain only). */
  custom: Cell | null;
}

/** out_msg_queue_info with an empty queue, nothing processed and no pending IHR (three empty maps). */
export function emptyOutMsgQueueInfo(): Cell {
  return beginCell().storeUint(0, 3).endCell();
}

export function loadShardStateUnsplit(s: Slice): ShardStateUnsplit {
  const tag = s.loadUint(32);
  if (tag !== SHARD_STATE_TAG) throw new Error(`ShardStateUnsplit tag 0x${tag.toString(16)} is not 0x9023afe2`);
  const head = {
    globalId: s.loadInt(32), shard: loadShardIdent(s), seqno: s.loadUint(32), vertSeqno: s.loadUint(32),
    genUtime: s.loadUint(32), genLt: s.loadUintBig(64), minRefMcSeqno: s.loadUint(32),
    outMsgQueueInfo: s.loadRef(), beforeSplit: s.loadBit(), accounts: s.loadRef(),
  };
  const o = new CellReader(s.loadRef());
  const other = {
    overloadHistory: o.bigUint(64), underloadHistory: o.bigUint(64),
    totalBalance: readRawCurrency(o), totalValidatorFees: readRawCurrency(o),
    libraries: o.maybeRef(), masterRef: o.bool() ? readExtBlkRef(o) : null,
  };
  return { ...head, ...other, custom: s.loadBit() ? s.loadRef() : null };
}

export function storeShardStateUnsplit(src: ShardStateUnsplit): (b: Builder) => void {
  return (b) => {
    b.storeUint(SHARD_STATE_TAG, 32).storeInt(src.globalId, 32).store(storeShardIdent(src.shard));
    b.storeUint(src.seqno, 32).storeUint(src.vertSeqno, 32).storeUint(src.genUtime, 32).storeUint(src.genLt, 64);
    b.storeUint(src.minRefMcSeqno, 32).storeRef(src.outMsgQueueInfo).storeBit(src.beforeSplit).storeRef(src.accounts);
    const o = beginCell().storeUint(src.overloadHistory, 64).storeUint(src.underloadHistory, 64);
    o.store(storeRawCurrency(src.totalBalance)).store(storeRawCurrency(src.totalValidatorFees));
    if (src.libraries) o.storeBit(1).storeRef(src.libraries);
    else o.storeBit(0);
    if (src.masterRef) o.storeBit(1).store(storeExtBlkRef(src.masterRef));
    else o.storeBit(0);
    b.storeRef(o);
    if (src.custom) b.storeBit(1).storeRef(src.custom);
    else b.storeBit(0);
  };
}

/** `split_state`: the two halves' states under one root (the state after a merge's prev states). */
export function splitStateCell(left: Cell, right: Cell): Cell {
  return beginCell().storeUint(SPLIT_STATE_TAG, 32).storeRef(left).storeRef(right).endCell();
}

/** One entry of ShardAccounts. */
export interface ShardAccountEntry {
  /** The account's 256-bit address within its workchain. */
  address: bigint;
  /** The Account cell (`account_none$0` for an account that does not exist). */
  account: Cell;
  lastTransHash: Buffer;
  lastTransLt: bigint;
  splitDepth: number;
  /** The account's balance (the aug extra). */
  balance: CurrencyCollection;
}

export interface DepthBalance {
  splitDepth: number;
  balance: CurrencyCollection;
}

const depthBalance = {
  store: (d: DepthBalance, b: Builder) => void b.storeUint(d.splitDepth, 5).store(storeCurrencyCollection(d.balance)),
  // A fork's extra: depth 0 and the sum of the balances.
  sum: (l: DepthBalance, r: DepthBalance): DepthBalance => ({ splitDepth: 0, balance: addCurrency(l.balance, r.balance) }),
};

const shardAccountCodec: Required<HashmapCodec<ShardAccountEntry, DepthBalance>> = {
  storeValue: (a, b) => void b.storeRef(a.account).storeBuffer(a.lastTransHash, 32).storeUint(a.lastTransLt, 64),
  extra: depthBalance,
};

/**
 * The ShardAccounts cell for these accounts; returns it with the total balance. With a cache, subtrees of
 * unchanged entries (the same objects as in the last call) are reused.
 */
export function storeShardAccounts(entries: ShardAccountEntry[], cache?: HashmapCache<DepthBalance>): { cell: Cell; total: CurrencyCollection } {
  const b = beginCell();
  const extras = entries.map((a) => ({ key: a.address, value: a, extra: { splitDepth: a.splitDepth, balance: a.balance } }));
  const total = storeHashmapAugE(b, extras, 256, shardAccountCodec, { splitDepth: 0, balance: ZERO }, cache);
  return { cell: b.endCell(), total: total.balance };
}

/**
 * The entry of an account from its `ShardAccount` cell (what an emulator returns): the Account cell is kept
 * as it is, the balance read from it with @ton/core's loadAccount (the current Account layout, with
 * storage_extra; older mainnet accounts differ).
 */
/** account_descr$_ account:^Account last_trans_hash:bits256 last_trans_lt:uint64 = ShardAccount */
function readShardAccount(r: Reader<Cell>): { account: Cell; lastTransHash: Buffer; lastTransLt: bigint } {
  return { account: r.ref(), lastTransHash: Buffer.from(r.bytesOf(32)), lastTransLt: r.bigUint(64) };
}

export function shardAccountEntryOf(address: bigint, shardAccount: Cell): ShardAccountEntry {
  const { account, lastTransHash, lastTransLt } = readShardAccount(new CellReader(shardAccount));
  const a = account.beginParse();
  const balance = a.loadBit() ? loadAccount(a).storage.balance : ZERO; // account$1 … / account_none$0
  return { address, account, lastTransHash, lastTransLt, splitDepth: 0, balance };
}

export function loadShardAccounts(cell: Cell): ShardAccountEntry[] {
  const loaded = readHashmapAugE(
    new CellReader(cell),
    256,
    readShardAccount,
    (r): DepthBalance => ({ splitDepth: r.uint(5), balance: readCurrencyWithExtras(r) }),
  );
  return loaded.entries.map((e) => ({ address: e.key, ...e.value, ...e.extra! }));
}
