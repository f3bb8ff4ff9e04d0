// Notifications shared between connections: a group's `transactions` notification depends only on which
// of its transactions a subscription matches, so it is built once per distinct subset (most groups touch
// one account, and every subscriber of that account gets the same text) and handed to each recipient.
import type { AccountId, TransactionModel } from '../../chain/model.js';
import type { FinalizedGroup } from './notices.js';

/** Per group: the notification text by the subset of its transactions (their indices; '' = all of them). */
const bySubset = new WeakMap<FinalizedGroup, Map<string, string>>();

/**
 * The group's notification for a subscription to `addresses` (null when none of its transactions match);
 * `build` makes it from the matching transactions (in log order), once per group and subset.
 */
export function sharedForAddresses(g: FinalizedGroup, addresses: ReadonlySet<AccountId>, build: (g: FinalizedGroup, txs: TransactionModel[]) => string): string | null {
  const key = subsetKey(g, addresses);
  if (key === null) return null;
  let texts = bySubset.get(g);
  if (!texts) bySubset.set(g, (texts = new Map()));
  let text = texts.get(key);
  if (text === undefined) {
    const txs = key === '' ? g.txs : g.txs.filter((tx) => addresses.has(tx.account));
    texts.set(key, (text = build(g, txs)));
  }
  return text;
}

/** '' when every transaction of the group matches, the matching indices otherwise, null when none does. */
function subsetKey(g: FinalizedGroup, addresses: ReadonlySet<AccountId>): string | null {
  let all = true;
  let any = false;
  for (const a of g.accounts) {
    if (addresses.has(a)) any = true;
    else all = false;
  }
  if (!any) return null;
  if (all) return '';
  let key = '';
  g.txs.forEach((tx, i) => {
    if (addresses.has(tx.account)) key += `${i},`;
  });
  return key;
}
