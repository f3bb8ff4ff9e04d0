// The `address_book` of v2 notifications: raw address → user-friendly form (and `.ton` domain), as
// TON Center builds it (ton-index-go/index/models/convert.go GetAccountAddressFriendly): non-bounceable
// when the account has no code or runs a known wallet code, bounceable otherwise; testnet flag per network.
import { LRUCache } from 'lru-cache';
import type { AccountId, HashHex } from '../../../chain/model.js';
import { toFriendly } from '../../../chain/address.js';
import { v3Address } from './encode.js';
import type { V3Address, V3AddressBook, V3AddressBookRow } from './types.js';

/** Wallet code hashes TON Center treats as wallets (types.go WalletsHashMap), as hex. */
export const WALLET_CODE_HASHES: ReadonlySet<HashHex> = new Set(
  [
    'oM/CxIruFqJx8s/AtzgtgXVs7LEBfQd/qqs7tgL2how=', '1JAvzJ+tdGmPqONTIgpo2g3PcuMryy657gQhfBfTBiw=', 'WHzHie/xyE9G7DeX5F/ICaFP9a4k8eDHpqmcydyQYf8=',
    'XJpeaMEI4YchoHxC+ZVr+zmtd+xtYktgxXbsiO7mUyk=', '/pUw0yQ4Uwg+8u8LTCkIwKv2+hwx6iQ6rKpb+MfXU/E=', 'thBBpYp5gLlG6PueGY48kE0keZ/6NldOpCUcQaVm9YE=',
    'hNr6RJ+Ypph3ibojI1gHK8D3bcRSQAKl0JGLmnXS1Zk=', 'ZN1UgFUixb6KnbWc6gEFzPDQh4bKeb64y3nogKjXMi0=', '/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=',
    '89fKU0k97trCizgZhqhJQDy6w9LFhHea8IEGWvCsS5M=', 'IINLe3KxEhR+Gy+0V7hOdNGjDwT3N9T2KmaOlVLSty8=',
  ].map((b) => Buffer.from(b, 'base64').toString('hex')),
);

/** The `.ton` domain an account is known by, or null (the DNS component's reverse lookup). */
export type DomainResolver = (account: AccountId) => Promise<string | null>;

export interface AddressBookOptions {
  /** Hex code hash of an account's current code; null when it has none (uninit, nonexist). */
  codeHash: (account: AccountId) => Promise<HashHex | null>;
  /** Testnet-only form (TON Center sets it on testnet). */
  testOnly: boolean;
  resolveDomain?: DomainResolver;
  /** Code hashes to treat as wallets beyond TON Center's list (a devnet's own wallet code). */
  extraWalletCodeHashes?: Iterable<HashHex>;
  /** Entries kept, and for how long (an account's code changes rarely; a deploy changes it once). */
  maxEntries?: number;
  ttlMs?: number;
  now?: () => number;
}

/** Builds address books with a bounded, time-limited cache of rows. */
export class AddressBookBuilder {
  /** Oldest written leaves first (a hit does not move a row); LRUCache, not a Map: V8 makes a Map's oldest-key eviction cost O(size). */
  private readonly cache: LRUCache<AccountId, { row: V3AddressBookRow; at: number }>;
  private readonly wallets: Set<HashHex>;
  constructor(private readonly o: AddressBookOptions) {
    this.wallets = new Set([...WALLET_CODE_HASHES, ...(o.extraWalletCodeHashes ?? [])]);
    this.cache = new LRUCache({ max: o.maxEntries ?? 100_000 });
  }

  private now = () => (this.o.now ?? Date.now)();

  async row(account: AccountId): Promise<V3AddressBookRow> {
    const hit = this.cache.peek(account);
    if (hit && this.now() - hit.at < (this.o.ttlMs ?? 60_000)) return hit.row;
    const [code, domain] = await Promise.all([this.o.codeHash(account).catch(() => null), this.o.resolveDomain?.(account).catch(() => null) ?? null]);
    const bounceable = code !== null && !this.wallets.has(code);
    const row: V3AddressBookRow = { user_friendly: toFriendly(account, { bounceable, testOnly: this.o.testOnly }), domain: domain ?? null, interfaces: null };
    this.cache.set(account, { row, at: this.now() });
    return row;
  }

  /** The address book for a set of raw accounts (built once per event; pick per client). */
  async build(accounts: Iterable<AccountId>): Promise<V3AddressBook> {
    const list = [...new Set(accounts)].sort();
    const rows = await Promise.all(list.map((a) => this.row(a)));
    const book: V3AddressBook = {};
    list.forEach((a, i) => (book[v3Address(a)] = rows[i]!));
    return book;
  }
}

/** The part of an address book one client's notification mentions (AdjustForClient). */
export function pickAddressBook(book: V3AddressBook, addresses: Iterable<V3Address>): V3AddressBook {
  const out: V3AddressBook = {};
  for (const a of [...addresses].sort()) if (book[a]) out[a] = book[a]!;
  return out;
}
