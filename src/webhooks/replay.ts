// Replay: an account's transactions with lt ≥ from_lt, read back from the chain source (which
// reaches further than the event log's retention), oldest first.
import type { TransactionModel } from '../chain/model.js';
import { MAX_TRANSACTIONS_PER_CALL, type ChainSource } from '../chain/source.js';
import { badRequest } from '../errors.js';

/** Most transactions walked back to find `fromLt`, so one request cannot scan a whole history. */
export const MAX_REPLAY_WALK = 10_000;

export async function collectReplay(source: ChainSource, account: string, fromLt: bigint, limit: number): Promise<TransactionModel[]> {
  const state = await source.getAccountState(account);
  const found: TransactionModel[] = [];
  let lt = state.lastTxLt;
  let hash = state.lastTxHash;
  let walked = 0;
  while (lt > 0n && lt >= fromLt) {
    const page = await source.getTransactions(account, lt, hash, MAX_TRANSACTIONS_PER_CALL);
    if (page.length === 0) break;
    for (const tx of page) {
      if (tx.lt < fromLt) break;
      found.push(tx);
    }
    walked += page.length;
    if (walked > MAX_REPLAY_WALK) throw badRequest(`more than ${MAX_REPLAY_WALK} transactions since from_lt: choose a later from_lt`, 'from_lt');
    const last = page[page.length - 1]!;
    if (last.lt < fromLt || last.prevLt === 0n) break;
    lt = last.prevLt;
    hash = last.prevHash;
  }
  return found.reverse().slice(0, limit);
}
