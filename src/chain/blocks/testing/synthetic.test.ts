// The synthetic chain's blocks are real: the project's decoders read them back to exactly the transfers put
// in, their ids carry the cells' hashes, and a walk by prev_ref (the liteserver follower's algorithm,
// docs/BLOCKS.md) from every masterchain block back to the previous tops finds each shard block once,
// across splits, merges, gaps and key blocks.
import { beginCell, Cell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { decodeBlock, type DecodedBlock } from '../../decode/index.js';
import { loadBlock, storeBlock } from '../../tlb/block.js';
import { loadBlockInfo } from '../../tlb/block-info.js';
import { loadMcStateExtra } from '../../tlb/mc-state-extra.js';
import { loadShardAccounts, loadShardStateUnsplit, SPLIT_STATE_TAG } from '../../tlb/shard-state.js';
import type { BuiltBlock } from '../build.js';
import { childShards, parentShard } from '../shard.js';
import { SyntheticChain, type MasterchainStep } from './synthetic.js';

const hex = (b: Buffer) => b.toString('hex');

/** old_hash and new_hash of a MERKLE_UPDATE cell. */
function updateHashes(update: Cell): { from: string; to: string } {
  expect(update.isExotic).toBe(true);
  const s = update.beginParse(true);
  expect(s.loadUint(8)).toBe(4);
  return { from: hex(s.loadBuffer(32)), to: hex(s.loadBuffer(32)) };
}

/** A rotated config a key block carries: `Hashmap 32 ^Cell` with param 0 only (hml_same label of 32 zeros). */
const NEW_CONFIG = beginCell().storeUint(0b110, 3).storeUint(32, 6).storeRef(beginCell().storeBuffer(Buffer.alloc(32, 0x77))).endCell();

interface Expected {
  account: string;
  amount: bigint;
}

/** Drives a chain through two splits and two merges with gaps, several blocks per shard and key blocks. */
function drive(): { chain: SyntheticChain; steps: MasterchainStep[]; sent: Expected[] } {
  const chain = new SyntheticChain();
  const steps: MasterchainStep[] = [];
  const sent: Expected[] = [];
  let amount = 1_000n;
  const from = chain.addressIn('8000000000000000', 999);
  const pay = (shard: string, index: number) => {
    const to = chain.addressIn(shard, index);
    amount += 1n;
    expect(chain.transfer({ from, to, amount })).toBe(shard);
    sent.push({ account: to.toRawString(), amount });
  };
  const mc = (options = {}) => steps.push(chain.nextMasterchainBlock(options));

  pay('8000000000000000', 1);
  pay('8000000000000000', 2);
  mc();
  mc(); // a gap: no shard block
  chain.split('8000000000000000');
  pay('8000000000000000', 3);
  mc(); // commits the before_split block
  expect(chain.shardIds).toEqual(['4000000000000000', 'c000000000000000']);
  pay('4000000000000000', 1);
  pay('c000000000000000', 1);
  mc(); // the halves' first blocks (after_split)
  chain.split('c000000000000000');
  mc({ keyBlock: true }); // a key block; c000… makes its before_split block with nothing in it
  expect(chain.shardIds).toEqual(['4000000000000000', 'a000000000000000', 'e000000000000000']);
  pay('a000000000000000', 1);
  chain.shardBlock('a000000000000000'); // two blocks of one shard under one masterchain block
  pay('a000000000000000', 2);
  pay('e000000000000000', 1);
  mc();
  mc(); // gap
  chain.merge('a000000000000000');
  pay('e000000000000000', 2);
  mc(); // the siblings' last blocks
  expect(chain.shardIds).toEqual(['4000000000000000', 'c000000000000000']);
  pay('c000000000000000', 2);
  mc(); // the merged block (after_merge, two parents)
  chain.merge('4000000000000000');
  mc({ everyShard: true });
  expect(chain.shardIds).toEqual(['8000000000000000']);
  pay('8000000000000000', 4);
  mc();
  chain.setValidators(0x1234abcd, 7);
  mc({ keyBlock: true, config: NEW_CONFIG });
  return { chain, steps, sent };
}

describe('SyntheticChain', () => {
  const { chain, steps, sent } = drive();
  const shardBlocks = steps.flatMap((s) => s.shardBlocks);
  const byRoot = new Map<string, BuiltBlock>(shardBlocks.map((b) => [b.id.rootHash, b]));

  it('ids carry the real hashes: root = the BoC root cell hash, file = sha256 of the BoC; decodeBlock agrees', () => {
    for (const built of [...steps.map((s) => s.masterchain), ...shardBlocks]) {
      const root = Cell.fromBoc(built.boc)[0]!;
      expect(hex(root.hash())).toBe(built.id.rootHash);
      const decoded = decodeBlock(built.boc);
      expect(decoded.header).toMatchObject({ ...built.id, globalId: -217 });
      expect(hex(beginCell().store(storeBlock(loadBlock(root.beginParse()))).endCell().hash())).toBe(built.id.rootHash);
    }
  });

  it('the state update moves from the parent state to the new ShardStateUnsplit (merges: from split_state); value flows add up', () => {
    const states = new Map<string, Cell>();
    for (const b of shardBlocks) states.set(b.id.rootHash, b.state);
    for (const b of shardBlocks) {
      const { from, to } = updateHashes(Cell.fromBoc(b.boc)[0]!.refs[2]!);
      expect(to).toBe(hex(b.state.hash()));
      const prev = b.info.prevRef;
      if (prev.kind === 'prev_blks_info') {
        const split = beginCell().storeUint(SPLIT_STATE_TAG, 32).storeRef(states.get(hex(prev.prev1.rootHash))!).storeRef(states.get(hex(prev.prev2.rootHash))!).endCell();
        expect(from).toBe(hex(split.hash()));
      } else if (states.has(hex(prev.prev.rootHash))) {
        expect(from).toBe(hex(states.get(hex(prev.prev.rootHash))!.hash()));
      }
      const state = loadShardStateUnsplit(b.state.beginParse());
      expect(state.seqno).toBe(b.id.seqno);
      // Value flow: what came in from the parent state(s) plus this block's transfers is what the state holds.
      const credited = decodeBlock(b.boc).transactions.reduce((sum, t) => sum + t.inMessage!.value, 0n);
      expect(b.block.valueFlow.toNextBlk.coins - b.block.valueFlow.fromPrevBlk.coins).toBe(credited);
      expect(state.totalBalance.coins).toBe(b.block.valueFlow.toNextBlk.coins);
      for (const a of loadShardAccounts(state.accounts)) {
        expect(childShardsContain(b.id.shard, a.address)).toBe(true);
      }
    }
  });

  it('a walk by prev_ref from each masterchain block to the previous tops finds every shard block once, with the transfers in order', () => {
    // Root hashes the previous masterchain block lists; first, the basechain's zero state.
    const first = steps[0]!.shardBlocks[0]!.info.prevRef;
    let prevTops = new Set<string>([first.kind === 'prev_blk_info' ? hex(first.prev.rootHash) : '']);
    const walked: string[] = [];
    const received: Expected[] = [];
    let splits = 0;
    let merges = 0;
    let gaps = 0;
    for (const step of steps) {
      const mc = decodeBlock(step.masterchain.boc);
      const fresh = mc.shardBlocks!.filter((s) => s.regMcSeqno === mc.header.seqno);
      if (fresh.length === 0) gaps++;
      const emitted: DecodedBlock[] = [];
      const walk = (rootHash: string, shard: bigint): void => {
        if (prevTops.has(rootHash) || walked.includes(rootHash)) return;
        const built = byRoot.get(rootHash);
        expect(built, `block ${rootHash} is one the builder made`).toBeDefined();
        const block = decodeBlock(built!.boc);
        expect(BigInt(`0x${block.header.shard}`)).toBe(shard);
        const info = loadBlockInfo(built!.root.refs[0]!.beginParse());
        if (info.prevRef.kind === 'prev_blks_info') {
          merges++;
          const [left, right] = childShards(shard);
          expect(block.header.prev.map((p) => p.rootHash)).toEqual([hex(info.prevRef.prev1.rootHash), hex(info.prevRef.prev2.rootHash)]);
          walk(hex(info.prevRef.prev1.rootHash), left);
          walk(hex(info.prevRef.prev2.rootHash), right);
        } else {
          if (info.afterSplit) splits++;
          const parent = info.afterSplit ? parentShard(shard) : shard;
          const prev = byRoot.get(hex(info.prevRef.prev.rootHash));
          if (prev) expect(prev.id.fileHash).toBe(hex(info.prevRef.prev.fileHash));
          walk(hex(info.prevRef.prev.rootHash), parent);
        }
        walked.push(rootHash);
        emitted.push(block);
      };
      for (const top of fresh) walk(top.rootHash, BigInt(`0x${top.shard}`));
      for (const block of emitted) {
        for (const tx of block.transactions) received.push({ account: tx.account, amount: tx.inMessage!.value });
      }
      prevTops = new Set(mc.shardBlocks!.map((s) => s.rootHash));
    }
    expect(walked.sort()).toEqual(shardBlocks.map((b) => b.id.rootHash).sort());
    expect(received).toEqual(sent);
    expect(splits).toBeGreaterThanOrEqual(4); // two splits, two halves each
    expect(merges).toBeGreaterThanOrEqual(2);
    expect(gaps).toBeGreaterThanOrEqual(2);
  });

  it('masterchain blocks link by prev_ref; key blocks carry the config and later blocks name them', () => {
    for (let i = 1; i < steps.length; i++) {
      const info = steps[i]!.masterchain.info;
      expect(info.prevRef).toMatchObject({ kind: 'prev_blk_info', prev: { seqno: i, rootHash: steps[i - 1]!.masterchain.ref.rootHash, fileHash: steps[i - 1]!.masterchain.ref.fileHash } });
    }
    const keys = steps.filter((s) => s.masterchain.info.keyBlock);
    expect(keys.map((s) => s.masterchain.id.seqno)).toEqual([5, 12]);
    for (const k of keys) expect(k.masterchain.block.extra.custom!.config).not.toBeNull();
    expect(steps[6]!.masterchain.info.prevKeyBlockSeqno).toBe(5);
    const extra = loadMcStateExtra(loadShardStateUnsplit(steps[7]!.masterchain.state.beginParse()).custom!.beginParse());
    expect(extra.lastKeyBlock!.seqno).toBe(5);
  });

  it('a key block after setValidators names the new set and carries the new config; blocks are found by hash and seqno', () => {
    const last = steps[steps.length - 1]!.masterchain;
    const info = loadBlockInfo(last.root.refs[0]!.beginParse());
    expect([info.genValidatorListHashShort, info.genCatchainSeqno]).toEqual([0x1234abcd, 7]);
    expect(steps[0]!.masterchain.info.genCatchainSeqno).toBe(0);
    expect(last.block.extra.custom!.config!.config.hash().equals(NEW_CONFIG.hash())).toBe(true);
    const state = loadMcStateExtra(loadShardStateUnsplit(last.state.beginParse()).custom!.beginParse());
    expect(state.validatorInfo).toMatchObject({ validatorListHashShort: 0x1234abcd, catchainSeqno: 7 });
    expect(state.config.config.hash().equals(NEW_CONFIG.hash())).toBe(true);
    expect(chain.masterchainBlock(last.id.seqno)).toBe(last);
    for (const b of shardBlocks) expect(chain.block(b.id.rootHash)).toBe(b);
    expect(chain.zeroStates().basechain.ref.seqno).toBe(0);
  });

  it("send: the sender's transaction sends the very message the receiver is credited with, in a later block of another shard", () => {
    const chain = new SyntheticChain();
    chain.split('8000000000000000');
    chain.nextMasterchainBlock();
    // The receiver's shard comes first in a step: the credit waits for its next block.
    const merchant = chain.addressIn('c000000000000000', 1);
    const customer = chain.addressIn('4000000000000000', 1);
    chain.transfer({ from: customer, to: merchant, amount: 5_000n });
    chain.transfer({ from: merchant, to: customer, amount: 1n });
    chain.nextMasterchainBlock();
    const comment = beginCell().storeUint(0, 32).storeStringTail('refund 7').endCell();
    expect(chain.send({ from: merchant, to: customer, amount: 1_200n, body: comment })).toBe('c000000000000000');
    const sent = chain.nextMasterchainBlock();
    // The credit waits for the receiver shard's next block, here its last before a split.
    chain.split('4000000000000000');
    const credited = [chain.nextMasterchainBlock(), chain.nextMasterchainBlock()];
    const txs = (steps: MasterchainStep[]) => steps.flatMap((s) => s.shardBlocks.flatMap((b) => decodeBlock(b.boc).transactions));
    const [send] = txs([sent]).filter((t) => t.account === merchant.toRawString());
    expect(send).toMatchObject({ inMessage: { type: 'external-in' }, outMessages: [{ type: 'internal', source: merchant.toRawString(), destination: customer.toRawString(), value: 1_200n }] });
    expect(txs([sent]).filter((t) => t.account === customer.toRawString())).toEqual([]);
    const [credit] = txs(credited).filter((t) => t.account === customer.toRawString());
    expect(credit!.inMessage).toMatchObject({ hash: send!.outMessages[0]!.hash, value: 1_200n, decoded: { kind: 'text_comment', text: 'refund 7' } });
    expect(credit!.prevHash).not.toBe('00'.repeat(32)); // the customer's history links to its first transaction
    expect(() => {
      chain.send({ from: customer, to: merchant, amount: 10_000n });
      chain.nextMasterchainBlock();
    }).toThrow(/holds 1201, less than 10000/);
  });
});

function childShardsContain(shardHex: string, address: bigint): boolean {
  const shard = BigInt(`0x${shardHex}`);
  const low = shard & -shard;
  const bits = 64 - low.toString(2).length;
  return bits === 0 || address >> BigInt(256 - bits) === shard >> BigInt(64 - bits);
}
