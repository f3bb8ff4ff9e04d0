// The shard blocks a masterchain block (and its state) commits (block.tlb):
//   shard_descr#b / shard_descr_new#a seq_no:uint32 reg_mc_seqno:uint32 start_lt:uint64 end_lt:uint64
//     root_hash:bits256 file_hash:bits256 before_split:Bool before_merge:Bool want_split:Bool want_merge:Bool
//     nx_cc_updated:Bool flags:(## 3) { flags = 0 } next_catchain_seqno:uint32 next_validator_shard:uint64
//     min_ref_mc_seqno:uint32 gen_utime:uint32 split_merge_at:FutureSplitMerge
//     fees_collected:CurrencyCollection funds_created:CurrencyCollection   (#b: inline; #a: in one ^[ ])
//   fsm_none$0 | fsm_split$10 split_utime:uint32 interval:uint32 | fsm_merge$11 merge_utime:uint32 interval:uint32
//   bt_leaf$0 leaf:X | bt_fork$1 left:^(BinTree X) right:^(BinTree X) = BinTree X
//   _ (HashmapE 32 ^(BinTree ShardDescr)) = ShardHashes
// Read over `Reader` (arena cells or @ton/core cells); the fields before the fees alone where a proof prunes them.
import { beginCell, storeCurrencyCollection, type Builder, type Cell, type CurrencyCollection, type Slice } from '@ton/core';
import { CellReader, readerOf } from '../cell/core-reader.js';
import { CellLayoutError } from '../cell/errors.js';
import type { Reader } from '../cell/reader.js';
import { readCurrencyWithExtras } from './currency.js';
import { forEachKeyedLeaf, storeHashmapE } from './hashmap.js';

export type FutureSplitMerge = { kind: 'none' } | { kind: 'split' | 'merge'; utime: number; interval: number };

export interface ShardDescr {
  /** `new` is shard_descr_new#a (fees in a child cell), `old` is shard_descr#b. */
  format: 'old' | 'new';
  seqno: number;
  regMcSeqno: number;
  startLt: bigint;
  endLt: bigint;
  rootHash: Buffer;
  fileHash: Buffer;
  beforeSplit: boolean;
  beforeMerge: boolean;
  wantSplit: boolean;
  wantMerge: boolean;
  nxCcUpdated: boolean;
  nextCatchainSeqno: number;
  nextValidatorShard: bigint;
  minRefMcSeqno: number;
  genUtime: number;
  splitMergeAt: FutureSplitMerge;
  feesCollected: CurrencyCollection;
  fundsCreated: CurrencyCollection;
}

/** A ShardDescr without its fees: what the chain's checks read, and readable in a proof whose fee cell is pruned. */
export type ShardDescrHead = Omit<ShardDescr, 'feesCollected' | 'fundsCreated'>;

/** Everything up to the fees (`split_merge_at` included); the reader is left at them. */
export function loadShardDescrHead(r: Reader): ShardDescrHead {
  const tag = r.uint(4);
  if (tag !== 0xa && tag !== 0xb) throw new CellLayoutError(`ShardDescr tag 0x${tag.toString(16)} is not 0xa or 0xb`);
  const head = {
    format: tag === 0xa ? ('new' as const) : ('old' as const),
    seqno: r.uint(32), regMcSeqno: r.uint(32), startLt: r.bigUint(64), endLt: r.bigUint(64),
    rootHash: Buffer.from(r.bytesOf(32)), fileHash: Buffer.from(r.bytesOf(32)),
    beforeSplit: r.bool(), beforeMerge: r.bool(), wantSplit: r.bool(), wantMerge: r.bool(), nxCcUpdated: r.bool(),
  };
  const flags = r.uint(3);
  if (flags !== 0) throw new CellLayoutError(`ShardDescr flags ${flags} are not 0`);
  return {
    ...head, nextCatchainSeqno: r.uint(32), nextValidatorShard: r.bigUint(64), minRefMcSeqno: r.uint(32), genUtime: r.uint(32),
    splitMergeAt: loadFutureSplitMerge(r),
  };
}

export function loadShardDescr(r: Reader): ShardDescr {
  const head = loadShardDescrHead(r);
  const fees = head.format === 'new' ? r.refReader() : r;
  return { ...head, feesCollected: readCurrencyWithExtras(fees), fundsCreated: readCurrencyWithExtras(fees) };
}

export function storeShardDescr(src: ShardDescr): (b: Builder) => void {
  return (b) => {
    b.storeUint(src.format === 'new' ? 0xa : 0xb, 4).storeUint(src.seqno, 32).storeUint(src.regMcSeqno, 32);
    b.storeUint(src.startLt, 64).storeUint(src.endLt, 64).storeBuffer(src.rootHash, 32).storeBuffer(src.fileHash, 32);
    b.storeBit(src.beforeSplit).storeBit(src.beforeMerge).storeBit(src.wantSplit).storeBit(src.wantMerge).storeBit(src.nxCcUpdated);
    b.storeUint(0, 3).storeUint(src.nextCatchainSeqno, 32).storeUint(src.nextValidatorShard, 64);
    b.storeUint(src.minRefMcSeqno, 32).storeUint(src.genUtime, 32).store(storeFutureSplitMerge(src.splitMergeAt));
    const fees = (f: Builder) => f.store(storeCurrencyCollection(src.feesCollected)).store(storeCurrencyCollection(src.fundsCreated));
    if (src.format === 'new') b.storeRef(fees(beginCell()));
    else fees(b);
  };
}

function loadFutureSplitMerge(r: Reader): FutureSplitMerge {
  if (!r.bool()) return { kind: 'none' };
  const kind = r.bool() ? 'merge' : 'split';
  return { kind, utime: r.uint(32), interval: r.uint(32) };
}

function storeFutureSplitMerge(src: FutureSplitMerge): (b: Builder) => void {
  return (b) => {
    if (src.kind === 'none') b.storeBit(0);
    else b.storeBit(1).storeBit(src.kind === 'merge').storeUint(src.utime, 32).storeUint(src.interval, 32);
  };
}

/** `BinTree ShardDescr`: a leaf, or a fork into the shard's two halves (left = lower). */
export type ShardTree<D = ShardDescr> = { leaf: D } | { left: ShardTree<D>; right: ShardTree<D> };

/** A shard tree, its leaves read by `leaf` (loadShardDescrHead where fees may be pruned); an @ton/core Slice is read as the cell it spans. */
export function loadShardTree(from: Reader | Slice): ShardTree;
export function loadShardTree<D>(from: Reader | Slice, leaf: (r: Reader) => D): ShardTree<D>;
export function loadShardTree<D>(from: Reader | Slice, leaf?: (r: Reader) => D): ShardTree<D | ShardDescr> {
  const load = leaf ?? loadShardDescr;
  const walk = (r: Reader, depth: number): ShardTree<D | ShardDescr> => {
    if (!r.bool()) return { leaf: load(r) };
    if (depth === 60) throw new CellLayoutError('shard tree deeper than 60 levels');
    return { left: walk(r.refReader(), depth + 1), right: walk(r.refReader(), depth + 1) };
  };
  return walk('loadUint' in from ? readerOf(from.asCell()) : from, 0);
}

export function storeShardTree(src: ShardTree): (b: Builder) => void {
  return (b) => {
    if ('leaf' in src) b.storeBit(0).store(storeShardDescr(src.leaf));
    else b.storeBit(1).storeRef(beginCell().store(storeShardTree(src.left))).storeRef(beginCell().store(storeShardTree(src.right)));
  };
}

/** ShardHashes: each workchain's shard tree. */
export type ShardHashes = Map<number, ShardTree>;

/** ShardHashes from its root cell (null when empty). */
export function loadShardHashes(root: Cell | null): ShardHashes {
  const out: ShardHashes = new Map();
  if (root) forEachKeyedLeaf(new CellReader(root), 32, (wc, v) => out.set(Number(BigInt.asIntN(32, wc)), loadShardTree(v.refReader())));
  return out;
}

export function storeShardHashes(src: ShardHashes): (b: Builder) => void {
  return (b) => {
    const entries = [...src].map(([wc, tree]) => ({ key: BigInt.asUintN(32, BigInt(wc)), value: tree }));
    storeHashmapE(b, entries, 32, (tree, vb) => void vb.storeRef(beginCell().store(storeShardTree(tree))));
  };
}

/** Leaves of a shard tree with their shard ids (u64, the tag bit included), left to right. */
export function shardTreeLeaves<D = ShardDescr>(tree: ShardTree<D>, shard = 1n << 63n): { shard: bigint; descr: D }[] {
  if ('leaf' in tree) return [{ shard, descr: tree.leaf }];
  const half = (shard & -shard) >> 1n;
  return [...shardTreeLeaves(tree.left, shard - half), ...shardTreeLeaves(tree.right, shard + half)];
}
