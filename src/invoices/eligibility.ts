// A recipient wallet must be active on the chain and have sent at least one transaction
// (compat.md §5 onboarding). Checked on the chain source when an application is created or its
// recipient changes; the 400 says how to make the wallet eligible.
import type { AccountId } from '../chain/model.js';
import type { ChainSource } from '../chain/source.js';
import { toFriendly } from '../chain/address.js';
import { badRequest } from '../errors.js';

/** How far back the history walk looks for an outgoing transaction (16 per call). */
const MAX_HISTORY_CALLS = 8;

export async function checkRecipient(source: ChainSource, account: AccountId, field = 'recipient_address'): Promise<void> {
  const shown = toFriendly(account, { bounceable: false });
  const state = await source.getAccountState(account);
  if (state.status !== 'active') {
    throw badRequest(
      `${field}: the wallet ${shown} is ${state.status} on the chain; it must be an active wallet that has sent at least one ` +
        'transaction. Activate it by sending any amount (e.g. 0.01 TON) from it with your wallet app, then try again.',
      field,
    );
  }
  if (await hasOutgoing(source, account, state.lastTxLt, state.lastTxHash)) return;
  throw badRequest(
    `${field}: the wallet ${shown} has never sent a transaction; it must have at least one outgoing transaction. ` +
      'Send any amount (e.g. 0.01 TON) from it with your wallet app, then try again.',
    field,
  );
}

async function hasOutgoing(source: ChainSource, account: AccountId, lt: bigint, hash: string): Promise<boolean> {
  for (let call = 0; call < MAX_HISTORY_CALLS && lt > 0n; call++) {
    const txs = await source.getTransactions(account, lt, hash);
    if (txs.length === 0) break;
    // an outgoing transaction sent a message of its own (a bounce back to a sender does not count)
    if (txs.some((tx) => tx.outMessages.some((m) => m.type === 'internal' && !m.bounced))) return true;
    const last = txs[txs.length - 1]!;
    lt = last.prevLt;
    hash = last.prevHash;
  }
  // a long history of incoming payments may hide it: a wallet's seqno > 0 means it has sent
  const res = await source.runGetMethod(account, 'seqno').catch(() => null);
  const item = res?.stack[0];
  return res?.exitCode === 0 && item?.type === 'int' && item.value > 0n;
}
