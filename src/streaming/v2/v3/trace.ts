// The `trace` notification's tree (API v3 TraceNode: tx_hash, in_msg_hash, children) and its map of
// transactions keyed by the base64 transaction hash (ton-index-go/index/models/traces.go).
import type { HashHex, TransactionModel } from '../../../chain/model.js';
import { v3Hash } from './encode.js';
import type { V3TraceNode, V3Transaction } from './types.js';

/**
 * Links a trace's transactions into its tree: a transaction is the child of the one that created its
 * inbound message, children in their parent's out-message order. The root is the transaction whose
 * inbound message no transaction of the set created (the external one); with several (an incomplete
 * set), the lowest-LT one.
 */
export function traceTree(txs: readonly TransactionModel[]): V3TraceNode | null {
  const byInMessage = new Map<HashHex, TransactionModel>();
  const created = new Set<HashHex>();
  for (const tx of txs) {
    if (tx.inMessage) byInMessage.set(tx.inMessage.hash, tx);
    for (const m of tx.outMessages) created.add(m.hash);
  }
  const roots = txs.filter((tx) => !tx.inMessage || !created.has(tx.inMessage.hash)).sort((a, b) => (a.lt < b.lt ? -1 : a.lt > b.lt ? 1 : 0));
  if (roots.length === 0) return null;
  const node = (tx: TransactionModel): V3TraceNode => {
    const n: V3TraceNode = { tx_hash: v3Hash(tx.hash) } as V3TraceNode;
    if (tx.inMessage) n.in_msg_hash = v3Hash(tx.inMessage.hash);
    n.children = [];
    for (const m of tx.outMessages) {
      const child = byInMessage.get(m.hash);
      if (child) n.children.push(node(child));
    }
    return n;
  };
  return node(roots[0]!);
}

/** The `transactions` map of the `trace` notification, keyed by base64 hash; keys sorted, as Go writes a map. */
export function transactionMap(v3: readonly V3Transaction[]): Record<string, V3Transaction> {
  const map: Record<string, V3Transaction> = {};
  for (const tx of [...v3].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0))) map[tx.hash] = tx;
  return map;
}
