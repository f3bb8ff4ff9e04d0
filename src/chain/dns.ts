// TON DNS (TEP-81): a client that resolves a name down the resolver chain through any
// ChainSource, and the record formats it reads. The devnet's own resolver contract is in
// chain/devnet/dns-resolver.ts.
import { createHash } from 'node:crypto';
import { type Address, beginCell, type Cell } from '@ton/core';
import type { AccountId } from './model.js';
import type { ChainSource } from './source.js';

export const DNS_NEXT_RESOLVER_PREFIX = 0xba93;
export const DNS_SMC_ADDRESS_PREFIX = 0x9fd3;

export function dnsCategory(name: string): bigint {
  return BigInt('0x' + createHash('sha256').update(name).digest('hex'));
}
export const CATEGORY_WALLET = dnsCategory('wallet');
export const CATEGORY_NEXT_RESOLVER = dnsCategory('dns_next_resolver');

/** TEP-81 internal representation: components reversed, each followed by a zero byte. */
export function domainToInternal(domain: string): Buffer {
  const parts = domain.toLowerCase().split('.').filter((p) => p.length > 0);
  if (parts.length === 0) return Buffer.from([0]);
  return Buffer.concat(parts.reverse().map((p) => Buffer.concat([Buffer.from(p, 'utf8'), Buffer.from([0])])));
}

export interface DnsResolution {
  /** The record found (a cell whose first 16 bits say its type), or null when the name has none. */
  record: Cell | null;
  /** Resolvers asked, root first. */
  resolvers: AccountId[];
}

const MAX_RESOLVER_HOPS = 8;

/** Resolves `domain` from `root` down the resolver chain by running `dnsresolve` on each resolver. */
export async function resolveDns(
  source: Pick<ChainSource, 'runGetMethod'>,
  root: AccountId,
  domain: string,
  category: bigint = CATEGORY_WALLET,
): Promise<DnsResolution> {
  let rest = domainToInternal(domain);
  let resolver = root;
  const resolvers: AccountId[] = [];
  for (let hop = 0; hop < MAX_RESOLVER_HOPS; hop++) {
    resolvers.push(resolver);
    const res = await source.runGetMethod(resolver, 'dnsresolve', [
      { type: 'slice', cell: beginCell().storeBuffer(rest).endCell() },
      { type: 'int', value: category },
    ]);
    if (res.exitCode !== 0 && res.exitCode !== 1) return { record: null, resolvers };
    const [bitsItem, recordItem] = res.stack;
    const bits = bitsItem?.type === 'int' ? Number(bitsItem.value) : 0;
    const record = recordItem?.type === 'cell' ? recordItem.cell : null;
    if (bits === 0 || bits % 8 !== 0) return { record: null, resolvers };
    if (bits === rest.length * 8) return { record, resolvers };
    if (!record) return { record: null, resolvers };
    const s = record.beginParse();
    if (s.remainingBits < 16 || s.loadUint(16) !== DNS_NEXT_RESOLVER_PREFIX) return { record: null, resolvers };
    const next = s.loadAddress();
    resolver = `${next.workChain}:${next.hash.toString('hex')}`;
    rest = rest.subarray(bits / 8);
  }
  return { record: null, resolvers };
}

/** The address in a `dns_smc_address` record, or null for any other record. */
export function walletFromRecord(record: Cell | null): Address | null {
  if (!record) return null;
  const s = record.beginParse();
  if (s.remainingBits < 16 || s.loadUint(16) !== DNS_SMC_ADDRESS_PREFIX) return null;
  return s.loadAddress();
}
