// Block and BlockExtra (block.tlb):
//   block#11ef55aa global_id:int32 info:^BlockInfo value_flow:^ValueFlow
//     state_update:^(MERKLE_UPDATE ShardState) extra:^BlockExtra = Block
//   block_extra in_msg_descr:^InMsgDescr out_msg_descr:^OutMsgDescr account_blocks:^ShardAccountBlocks
//     rand_seed:bits256 created_by:bits256 custom:(Maybe ^McBlockExtra) = BlockExtra
// The message descriptions and the state update are kept as their cells (nothing reads inside them yet).
import { beginCell, storeCurrencyCollection, type Builder, type Cell, type Slice } from '@ton/core';
import { CellReader } from '../cell/core-reader.js';
import { loadShardAccountBlocks, storeShardAccountBlocks, type AccountBlock } from './account-block.js';
import { blockInfoOf, storeBlockInfo, type BlockInfo } from './block-info.js';
import { ZERO } from './currency.js';
import { loadMcBlockExtra, storeMcBlockExtra, type McBlockExtra } from './mc-block-extra.js';
import { loadValueFlow, storeValueFlow, type ValueFlow } from './value-flow.js';

export const BLOCK_TAG = 0x11ef55aa;
/** `block_extra`'s constructor tag (the CRC32 of its scheme, as tlbc computes it). */
export const BLOCK_EXTRA_TAG = 0x4a33f6fd;

export interface BlockExtra {
  inMsgDescr: Cell;
  outMsgDescr: Cell;
  accountBlocks: AccountBlock[];
  randSeed: Buffer;
  createdBy: Buffer;
  /** Masterchain blocks only. */
  custom: McBlockExtra | null;
}

export interface Block {
  globalId: number;
  info: BlockInfo;
  valueFlow: ValueFlow;
  /** The MERKLE_UPDATE cell from the previous state to this block's. */
  stateUpdate: Cell;
  extra: BlockExtra;
}

export function loadBlockExtra(s: Slice): BlockExtra {
  const tag = s.loadUint(32);
  if (tag !== BLOCK_EXTRA_TAG) throw new Error(`BlockExtra tag 0x${tag.toString(16)} is not 0x4a33f6fd`);
  const inMsgDescr = s.loadRef();
  const outMsgDescr = s.loadRef();
  const accountBlocks = loadShardAccountBlocks(new CellReader(s.loadRef()));
  const randSeed = s.loadBuffer(32);
  const createdBy = s.loadBuffer(32);
  const custom = s.loadBit() ? loadMcBlockExtra(s.loadRef().beginParse()) : null;
  return { inMsgDescr, outMsgDescr, accountBlocks, randSeed, createdBy, custom };
}

export function storeBlockExtra(src: BlockExtra): (b: Builder) => void {
  return (b) => {
    b.storeUint(BLOCK_EXTRA_TAG, 32).storeRef(src.inMsgDescr).storeRef(src.outMsgDescr);
    b.storeRef(beginCell().store(storeShardAccountBlocks(src.accountBlocks)));
    b.storeBuffer(src.randSeed, 32).storeBuffer(src.createdBy, 32);
    if (src.custom) b.storeBit(1).storeRef(beginCell().store(storeMcBlockExtra(src.custom)));
    else b.storeBit(0);
  };
}

export function loadBlock(s: Slice): Block {
  const tag = s.loadUint(32);
  if (tag !== BLOCK_TAG) throw new Error(`Block tag 0x${tag.toString(16)} is not 0x11ef55aa`);
  return {
    globalId: s.loadInt(32),
    info: blockInfoOf(s.loadRef()),
    valueFlow: loadValueFlow(s.loadRef().beginParse()),
    stateUpdate: s.loadRef(),
    extra: loadBlockExtra(s.loadRef().beginParse()),
  };
}

export function storeBlock(src: Block): (b: Builder) => void {
  return (b) => {
    b.storeUint(BLOCK_TAG, 32).storeInt(src.globalId, 32);
    b.storeRef(beginCell().store(storeBlockInfo(src.info)));
    b.storeRef(beginCell().store(storeValueFlow(src.valueFlow)));
    b.storeRef(src.stateUpdate);
    b.storeRef(beginCell().store(storeBlockExtra(src.extra)));
  };
}

// in_msg_descr / out_msg_descr when a block imports and exports nothing:
//   _ (HashmapAugE 256 InMsg ImportFees) = InMsgDescr; import_fees$_ fees_collected:Grams value_imported:CurrencyCollection
//   _ (HashmapAugE 256 OutMsg CurrencyCollection) = OutMsgDescr
export function emptyInMsgDescr(): Cell {
  return beginCell().storeBit(0).storeCoins(0n).store(storeCurrencyCollection(ZERO)).endCell();
}

export function emptyOutMsgDescr(): Cell {
  return beginCell().storeBit(0).store(storeCurrencyCollection(ZERO)).endCell();
}
