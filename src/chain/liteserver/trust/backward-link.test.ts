import { beginCell, Cell, convertToMerkleProof } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { prunedBranch, replaceAt } from '../../../../test/support/merkle.js';
import { bitsForMax } from '../../decode/reader.js';
import type { BlockIdExt } from '../tl/lite-types.js';
import { checkBackwardLink, type BackwardLink } from './backward-link.js';
import { proofFailure } from '../../../../test/support/proofs.js';

const MC_SHARD = -(1n << 63n);
const GLOBAL_ID = -217;


/** A masterchain Block whose header (BlockInfo) carries `seqno` and the key flag; other parts are stand-ins. */
function mcBlock(seqno: number, keyBlock: boolean, stateUpdate: Cell = beginCell().endCell()): Cell {
  const info = beginCell()
    .storeUint(0x9bc7a987, 32)
    .storeUint(0, 32)
    .storeBit(false).storeBit(false).storeBit(false).storeBit(false).storeBit(false).storeBit(false).storeBit(keyBlock).storeBit(false)
    .storeUint(0, 8)
    .storeUint(seqno, 32)
    .storeUint(0, 32)
    .storeUint(0, 2).storeUint(0, 6).storeInt(-1, 32).storeUint(0, 64)
    .storeUint(1_700_000_000 + seqno, 32).storeUint(BigInt(seqno) * 1_000_000n, 64).storeUint(BigInt(seqno) * 1_000_000n + 9n, 64)
    .storeUint(0, 32).storeUint(0, 32).storeUint(0, 32).storeUint(0, 32)
    .storeRef(beginCell().storeUint(0, 64 + 32 + 512).endCell())
    .endCell();
  return beginCell().storeUint(0x11ef55aa, 32).storeInt(GLOBAL_ID, 32).storeRef(info).storeRef(beginCell().endCell()).storeRef(stateUpdate).storeRef(beginCell().endCell()).endCell();
}

interface OldBlock {
  seqno: number;
  key: boolean;
  block: Cell;
}

/** `HashmapAug 32 KeyExtBlkRef KeyMaxLt` edge over `entries` (sorted by seqno), labels written as hml_long. */
function prevBlocksEdge(entries: OldBlock[], m: number, prefix: number): Cell {
  const keyOf = (e: OldBlock) => e.seqno & (m === 32 ? 0xffffffff : (1 << m) - 1);
  let l = 0;
  if (entries.length === 1) l = m;
  else while (entries.every((e) => ((keyOf(e) >>> (m - l - 1)) & 1) === ((keyOf(entries[0]!) >>> (m - l - 1)) & 1))) l++;
  const b = beginCell().storeBit(true).storeBit(false).storeUint(l, bitsForMax(m)).storeUint(l === 0 ? 0 : keyOf(entries[0]!) >>> (m - l), l);
  const extra = (b2: ReturnType<typeof beginCell>) => b2.storeBit(entries.some((e) => e.key)).storeUint(BigInt(Math.max(...entries.map((e) => e.seqno))) * 1_000_000n + 9n, 64);
  if (l === m) {
    const e = entries[0]!;
    extra(b);
    return b
      .storeBit(e.key)
      .storeUint(BigInt(e.seqno) * 1_000_000n + 9n, 64)
      .storeUint(e.seqno, 32)
      .storeBuffer(e.block.hash(0))
      .storeBuffer(Buffer.alloc(32, e.seqno & 0xff))
      .endCell();
  }
  const rest = m - l - 1;
  const bit = (e: OldBlock) => (keyOf(e) >>> rest) & 1;
  b.storeRef(prevBlocksEdge(entries.filter((e) => bit(e) === 0), rest, prefix));
  b.storeRef(prevBlocksEdge(entries.filter((e) => bit(e) === 1), rest, prefix));
  extra(b);
  return b.endCell();
}

/** A masterchain ShardStateUnsplit whose McStateExtra names `older` in prev_blocks. */
function mcState(seqno: number, older: OldBlock[]): Cell {
  const info = beginCell().storeUint(0, 16).storeUint(0, 32).storeUint(0, 32).storeBit(false);
  info.storeBit(true).storeRef(prevBlocksEdge(older, 32, 0)).storeBit(older.some((e) => e.key)).storeUint(0, 64);
  info.storeBit(false).storeBit(false);
  const extra = beginCell()
    .storeUint(0xcc26, 16)
    .storeBit(false)
    .storeBuffer(Buffer.alloc(32, 0x55))
    .storeRef(beginCell().storeBit(false).endCell())
    .storeRef(info.endCell())
    .storeCoins(0)
    .storeBit(false)
    .endCell();
  return beginCell()
    .storeUint(0x9023afe2, 32).storeInt(GLOBAL_ID, 32)
    .storeUint(0, 2).storeUint(0, 6).storeInt(-1, 32).storeUint(0, 64)
    .storeUint(seqno, 32).storeUint(0, 32).storeUint(1_700_000_000 + seqno, 32).storeUint(BigInt(seqno) * 1_000_000n, 64).storeUint(0, 32)
    .storeRef(beginCell().endCell()).storeBit(false).storeRef(beginCell().endCell()).storeRef(beginCell().endCell())
    .storeBit(true).storeRef(extra)
    .endCell();
}

function merkleUpdate(from: Cell, to: Cell): Cell {
  return beginCell()
    .storeUint(4, 8).storeBuffer(from.hash(0)).storeBuffer(to.hash(0)).storeUint(from.depth(0), 16).storeUint(to.depth(0), 16)
    .storeRef(prunedBranch(from)).storeRef(prunedBranch(to))
    .endCell({ exotic: true });
}

const idOf = (o: OldBlock): BlockIdExt => ({ workchain: -1, shard: MC_SHARD, seqno: o.seqno, rootHash: o.block.hash(0), fileHash: Buffer.alloc(32, o.seqno & 0xff) });
const boc = (c: Cell) => convertToMerkleProof(c).toBoc();

/** Masterchain blocks 1…5 (2 and 4 are key blocks) and block 6 whose state names them all. */
function chain() {
  const older: OldBlock[] = [1, 2, 3, 4, 5].map((s) => ({ seqno: s, key: s % 2 === 0, block: mcBlock(s, s % 2 === 0) }));
  const state = mcState(6, older);
  const from = mcBlock(6, false, merkleUpdate(mcState(5, older.slice(0, 4)), state));
  const fromId: BlockIdExt = { workchain: -1, shard: MC_SHARD, seqno: 6, rootHash: from.hash(0), fileHash: Buffer.alloc(32, 6) };
  const link = (to: OldBlock, toKeyBlock = to.key): BackwardLink => ({
    kind: 'back', toKeyBlock, from: fromId, to: idOf(to), destProof: boc(to.block), proof: boc(from), stateProof: boc(state),
  });
  return { older, state, from, link };
}

describe('backward link through prev_blocks of a proven masterchain state', () => {
  it('reaches an older key block and an older ordinary block', () => {
    const c = chain();
    expect(checkBackwardLink(c.link(c.older[1]!)).seqno).toBe(2);
    expect(checkBackwardLink(c.link(c.older[2]!)).seqno).toBe(3);
    expect(checkBackwardLink({ ...c.link(c.older[0]!), destProof: Buffer.alloc(0) }).seqno).toBe(1); // no header needed for a non-key target
  });

  it('a non-key block claimed as a key block is refused', () => {
    const c = chain();
    expect(proofFailure(() => checkBackwardLink(c.link(c.older[2]!, true)))).toMatchObject({ check: 'link.back.key_block', failure: 'mismatch' });
  });

  it('a target with another root hash, or one the state does not name, is refused', () => {
    const c = chain();
    const forged = { ...c.link(c.older[1]!), to: { ...idOf(c.older[1]!), rootHash: Buffer.alloc(32, 1) } };
    expect(proofFailure(() => checkBackwardLink(forged))).toMatchObject({ check: 'link.back.prev_blocks', failure: 'mismatch' });
    const stranger: OldBlock = { seqno: 0x10000, key: false, block: mcBlock(0x10000, false) };
    const late = { ...c.link(stranger), from: { ...c.link(stranger).from, seqno: 0x20000 } };
    expect(proofFailure(() => checkBackwardLink(late))).toMatchObject({ check: 'link.back.prev_blocks', failure: 'mismatch' });
  });

  it('a state proof that is not the source block\'s new state is refused', () => {
    const c = chain();
    const other = mcState(6, c.older.slice(0, 3));
    expect(proofFailure(() => checkBackwardLink({ ...c.link(c.older[1]!), stateProof: boc(other) }))).toMatchObject({ check: 'link.back.state_root', failure: 'mismatch' });
  });

  it('prev_blocks under a pruned branch is not proven', () => {
    const c = chain();
    // Prune the prev_blocks root of McStateExtra.info in the state proof.
    const pruned = replaceAt(c.state, [3, 1, 0], (old) => prunedBranch(old));
    const proof = convertToMerkleProof(pruned).toBoc();
    expect(proofFailure(() => checkBackwardLink({ ...c.link(c.older[1]!), stateProof: proof }))).toMatchObject({ failure: 'not-proven' });
  });

  it('a key-block target needs a header proof of a key block', () => {
    const c = chain();
    const notKeyHeader = { ...c.link(c.older[1]!), destProof: boc(c.older[2]!.block) };
    expect(proofFailure(() => checkBackwardLink(notKeyHeader))).toMatchObject({ check: 'link.dest.root_hash' });
  });

  it('a link that does not go backward in the masterchain is malformed', () => {
    const c = chain();
    const l = c.link(c.older[1]!);
    expect(proofFailure(() => checkBackwardLink({ ...l, to: { ...l.to, seqno: 7 } }))).toMatchObject({ check: 'link.blocks' });
  });
});
