// listBlockTransactions(Ext): a block's transactions in account order (then lt), paged by `after`, optionally
// reversed, with a proof of the block's account_blocks when asked (want_proof, mode bit 5).
import type { Cell } from '@ton/core';
import { readTransactionCells } from '../../decode/block.js';
import type { BlockTransactions, BlockTransactionsExt, ListBlockTransactionsRequest, TransactionId } from '../tl/lite-api.js';
import type { ArchivedBlock } from './archive.js';
import { tlBlockIdOf } from './block-id.js';
import { multiRootBoc, ProofBuilder } from './proof-builder.js';

/** Longest page a query gets, as the node caps it. */
export const MAX_BLOCK_TRANSACTIONS = 256;

const REVERSE = 64;
const WANT_PROOF = 32;
const AFTER = 128;

interface Listed {
  account: Buffer;
  lt: bigint;
  cell: Cell;
}

/** The page the request asks for, and whether more follow. */
function page(b: ArchivedBlock, req: ListBlockTransactionsRequest): { items: Listed[]; incomplete: boolean } {
  const all = readTransactionCells(b.root.refs[3]!.refs[2]!).map((cell) => {
    const s = cell.beginParse();
    s.skip(4); // transaction$0111
    return { account: s.loadBuffer(32), lt: s.loadUintBig(64), cell };
  });
  const order = (x: Listed, y: Listed) => Buffer.compare(x.account, y.account) || (x.lt < y.lt ? -1 : x.lt > y.lt ? 1 : 0);
  all.sort((x, y) => (req.mode & REVERSE ? order(y, x) : order(x, y)));
  let from = 0;
  if (req.mode & AFTER && req.after) {
    const after = { account: req.after.account, lt: req.after.lt, cell: all[0]?.cell as Cell };
    from = all.findIndex((t) => (req.mode & REVERSE ? order(after, t) : order(t, after)) > 0);
    if (from < 0) from = all.length;
  }
  const count = Math.min(req.count, MAX_BLOCK_TRANSACTIONS);
  return { items: all.slice(from, from + count), incomplete: all.length - from > count };
}

/** The block proof showing its account_blocks (with the transactions in them), when mode asks for it. */
function proofOf(b: ArchivedBlock, req: ListBlockTransactionsRequest, proofBoc: (roots: Cell[]) => Buffer): Buffer {
  if (!(req.mode & WANT_PROOF)) return Buffer.alloc(0);
  const extra = b.root.refs[3]!;
  return proofBoc([new ProofBuilder().show(extra).showWhole(extra.refs[2]!).proof(b.root)]);
}

export function blockTransactions(b: ArchivedBlock, req: ListBlockTransactionsRequest, proofBoc: (roots: Cell[]) => Buffer): BlockTransactions {
  const { items, incomplete } = page(b, req);
  // Each id carries what mode bits 0–2 ask: account, lt, hash.
  const mode = req.mode & 7;
  const ids: TransactionId[] = items.map((t) => ({
    mode,
    ...(mode & 1 ? { account: t.account } : {}),
    ...(mode & 2 ? { lt: t.lt } : {}),
    ...(mode & 4 ? { hash: t.cell.hash() } : {}),
  }));
  return { id: tlBlockIdOf(b), reqCount: req.count, incomplete, ids, proof: proofOf(b, req, proofBoc) };
}

export function blockTransactionsExt(b: ArchivedBlock, req: ListBlockTransactionsRequest, proofBoc: (roots: Cell[]) => Buffer): BlockTransactionsExt {
  const { items, incomplete } = page(b, req);
  const transactions = items.length === 0 ? Buffer.alloc(0) : multiRootBoc(items.map((t) => t.cell));
  return { id: tlBlockIdOf(b), reqCount: req.count, incomplete, transactions, proof: proofOf(b, req, proofBoc) };
}
