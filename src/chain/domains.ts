// Reverse TON DNS for address books: the `.ton` name an account is known by. There is no reverse
// record in TEP-81, so the book keeps names the service knows — the network profile's, and names
// resolved through the indexer's DNS route — and shows a name for an account only while a forward
// resolution through the chain source gives that account back: a name whose record moved elsewhere
// is dropped at the next check. Bounded in names (each check costs a resolution per name, two or three
// get-methods on a liteserver); every name re-checked once per `ttlMs`, and only while address books are asked for.
import { LRUCache } from 'lru-cache';
import { addressToRaw } from './address.js';
import { resolveDns, walletFromRecord } from './dns.js';
import type { AccountId } from './model.js';
import type { ChainSource } from './source.js';

export interface DomainBookOptions {
  source: Pick<ChainSource, 'runGetMethod'>;
  /** The network profile's root resolver; null: no names at all. */
  root: AccountId | null;
  /** Names known from the start (the network profile's). */
  names?: Iterable<string>;
  /** Names kept; the oldest learned one leaves first (the profile's names count too). */
  maxNames?: number;
  /** How long a check holds before the names are resolved again. */
  ttlMs?: number;
  /** Resolutions run at once during a check. */
  concurrency?: number;
  now?: () => number;
}

export class DomainBook {
  /** Candidate names; the oldest learned leaves first, and its resolution with it. */
  private readonly names: LRUCache<string, true>;
  /** Name → the account its forward resolution gave at the last check. */
  private readonly resolved = new Map<string, AccountId>();
  private byAccount = new Map<AccountId, string>();
  private checkedAt = -Infinity;
  private checking: Promise<void> | null = null;

  constructor(private readonly o: DomainBookOptions) {
    this.names = new LRUCache({
      max: o.maxNames ?? 1_000,
      dispose: (_, name, reason) => {
        if (reason === 'evict') this.resolved.delete(name);
      },
    });
    for (const n of o.names ?? []) this.add(normalize(n));
  }

  private now = () => (this.o.now ?? Date.now)();

  /**
   * A name resolved forward to `account` (the indexer's DNS route): shown from now on, until a check
   * finds it resolving elsewhere.
   */
  learn(domain: string, account: AccountId): void {
    if (!this.o.root) return;
    const name = normalize(domain);
    this.add(name);
    this.resolved.set(name, account);
    this.byAccount = reverse(this.names, this.resolved);
  }

  /** The name `account` is known by, or null. The first call waits for the first check; later ones re-check in the background. */
  async domainOf(account: AccountId): Promise<string | null> {
    if (!this.o.root || this.names.size === 0) return null;
    if (this.checkedAt === -Infinity) await this.check();
    else if (this.now() - this.checkedAt >= (this.o.ttlMs ?? 120_000)) void this.check();
    return this.byAccount.get(account) ?? null;
  }

  /** Resolves every name forward again (one check at a time); a name that does not resolve to a wallet leaves. */
  check(): Promise<void> {
    this.checking ??= this.resolveAll().finally(() => (this.checking = null));
    return this.checking;
  }

  private async resolveAll(): Promise<void> {
    const root = this.o.root!;
    const queue = [...this.names.rkeys()];
    const worker = async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        try {
          const wallet = walletFromRecord((await resolveDns(this.o.source, root, name)).record);
          if (wallet) this.resolved.set(name, addressToRaw(wallet));
          else this.resolved.delete(name);
        } catch {
          // the chain did not answer: the last proven answer stands until the next check
        }
      }
    };
    await Promise.all(Array.from({ length: this.o.concurrency ?? 4 }, worker));
    this.byAccount = reverse(this.names, this.resolved);
    this.checkedAt = this.now();
  }

  /** A name learned again moves to the newest end. */
  private add(name: string): void {
    this.names.set(name, true);
  }
}

const normalize = (domain: string) => domain.trim().toLowerCase().replace(/\.$/, '');

/** Account → its name; an account several names resolve to shows the shortest (then the first alphabetically). */
function reverse(names: { has(name: string): boolean }, resolved: Map<string, AccountId>): Map<AccountId, string> {
  const out = new Map<AccountId, string>();
  for (const [name, account] of resolved) {
    if (!names.has(name)) continue;
    const seen = out.get(account);
    if (!seen || name.length < seen.length || (name.length === seen.length && name < seen)) out.set(account, name);
  }
  return out;
}
