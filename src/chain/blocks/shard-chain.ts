// A shard chain as a block producer keeps it (the devnet's ledger, the tests' SyntheticChain) — its top
// block, the accounts of its state, what is queued for its next block (of the producer's own kind `P`) —
// and the shard topology moves: the ShardDescr tree a masterchain block lists, and the
// chains that follow a split (two halves of one parent) or a merge (one parent of two siblings).
import type { Cell, CurrencyCollection } from '@ton/core';
import type { BlkPrevInfo } from '../tlb/block-info.js';
import { addCurrency, ZERO } from '../tlb/currency.js';
import { HashmapCache } from '../tlb/hashmap.js';
import type { ShardDescr, ShardTree } from '../tlb/shard-descr.js';
import { splitStateCell, type DepthBalance, type ShardAccountEntry } from '../tlb/shard-state.js';
import { childShards, parentShard, shardContains } from './shard.js';
import type { ChainTop } from './zero-state.js';

/** One shard chain (or the masterchain): its top and what its next block must say. */
export interface ShardChain<P = never> {
  workchain: number;
  shard: bigint;
  top: ChainTop;
  /** How the next block links back: its own top, a split parent, or two merged siblings. */
  prev: BlkPrevInfo;
  prevState: Cell;
  prevBalance: CurrencyCollection;
  nextSeqno: number;
  afterSplit: boolean;
  accounts: Map<bigint, ShardAccountEntry>;
  accountsCache: HashmapCache<DepthBalance>;
  pending: P[];
  split: boolean;
  merge: boolean;
  /** The next masterchain block must carry a new block of this chain (after a split or merge). */
  due: boolean;
}

/** The BinTree of ShardDescr for the chains at or under `shard`, as masterchain block `mcSeqno` lists them. */
export function shardTreeOf<P>(chains: ShardChain<P>[], shard: bigint, mcSeqno: number): ShardTree {
  const chain = chains.find((s) => s.shard === shard);
  if (chain) return { leaf: descr(chain, mcSeqno) };
  const [left, right] = childShards(shard);
  return { left: shardTreeOf(chains, left, mcSeqno), right: shardTreeOf(chains, right, mcSeqno) };
}

/** The chains after a masterchain block committed their before_split / before_merge blocks. */
export function splitAndMerge<P>(chains: ShardChain<P>[]): ShardChain<P>[] {
  const next: ShardChain<P>[] = [];
  const byShard = new Map(chains.map((c) => [c.shard, c]));
  for (const chain of chains) {
    if (chain.split) {
      for (const half of childShards(chain.shard)) {
        const accounts = new Map([...chain.accounts].filter(([address]) => shardContains(half, address)));
        const balance = [...accounts.values()].reduce((sum, a) => addCurrency(sum, a.balance), ZERO);
        next.push({ ...chainFrom<P>(chain.workchain, half, chain.top, accounts), prevBalance: balance, nextSeqno: chain.nextSeqno, afterSplit: true, due: true });
      }
      continue;
    }
    if (chain.merge) {
      const parent = parentShard(chain.shard);
      if (next.some((s) => s.shard === parent)) continue;
      const [left, right] = childShards(parent).map((id) => byShard.get(id)!);
      const merged = chainFrom<P>(chain.workchain, parent, left!.top, new Map([...left!.accounts, ...right!.accounts]));
      merged.prev = { kind: 'prev_blks_info', prev1: left!.top.ref, prev2: right!.top.ref };
      merged.prevState = splitStateCell(left!.top.state, right!.top.state);
      merged.prevBalance = addCurrency(left!.top.balance, right!.top.balance);
      merged.nextSeqno = Math.max(left!.top.ref.seqno, right!.top.ref.seqno) + 1;
      merged.due = true;
      next.push(merged);
      continue;
    }
    next.push(chain);
  }
  return next;
}

export function chainFrom<P = never>(workchain: number, shard: bigint, top: ChainTop, accounts: Map<bigint, ShardAccountEntry>): ShardChain<P> {
  return {
    workchain, shard, top, accounts,
    accountsCache: new HashmapCache(),
    prev: { kind: 'prev_blk_info', prev: top.ref },
    prevState: top.state,
    prevBalance: top.balance,
    nextSeqno: top.ref.seqno + 1,
    afterSplit: false,
    pending: [],
    split: false,
    merge: false,
    due: false,
  };
}

function descr<P>(chain: ShardChain<P>, mcSeqno: number): ShardDescr {
  const t = chain.top;
  return {
    format: 'new', seqno: t.ref.seqno, regMcSeqno: Math.min(t.regMcSeqno, mcSeqno), startLt: t.startLt, endLt: t.ref.endLt,
    rootHash: t.ref.rootHash, fileHash: t.ref.fileHash, beforeSplit: chain.split, beforeMerge: chain.merge,
    wantSplit: chain.split, wantMerge: chain.merge, nxCcUpdated: false, nextCatchainSeqno: 0, nextValidatorShard: chain.shard,
    minRefMcSeqno: t.minRefMcSeqno, genUtime: t.genUtime, splitMergeAt: { kind: 'none' }, feesCollected: ZERO, fundsCreated: ZERO,
  };
}
