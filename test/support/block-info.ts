// A BlockInfo cell written field by field from block.tlb, for tests of header readers and prev_ref links.
import { beginCell, type Builder, type Cell } from '@ton/core';

export interface ParentRef {
  endLt: bigint;
  seqno: number;
  rootHash: string;
  fileHash: string;
}

export interface BlockInfoFields {
  afterMerge?: boolean;
  beforeSplit?: boolean;
  afterSplit?: boolean;
  keyBlock?: boolean;
  seqno?: number;
  /** Workchain 0 shard: prefix length and prefix bits (the shard id adds the tag bit). */
  shardPfxBits?: number;
  shardPrefix?: bigint;
  genValidatorListHashShort?: number;
  genCatchainSeqno?: number;
  minRefMcSeqno?: number;
  prevKeyBlockSeqno?: number;
  masterRef?: ParentRef;
  prev: ParentRef[];
}

const storeExtRef = (b: Builder, p: ParentRef) =>
  b.storeUint(p.endLt, 64).storeUint(p.seqno, 32).storeBuffer(Buffer.from(p.rootHash, 'hex')).storeBuffer(Buffer.from(p.fileHash, 'hex'));

export function blockInfoCell(f: BlockInfoFields): Cell {
  const b = beginCell().storeUint(0x9bc7a987, 32).storeUint(0, 32);
  b.storeBit(true).storeBit(f.afterMerge ?? false).storeBit(f.beforeSplit ?? false).storeBit(f.afterSplit ?? false);
  b.storeBit(false).storeBit(false).storeBit(f.keyBlock ?? false).storeBit(false).storeUint(0, 8);
  b.storeUint(f.seqno ?? 1, 32).storeUint(0, 32);
  b.storeUint(0, 2).storeUint(f.shardPfxBits ?? 0, 6).storeInt(0, 32).storeUint(f.shardPrefix ?? 0n, 64);
  b.storeUint(1_700_000_000, 32).storeUint(5000, 64).storeUint(5009, 64);
  b.storeUint(f.genValidatorListHashShort ?? 0, 32).storeUint(f.genCatchainSeqno ?? 0, 32);
  b.storeUint(f.minRefMcSeqno ?? 0, 32).storeUint(f.prevKeyBlockSeqno ?? 0, 32);
  const zero = { endLt: 0n, seqno: 0, rootHash: '00'.repeat(32), fileHash: '00'.repeat(32) };
  b.storeRef(storeExtRef(beginCell(), f.masterRef ?? zero).endCell());
  const prev = f.afterMerge
    ? beginCell().storeRef(storeExtRef(beginCell(), f.prev[0]!).endCell()).storeRef(storeExtRef(beginCell(), f.prev[1]!).endCell())
    : storeExtRef(beginCell(), f.prev[0]!);
  b.storeRef(prev.endCell());
  return b.endCell();
}
