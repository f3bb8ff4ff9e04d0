// The devnet's TON DNS resolver (TEP-81): our Tolk contract (contracts/dns-resolver.tolk), its
// compilation, and its data (component hash -> record set) with the records genesis writes.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Address, beginCell, Cell, Dictionary } from '@ton/core';
import { runTolkCompiler } from '@ton/tolk-js';
import { DNS_NEXT_RESOLVER_PREFIX, DNS_SMC_ADDRESS_PREFIX, dnsCategory } from '../dns.js';

export const DNS_RESOLVER_SOURCE = 'dns-resolver.tolk';

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


/** The owner's `set_domain_records`: `component`'s record set becomes `records` (null: the name stops resolving). */
export const OP_SET_DOMAIN_RECORDS = 0x4eb1f0f9;
export function setDomainRecordsBody(component: string, records: Record<string, Cell> | null): Cell {
  const b = beginCell().storeUint(OP_SET_DOMAIN_RECORDS, 32).storeUint(0, 64).storeUint(dnsCategory(component), 256);
  if (!records) return b.storeBit(0).endCell();
  const set = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  for (const [category, record] of Object.entries(records)) set.set(dnsCategory(category), record);
  return b.storeBit(1).storeRef(beginCell().storeDictDirect(set).endCell()).endCell();
}
