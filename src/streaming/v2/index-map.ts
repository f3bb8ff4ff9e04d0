// Which v2 connections follow an address or a trace: one lookup per transaction account of a batch
// instead of every connection looking at every trace (the fan-out stays proportional to deliveries).
import type { AccountId } from '../../chain/model.js';
import type { V2Connection } from './connection.js';
import type { V2Subscription } from './request.js';

export class V2Index {
  private readonly byAccount = new Map<AccountId, Set<V2Connection>>();
  private readonly byTrace = new Map<string, Set<V2Connection>>();

  /** Replaces the connection's entries by those of `subscription` (null: none). */
  set(connection: V2Connection, subscription: V2Subscription | null): void {
    this.remove(connection);
    connection.subscription = subscription;
    if (!subscription) return;
    for (const a of subscription.addresses) add(this.byAccount, a, connection);
    for (const t of subscription.traces) add(this.byTrace, t, connection);
  }

  /** Drops some addresses and traces from the connection's subscription (WS `unsubscribe`). */
  drop(connection: V2Connection, addresses: AccountId[], traces: string[]): void {
    const sub = connection.subscription;
    if (!sub) return;
    for (const a of addresses) if (sub.addresses.delete(a)) del(this.byAccount, a, connection);
    for (const t of traces) if (sub.traces.delete(t)) del(this.byTrace, t, connection);
  }

  remove(connection: V2Connection): void {
    const sub = connection.subscription;
    if (!sub) return;
    for (const a of sub.addresses) del(this.byAccount, a, connection);
    for (const t of sub.traces) del(this.byTrace, t, connection);
  }

  ofAccount(account: AccountId): ReadonlySet<V2Connection> | undefined {
    return this.byAccount.get(account);
  }

  /** Whether any connection follows a trace (else a batch's trace hashes are not computed). */
  hasTraces(): boolean {
    return this.byTrace.size > 0;
  }

  ofTrace(norm: string): ReadonlySet<V2Connection> | undefined {
    return this.byTrace.get(norm);
  }
}

function add<K>(map: Map<K, Set<V2Connection>>, key: K, c: V2Connection): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(c);
}

function del<K>(map: Map<K, Set<V2Connection>>, key: K, c: V2Connection): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(c);
  if (set.size === 0) map.delete(key);
}
