// The `address_book` and `metadata` of v2 notifications (include_address_book, include_metadata): built
// once per event from the chain source's proven reads, each account's read bounded in time, so a slow or
// failing read yields the notification without that account's entry (or, for the address book, with the
// row of an account without code) rather than holding the connection's later notifications back.
import { Cell } from '@ton/core';
import type { AccountId } from '../../chain/model.js';
import type { DomainBook } from '../../chain/domains.js';
import type { ChainSource } from '../../chain/source.js';
import { AddressBookBuilder, MetadataReader, v3Address, type GetMethodRunner, type V3AddressBook, type V3Metadata } from './v3/index.js';

/** How long one account's read may take before the event goes out without it. */
export const ENRICH_TIMEOUT_MS = 3_000;

export interface Enrichment {
  book: V3AddressBook;
  metadata: V3Metadata;
}

/** What the hub asks for an event: the accounts it mentions, and which parts any recipient wants. */
export interface V2Enricher {
  build(accounts: readonly AccountId[], book: boolean, metadata: boolean): Promise<Enrichment>;
}

export const within = <T>(p: Promise<T>, ms: number, fallback: T): Promise<T> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback), ms);
    timer.unref();
    p.then(resolve, () => resolve(fallback)).finally(() => clearTimeout(timer));
  });

/** The service's enricher over its chain source (devnet, liteservers): code hashes and get-methods. */
export function chainEnricher(
  source: Pick<ChainSource, 'getAccountState' | 'runGetMethod' | 'network'>,
  { timeoutMs = ENRICH_TIMEOUT_MS, domains = null }: { timeoutMs?: number; domains?: Pick<DomainBook, 'domainOf'> | null } = {},
): V2Enricher {
  const codeHash = async (account: AccountId) => {
    const state = await source.getAccountState(account);
    return state.code ? Cell.fromBase64(state.code).hash().toString('hex') : null;
  };
  const books = new AddressBookBuilder({
    codeHash: (a) => within(codeHash(a), timeoutMs, null),
    testOnly: source.network === 'testnet',
    ...(domains ? { resolveDomain: (a: AccountId) => within(domains.domainOf(a), timeoutMs, null) } : {}),
  });
  const reader = new MetadataReader({ runGetMethod: (a, m, s) => source.runGetMethod(a, m, s) });
  return {
    async build(accounts, book, metadata) {
      const list = [...new Set(accounts)].sort();
      const [b, m] = await Promise.all([
        book ? books.build(list) : ({} as V3AddressBook),
        // the reader keeps reading in the background and caches what it finds for the next event
        metadata ? Promise.all(list.map((a) => within(reader.get(a), timeoutMs, null))) : [],
      ]);
      const meta: V3Metadata = {};
      if (metadata) list.forEach((a, i) => m[i] && (meta[v3Address(a)] = m[i]!));
      return { book: b, metadata: meta };
    },
  };
}

/** Get-methods for `actions`' contract facts: a read that takes longer than `timeoutMs` proves nothing. */
export function chainFacts(source: Pick<ChainSource, 'runGetMethod'>, timeoutMs = ENRICH_TIMEOUT_MS): GetMethodRunner {
  return (account, method, stack) => within(source.runGetMethod(account, method, stack), timeoutMs, { exitCode: -1, stack: [], gasUsed: 0n });
}
