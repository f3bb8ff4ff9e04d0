// Everything a trace's notifications embed, built once per (trace, finality) event.
import type { AccountId, TransactionModel } from '../../../chain/model.js';
import { classifyActions } from './actions.js';
import type { ContractFacts } from './facts.js';
import { traceTree, transactionMap } from './trace.js';
import { v3Transactions, type TraceContext } from './transactions.js';
import type { V3Action, V3TraceNode, V3Transaction } from './types.js';

export interface TraceContent {
  /** The `transactions` notification's list: LT descending. */
  transactions: V3Transaction[];
  /** The `trace` notification's `trace` (null for an empty set). */
  trace: V3TraceNode | null;
  /** The `trace` notification's `transactions` map. */
  transactionMap: Record<string, V3Transaction>;
  /** Every action classified, LT descending; filter per client with `actionVisible`. */
  actions: V3Action[];
  /** Raw accounts the content mentions: what the address book and metadata cover. */
  addresses: AccountId[];
}

export function traceContent(txs: readonly TransactionModel[], ctx: TraceContext, facts: ContractFacts): TraceContent {
  const transactions = v3Transactions(txs, ctx);
  const actions = classifyActions(txs, ctx, facts);
  const addresses = new Set<AccountId>();
  for (const tx of txs) {
    addresses.add(tx.account);
    if (tx.inMessage?.source) addresses.add(tx.inMessage.source);
    for (const m of tx.outMessages) if (m.destination) addresses.add(m.destination);
  }
  for (const a of actions) for (const acc of a.accounts ?? []) addresses.add(acc.toLowerCase());
  return { transactions, trace: traceTree(txs), transactionMap: transactionMap(transactions), actions, addresses: [...addresses].sort() };
}

/** Accounts a `transactions` notification's address book covers for one transaction (its account, the in-message source, out-message destinations). */
export function transactionAddresses(tx: V3Transaction): string[] {
  const out = [tx.account];
  if (tx.in_msg?.source) out.push(tx.in_msg.source);
  for (const m of tx.out_msgs) if (m.destination) out.push(m.destination);
  return out;
}
