import { beginCell, type Builder } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { BLOCK_INFO_TAG, readBlockInfo } from './block-info.js';

const hash = (byte: number) => Buffer.alloc(32, byte);
const extRef = (b: Builder, seqno: number, byte: number) => b.storeUint(1000n + BigInt(seqno), 64).storeUint(seqno, 32).storeBuffer(hash(byte)).storeBuffer(hash(byte + 1));

/** A BlockInfo cell written field by field from block.tlb, flags chosen so each lands in its own bit. */
function blockInfo(f: { afterMerge: boolean; beforeSplit: boolean; afterSplit: boolean; keyBlock: boolean }) {
  const b = beginCell().storeUint(BLOCK_INFO_TAG, 32).storeUint(0, 32);
  b.storeBit(true).storeBit(f.afterMerge).storeBit(f.beforeSplit).storeBit(f.afterSplit);
  b.storeBit(!f.beforeSplit).storeBit(false).storeBit(f.keyBlock).storeBit(false).storeUint(0, 8);
  b.storeUint(777, 32).storeUint(0, 32); // seq_no, vert_seq_no
  b.storeUint(0, 2).storeUint(2, 6).storeInt(0, 32).storeUint(0x4000000000000000n, 64); // prefix 01, so shard 01 + tag bit
  b.storeUint(1_700_000_000, 32).storeUint(5000, 64).storeUint(5009, 64);
  b.storeUint(0xdeadbeef, 32).storeUint(123456, 32).storeUint(770, 32).storeUint(700, 32);
  b.storeRef(extRef(beginCell(), 90, 9).endCell()); // master_ref
  const prev = f.afterMerge
    ? beginCell().storeRef(extRef(beginCell(), 775, 1).endCell()).storeRef(extRef(beginCell(), 776, 3).endCell())
    : extRef(beginCell(), 776, 5);
  b.storeRef(prev.endCell());
  return b.endCell();
}

describe('readBlockInfo', () => {
  it('returns the split/merge flags, key_block and the validator fields a proof check needs', () => {
    const info = readBlockInfo(blockInfo({ afterMerge: false, beforeSplit: true, afterSplit: false, keyBlock: true }));
    expect(info).toMatchObject({
      workchain: 0, shard: '6000000000000000', seqno: 777, afterMerge: false, beforeSplit: true, afterSplit: false, keyBlock: true,
      genValidatorListHashShort: 0xdeadbeef, genCatchainSeqno: 123456, minRefMcSeqno: 770, prevKeyBlockSeqno: 700,
    });
    expect(info.masterRef).toMatchObject({ seqno: 90, rootHash: '09'.repeat(32) });
    expect(info.prev).toEqual([{ endLt: 1776n, seqno: 776, rootHash: '05'.repeat(32), fileHash: '06'.repeat(32) }]);
  });

  it('reads after_split, and both parents after a merge', () => {
    expect(readBlockInfo(blockInfo({ afterMerge: false, beforeSplit: false, afterSplit: true, keyBlock: false }))).toMatchObject({ afterSplit: true, beforeSplit: false, afterMerge: false, keyBlock: false });
    const merged = readBlockInfo(blockInfo({ afterMerge: true, beforeSplit: false, afterSplit: false, keyBlock: false }));
    expect(merged.afterMerge).toBe(true);
    expect(merged.prev.map((p) => p.seqno)).toEqual([775, 776]);
  });
});
