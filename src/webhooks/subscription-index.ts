// What the router matches against, in memory: account → webhooks, opcode → webhooks, and the
// webhooks following new contracts or the mempool. Loaded from the store at start and changed by
// the API right after each committed change, so a subscription applies from the next block.
import type { Feed } from './store.js';

function addTo<K>(map: Map<K, Set<number>>, key: K, id: number): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(id);
}

function removeFrom<K>(map: Map<K, Set<number>>, key: K, id: number): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}

export class SubscriptionIndex {
  readonly byAccount = new Map<string, Set<number>>();
  readonly byOpcode = new Map<number, Set<number>>();
  readonly newContracts = new Set<number>();
  readonly mempool = new Set<number>();
  /** Reverse maps, to drop a deleted webhook without scanning. */
  private readonly accountsOf = new Map<number, Set<string>>();
  private readonly opcodesOf = new Map<number, Set<number>>();

  addAccounts(webhookId: number, accounts: Iterable<string>): void {
    for (const a of accounts) {
      addTo(this.byAccount, a, webhookId);
      let mine = this.accountsOf.get(webhookId);
      if (!mine) this.accountsOf.set(webhookId, (mine = new Set()));
      mine.add(a);
    }
  }

  removeAccounts(webhookId: number, accounts: Iterable<string>): void {
    const mine = this.accountsOf.get(webhookId);
    for (const a of accounts) {
      removeFrom(this.byAccount, a, webhookId);
      mine?.delete(a);
    }
  }

  addOpcode(webhookId: number, opcode: number): void {
    addTo(this.byOpcode, opcode, webhookId);
    let mine = this.opcodesOf.get(webhookId);
    if (!mine) this.opcodesOf.set(webhookId, (mine = new Set()));
    mine.add(opcode);
  }

  removeOpcode(webhookId: number, opcode: number): void {
    removeFrom(this.byOpcode, opcode, webhookId);
    this.opcodesOf.get(webhookId)?.delete(opcode);
  }

  setFeed(webhookId: number, feed: Feed, on: boolean): void {
    const set = feed === 'mempool' ? this.mempool : this.newContracts;
    if (on) set.add(webhookId);
    else set.delete(webhookId);
  }

  removeWebhook(webhookId: number): void {
    for (const a of this.accountsOf.get(webhookId) ?? []) removeFrom(this.byAccount, a, webhookId);
    for (const op of this.opcodesOf.get(webhookId) ?? []) removeFrom(this.byOpcode, op, webhookId);
    this.accountsOf.delete(webhookId);
    this.opcodesOf.delete(webhookId);
    this.newContracts.delete(webhookId);
    this.mempool.delete(webhookId);
  }

  get accountCount(): number {
    return this.byAccount.size;
  }
}
