// A full Block (block.tlb) → header, committed shard blocks (masterchain), and every transaction.
// @ton/core reads no blocks; this is the minimal walk the follower and `tonwatch decode` need:
//   block#11ef55aa global_id:int32 info:^BlockInfo value_flow:^ValueFlow
//     state_update:^(MERKLE_UPDATE ShardState) extra:^BlockExtra
//   block_extra in_msg_descr:^InMsgDescr out_msg_descr:^OutMsgDescr account_blocks:^ShardAccountBlocks
//     rand_seed:bits256 created_by:bits256 custom:(Maybe ^McBlockExtra)
//   acc_trans#5 account_addr:bits256 transactions:(HashmapAug 64 ^Transaction CurrencyCollection)
//     state_update:^(HASH_UPDATE Account)
import { createHash } from 'node:crypto';
import { Cell } from '@ton/core';
import { CellRef } from '../cell/cell.js';
import { bocRoot } from '../cell/parse.js';
import type { Reader } from '../cell/reader.js';
import { toCore } from '../cell/core.js';
import type { BlockId, TransactionModel } from '../model.js';
import { readBlockInfo, type BlockHeaderInfo } from './block-info.js';
import { BLOCK_TAG } from '../tlb/block.js';
import { forEachLeaf, forEachLeafE } from '../tlb/hashmap.js';
import { readCurrencyCollection } from './message.js';
import { CellLayoutError, readerOf } from './reader.js';
import { readShardHashes, type ShardBlockRef } from './shard-hashes.js';
import { decodeTransaction } from './transaction.js';

export { BLOCK_TAG };
/** The constructor tag block.tlb gives `block_extra` (its scheme's CRC32, as tlbc computes it). */
export const BLOCK_EXTRA_TAG = 0x4a33f6fd;

/** The block's id and its BlockInfo fields (`masterRef`: a lower bound of the committing masterchain block). */
export interface DecodedBlockHeader extends BlockId, BlockHeaderInfo {
  globalId: number;
}

export interface DecodedBlock {
  header: DecodedBlockHeader;
  /** Masterchain blocks only: the shard blocks listed in shard_hashes (new ones have regMcSeqno = seqno). */
  shardBlocks?: ShardBlockRef[];
  /** Every transaction, ordered by (lt, account). */
  transactions: TransactionModel[];
}

export interface DecodeBlockOptions {
  /**
   * Masterchain seqno that committed this block, stamped on its transactions. Defaults to the block's own
   * seqno on the masterchain and to its master_ref seqno for a shard block.
   */
  mcSeqno?: number;
  /** File hash when a Cell (not the BoC bytes) is given; otherwise the sha256 of a fresh serialisation. */
  fileHash?: string;
}

/**
 * Decodes a Block BoC (or its root cell). BoC bytes are read by the cell layer into one arena and decoded
 * without converting a cell; an @ton/core root (from code that built or checked it) is read where it is.
 * Throws CellLayoutError naming the part that is not a block, BocError when the bytes are not a BoC.
 */
export function decodeBlock(boc: Buffer | Cell | CellRef, options: DecodeBlockOptions = {}): DecodedBlock {
  let root: Cell | CellRef;
  let fileHash: string;
  if (boc instanceof Cell || boc instanceof CellRef) {
    root = boc;
    // the file hash of the BoC @ton/core writes, as before the cell layer: a fresh serialisation's
    fileHash = options.fileHash ?? sha256((boc instanceof Cell ? boc : toCore(boc)).toBoc());
  } else {
    root = bocRoot(boc);
    fileHash = sha256(boc);
  }
  const r: Reader<Cell | CellRef> = readerOf(root);
  const tag = r.uint(32);
  if (tag !== BLOCK_TAG) throw new CellLayoutError(`not a block: tag 0x${tag.toString(16).padStart(8, '0')}`);
  const globalId = r.int(32);
  const info = readBlockInfo(r.refReader());
  r.ref(); // value_flow
  r.ref(); // state_update
  const extra = r.refReader();
  const extraTag = extra.uint(32);
  if (extraTag !== BLOCK_EXTRA_TAG) throw new CellLayoutError(`BlockExtra tag 0x${extraTag.toString(16)} is not 0x4a33f6fd`);
  extra.ref(); // in_msg_descr
  extra.ref(); // out_msg_descr
  const accountBlocks = extra.refReader();
  extra.skip(512); // rand_seed, created_by
  const mcExtra = extra.bool() ? extra.refReader() : null;

  const header: DecodedBlockHeader = { ...info, rootHash: r.cellHash(), fileHash, globalId };
  const mcSeqno = options.mcSeqno ?? (info.masterRef ? info.masterRef.seqno : info.seqno);
  const where = { block: { workchain: info.workchain, shard: info.shard, seqno: info.seqno }, mcSeqno };
  const transactions = transactionCellsAt(accountBlocks).map((cell) => decodeTransaction(cell, where));
  transactions.sort((a, b) => (a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
  const block: DecodedBlock = { header, transactions };
  if (info.workchain === -1) block.shardBlocks = mcExtra ? readShardHashes(mcExtra) : [];
  return block;
}

/** Transaction cells of `ShardAccountBlocks` = `HashmapAugE 256 AccountBlock CurrencyCollection`. */
export function readTransactionCells(accountBlocks: Cell): Cell[];
export function readTransactionCells(accountBlocks: CellRef): CellRef[];
export function readTransactionCells(accountBlocks: Cell | CellRef): (Cell | CellRef)[] {
  return transactionCellsAt<Cell | CellRef>(readerOf(accountBlocks));
}

function transactionCellsAt<C>(accountBlocks: Reader<C>): C[] {
  const cells: C[] = [];
  forEachLeafE(accountBlocks, 256, (leaf) => {
    readCurrencyCollection(leaf); // augmentation
    const tag = leaf.uint(4);
    if (tag !== 0x5) throw new CellLayoutError(`AccountBlock tag 0x${tag.toString(16)} is not 0x5`);
    leaf.skip(256);
    forEachLeaf(leaf, 64, (tx) => {
      readCurrencyCollection(tx); // augmentation
      cells.push(tx.ref());
    });
  });
  return cells;
}

function sha256(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
