// The zero state a chain starts from: an empty ShardStateUnsplit at seqno 0, referred to as a block
// (root hash = the state's hash, file hash = its BoC's), as the node refers to a zero state.
import { createHash } from 'node:crypto';
import { beginCell, type Cell, type CurrencyCollection } from '@ton/core';
import { rawCurrency, ZERO } from '../tlb/currency.js';
import type { ExtBlkRef } from '../tlb/ext-blk-ref.js';
import { emptyOutMsgQueueInfo, storeShardAccounts, storeShardStateUnsplit, type ShardAccountEntry } from '../tlb/shard-state.js';
import { shardIdent } from './shard.js';

/** The newest block of a chain, as its children and the masterchain's ShardDescr need it. */
export interface ChainTop {
  ref: ExtBlkRef;
  state: Cell;
  balance: CurrencyCollection;
  startLt: bigint;
  genUtime: number;
  /** Masterchain seqno that commits (or committed) it. */
  regMcSeqno: number;
  minRefMcSeqno: number;
}

/** A chain's state at seqno 0: empty, or holding the accounts that exist from the start (the devnet's genesis). */
export function zeroState(
  globalId: number,
  workchain: number,
  shard: bigint,
  utime: number,
  mcStateExtra: Cell | null,
  accounts: ShardAccountEntry[] = [],
): ChainTop {
  const stored = storeShardAccounts(accounts);
  const state = beginCell()
    .store(
      storeShardStateUnsplit({
        globalId, shard: shardIdent(workchain, shard), seqno: 0, vertSeqno: 0, genUtime: utime, genLt: 0n, minRefMcSeqno: 0,
        outMsgQueueInfo: emptyOutMsgQueueInfo(), beforeSplit: false, accounts: stored.cell,
        overloadHistory: 0n, underloadHistory: 0n, totalBalance: rawCurrency(stored.total), totalValidatorFees: rawCurrency(ZERO),
        libraries: null, masterRef: null, custom: mcStateExtra,
      }),
    )
    .endCell();
  const fileHash = createHash('sha256').update(state.toBoc({ idx: false, crc32: true })).digest();
  return {
    ref: { endLt: 0n, seqno: 0, rootHash: state.hash(), fileHash },
    state, balance: stored.total, startLt: 0n, genUtime: utime, regMcSeqno: 0, minRefMcSeqno: 0,
  };
}
