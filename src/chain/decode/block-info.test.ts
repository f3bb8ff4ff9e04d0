import { describe, expect, it } from 'vitest';
import { blockInfoCell } from '../../../test/support/block-info.js';
import { readBlockInfo } from './block-info.js';

const ref = (seqno: number, byte: number) => ({ endLt: 1000n + BigInt(seqno), seqno, rootHash: byte.toString(16).padStart(2, '0').repeat(32), fileHash: (byte + 1).toString(16).padStart(2, '0').repeat(32) });

describe('readBlockInfo', () => {
  it('returns the split/merge flags, key_block and the validator fields a proof check needs', () => {
    const info = readBlockInfo(blockInfoCell({
      beforeSplit: true, keyBlock: true, seqno: 777, shardPfxBits: 2, shardPrefix: 0x4000000000000000n,
      genValidatorListHashShort: 0xdeadbeef, genCatchainSeqno: 123456, minRefMcSeqno: 770, prevKeyBlockSeqno: 700,
      masterRef: ref(90, 9), prev: [ref(776, 5)],
    }));
    expect(info).toMatchObject({
      workchain: 0, shard: '6000000000000000', seqno: 777, afterMerge: false, beforeSplit: true, afterSplit: false, keyBlock: true,
      genValidatorListHashShort: 0xdeadbeef, genCatchainSeqno: 123456, minRefMcSeqno: 770, prevKeyBlockSeqno: 700,
    });
    expect(info.masterRef).toMatchObject({ seqno: 90, rootHash: '09'.repeat(32) });
    expect(info.prev).toEqual([{ endLt: 1776n, seqno: 776, rootHash: '05'.repeat(32), fileHash: '06'.repeat(32) }]);
  });

  it('reads after_split, and both parents after a merge', () => {
    expect(readBlockInfo(blockInfoCell({ afterSplit: true, prev: [ref(1, 1)] }))).toMatchObject({ afterSplit: true, beforeSplit: false, afterMerge: false, keyBlock: false });
    const merged = readBlockInfo(blockInfoCell({ afterMerge: true, prev: [ref(775, 1), ref(776, 3)] }));
    expect(merged.afterMerge).toBe(true);
    expect(merged.prev.map((p) => p.seqno)).toEqual([775, 776]);
  });
});
