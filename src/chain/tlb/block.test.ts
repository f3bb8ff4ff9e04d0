// Round trips on real mainnet blocks (test/fixtures/mainnet, see its README): load → store → the same cell
// hash, for the whole block and for each sub-structure the storers write.
import { readFileSync } from 'node:fs';
import { beginCell, Cell, type Builder } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { readTransactionCells } from '../decode/index.js';
import { loadShardAccountBlocks, storeShardAccountBlocks } from './account-block.js';
import { loadBlockInfo, storeBlockInfo } from './block-info.js';
import { loadBlock, loadBlockExtra, storeBlock, storeBlockExtra } from './block.js';
import { loadMcBlockExtra, storeMcBlockExtra } from './mc-block-extra.js';
import { loadShardTree, storeShardTree } from './shard-descr.js';
import { loadValueFlow, storeValueFlow } from './value-flow.js';

const dir = new URL('../../../test/fixtures/mainnet/blocks/', import.meta.url);
const FILES = ['tongo-block-4.boc', 'tongo-block-5.boc', 'tongo-block-6.boc', 'tongo-block-7.boc', 'block_0_8000000000000000_34703989.boc'];
const rootOf = (file: string) => Cell.fromBoc(readFileSync(new URL(file, dir)))[0]!;
const rebuilt = (store: (b: Builder) => void) => beginCell().store(store).endCell();
const hex = (c: Cell) => c.hash().toString('hex');

describe('TL-B storers round-trip real blocks', () => {
  for (const file of FILES) {
    it(`${file}: Block and every sub-structure`, () => {
      const root = rootOf(file);
      const [info, valueFlow, , extra] = root.refs as [Cell, Cell, Cell, Cell];
      expect(hex(rebuilt(storeBlockInfo(loadBlockInfo(info.beginParse()))))).toBe(hex(info));
      expect(hex(rebuilt(storeValueFlow(loadValueFlow(valueFlow.beginParse()))))).toBe(hex(valueFlow));
      const accountBlocks = extra.refs[2]!;
      const accounts = loadShardAccountBlocks(accountBlocks.beginParse());
      expect(accounts.flatMap((a) => a.transactions.map((t) => hex(t.cell)))).toEqual(readTransactionCells(accountBlocks).map(hex));
      expect(hex(rebuilt(storeShardAccountBlocks(accounts)))).toBe(hex(accountBlocks));
      expect(hex(rebuilt(storeBlockExtra(loadBlockExtra(extra.beginParse()))))).toBe(hex(extra));
      expect(hex(rebuilt(storeBlock(loadBlock(root.beginParse()))))).toBe(hex(root));
    });
  }

  it('value_flow_v2 (burned), which the fixtures lack: store → load → store keeps the cell', () => {
    const flow = loadValueFlow(rootOf('tongo-block-6.boc').refs[1]!.beginParse());
    expect(flow.burned).toBeNull();
    const v2 = rebuilt(storeValueFlow({ ...flow, burned: { coins: 12345n } }));
    expect(v2.beginParse().loadUint(32)).toBe(0x3ebf98b7);
    const back = loadValueFlow(v2.beginParse());
    expect(back.burned).toEqual({ coins: 12345n });
    expect(hex(rebuilt(storeValueFlow(back)))).toBe(hex(v2));
  });

  it('the ShardDescr of basechain block 36908135 (shard_descr_wc0.boc, a BinTree leaf)', () => {
    const cell = Cell.fromBoc(readFileSync(new URL('../proofs/shard_descr_wc0.boc', dir)))[0]!;
    const tree = loadShardTree(cell.beginParse());
    expect('leaf' in tree && tree.leaf.seqno).toBe(36908135);
    expect('leaf' in tree && tree.leaf.format).toBe('new');
    expect(hex(rebuilt(storeShardTree(tree)))).toBe(hex(cell));
  });

  it('tongo-block-5 (masterchain): McBlockExtra and each shard tree', () => {
    const extra = rootOf('tongo-block-5.boc').refs[3]!;
    const mc = extra.refs[3]!;
    const loaded = loadMcBlockExtra(mc.beginParse());
    expect(loaded.shardHashes.size).toBe(1);
    expect(hex(rebuilt(storeMcBlockExtra(loaded)))).toBe(hex(mc));
    const wc0 = mc.refs[0]!.refs[0]!; // ShardHashes root → ^(BinTree ShardDescr)
    expect(hex(rebuilt(storeShardTree(loadShardTree(wc0.beginParse()))))).toBe(hex(wc0));
  });
});
