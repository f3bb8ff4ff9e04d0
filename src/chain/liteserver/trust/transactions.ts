// Check (d): transactions. Inclusion in a block by BlockExtra.account_blocks → acc_trans → the transaction
// at its lt, and an account's history by the hash chain from a proven last_trans_hash: each transaction's
// hash is the previous one's prev_trans_hash.
import { Cell } from '@ton/core';
import { BLOCK_EXTRA_TAG } from '../../decode/block.js';
import { readCurrencyCollection } from '../../decode/message.js';
import { type BlockRef } from './block-ref.js';
import { provenBlockRoot } from './blocks.js';
import { expectHash, ProofError, proofRead } from './errors.js';
import { cellHash, hashHex, lookupHashmapAt, lookupHashmapE, proofRoots, provenReader, provenValue, type HashLike } from './merkle.js';

const TRANSACTION_TAG = 0b0111;
const ACC_TRANS_TAG = 0x5;

/** The head of a transaction: `transaction$0111 account_addr lt prev_trans_hash prev_trans_lt …`. */
export interface ProvenTransaction {
  hash: string;
  account: string;
  lt: bigint;
  prevHash: string;
  prevLt: bigint;
  cell: Cell;
}

function readTransactionHead(cell: Cell, check: string): ProvenTransaction {
  const r = provenReader(cell, check);
  return proofRead(check, () => {
    const tag = r.uint(4);
    if (tag !== TRANSACTION_TAG) throw new ProofError(check, 'malformed', `tag ${tag.toString(2)} is not a Transaction`);
    return { hash: cellHash(cell), account: r.hex(256), lt: r.bigUint(64), prevHash: r.hex(256), prevLt: r.bigUint(64), cell };
  });
}

/**
 * An account's transactions, newest first (a `getTransactions` reply's BoC or its roots), proven by the
 * hash chain from `from` (the proven last_trans_hash/lt, or the prev of the last page). Every one must be
 * the account's; a missing or foreign transaction breaks the chain at its index.
 */
export function checkTransactionHistory(transactions: Buffer | Cell[], from: { hash: HashLike; lt: bigint }, account: HashLike, check = 'history'): ProvenTransaction[] {
  const cells = Array.isArray(transactions) ? transactions : transactions.length === 0 ? [] : proofRoots(transactions, check);
  const owner = hashHex(account);
  let hash = hashHex(from.hash);
  let lt = from.lt;
  return cells.map((cell, i) => {
    const at = `${check}[${i}]`;
    if (lt === 0n) throw new ProofError(`${check}.prev_trans_hash`, 'mismatch', `${at}: the account's history ended before this transaction`);
    expectHash(`${check}.prev_trans_hash`, cellHash(cell), hash, `${at} hash`);
    const tx = readTransactionHead(cell, at);
    if (tx.account !== owner) throw new ProofError(`${check}.account`, 'mismatch', `${at} is of account ${tx.account}`);
    if (tx.lt !== lt) throw new ProofError(`${check}.lt`, 'mismatch', `${at} has lt ${tx.lt}, the chain says ${lt}`);
    hash = tx.prevHash;
    lt = tx.prevLt;
    return tx;
  });
}

/**
 * (d) A transaction's inclusion in block `block` through a block proof: ShardAccountBlocks → the account's
 * AccountBlock → its transaction at `lt`, whose hash must be `txHash`. Returns the (maybe pruned) cell.
 */
export function checkTransactionInBlock(blockProof: Buffer | Cell, block: BlockRef, account: HashLike, lt: bigint, txHash: HashLike, check = 'transaction'): Cell {
  const root = provenBlockRoot(blockProof, block, `${check}.block`);
  const id = hashHex(account);
  const extraCell = root.refs[3];
  if (!extraCell) throw new ProofError(`${check}.account_blocks`, 'malformed', 'Block has no extra');
  const extra = provenReader(extraCell, `${check}.account_blocks`);
  const tag = proofRead(`${check}.account_blocks`, () => extra.uint(32));
  if (tag !== BLOCK_EXTRA_TAG) throw new ProofError(`${check}.account_blocks`, 'malformed', `BlockExtra tag 0x${tag.toString(16)}`);
  const accountBlocks = extraCell.refs[2]; // in_msg_descr, out_msg_descr, account_blocks
  if (!accountBlocks) throw new ProofError(`${check}.account_blocks`, 'malformed', 'BlockExtra has no account_blocks');
  // ShardAccountBlocks = HashmapAugE 256 AccountBlock CurrencyCollection
  const leaf = provenValue(lookupHashmapE(provenReader(accountBlocks, `${check}.account_blocks`), 256, BigInt(`0x${id}`), `${check}.account_blocks`), `${check}.account_blocks`, `account ${id}`);
  if (!leaf) throw new ProofError(`${check}.account_blocks`, 'mismatch', `the block has no transaction of account ${id}`);
  // acc_trans#5 account_addr:bits256 transactions:(HashmapAug 64 ^Transaction CurrencyCollection) state_update:^…
  proofRead(`${check}.account_block`, () => {
    readCurrencyCollection(leaf);
    const tag = leaf.uint(4);
    if (tag !== ACC_TRANS_TAG) throw new ProofError(`${check}.account_block`, 'malformed', `AccountBlock tag 0x${tag.toString(16)} is not 0x5`);
    const addr = leaf.hex(256);
    if (addr !== id) throw new ProofError(`${check}.account_block`, 'mismatch', `the AccountBlock at ${id} is of ${addr}`);
  });
  const found = provenValue(lookupHashmapAt(leaf, 64, lt, `${check}.acc_trans`), `${check}.acc_trans`, `transaction at lt ${lt}`);
  if (!found) throw new ProofError(`${check}.acc_trans`, 'mismatch', `account ${id} has no transaction at lt ${lt} in this block`);
  const tx = proofRead(`${check}.acc_trans`, () => {
    readCurrencyCollection(found);
    return found.ref();
  });
  expectHash(`${check}.hash`, cellHash(tx), hashHex(txHash), 'transaction hash');
  return tx;
}
