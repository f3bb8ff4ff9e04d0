// TON DNS on the devnet (TEP-81): our Tolk resolver (contracts/dns-resolver.tolk), its data
// (component hash -> record set), and a client that resolves a name down the resolver chain
// through any ChainSource.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Address, beginCell, Cell, Dictionary } from '@ton/core';
import { runTolkCompiler } from '@ton/tolk-js';
import type { AccountId } from '../model.js';
import type { ChainSource } from '../source.js';

export const DNS_RESOLVER_SOURCE = 'dns-resolver.tolk';
export const DNS_NEXT_RESOLVER_PREFIX = 0xba93;
export const DNS_SMC_ADDRESS_PREFIX = 0x9fd3;

export function dnsCategory(name: string): bigint {
  return BigInt('0x' + createHash('sha256').update(name).digest('hex'));
}
export const CATEGORY_WALLET = dnsCategory('wallet');
export const CATEGORY_NEXT_RESOLVER = dnsCategory('dns_next_resolver');

/** Where the contract sources live: beside this module, or in src/ when running a build from dist/. */
function contractsDir(): string {
  const beside = fileURLToPath(new URL('./contracts/', import.meta.url));
  if (existsSync(beside + DNS_RESOLVER_SOURCE)) return beside;
  // dist/chain/devnet/ → the repository root is three levels up; tsc does not copy .tolk files.
  const fromDist = fileURLToPath(new URL('../../../src/chain/devnet/contracts/', import.meta.url));
  return fromDist;
}

export function readResolverSource(): string {
  return readFileSync(contractsDir() + DNS_RESOLVER_SOURCE, 'utf8');
}

let compiled: Promise<Cell> | null = null;

/** Compiles the resolver once per process (the devnet also keeps the code it deployed in its data dir). */
export function compileResolver(): Promise<Cell> {
  compiled ??= (async () => {
    const dir = contractsDir();
    const res = await runTolkCompiler({
      entrypointFileName: DNS_RESOLVER_SOURCE,
      fsReadCallback: (path) => readFileSync(dir + path, 'utf8'),
    });
    if (res.status !== 'ok') throw new Error(`compiling ${DNS_RESOLVER_SOURCE} failed: ${res.message}`);
    return Cell.fromBase64(res.codeBoc64);
  })();
  compiled.catch(() => (compiled = null));
  return compiled;
}

export function walletRecord(address: Address): Cell {
  return beginCell().storeUint(DNS_SMC_ADDRESS_PREFIX, 16).storeAddress(address).storeUint(0, 8).endCell();
}

export function nextResolverRecord(address: Address): Cell {
  return beginCell().storeUint(DNS_NEXT_RESOLVER_PREFIX, 16).storeAddress(address).endCell();
}

/** Resolver data: owner, then `domains: map<uint256, cell>` — sha256(component) -> record set root. */
export function resolverData(owner: Address, domains: Record<string, Record<string, Cell>>): Cell {
  const map = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  for (const [component, records] of Object.entries(domains)) {
    const set = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
    for (const [category, record] of Object.entries(records)) set.set(dnsCategory(category), record);
    map.set(dnsCategory(component), beginCell().storeDictDirect(set).endCell());
  }
  return beginCell().storeAddress(owner).storeDict(map).endCell();
}

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
  source: ChainSource,
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
