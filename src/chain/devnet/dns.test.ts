// TON DNS on the devnet: `alice.ton` resolves through the root resolver (config #4 address, on
// the masterchain) to the `.ton` zone resolver and on to alice's wallet, by running TEP-81
// `dnsresolve` on chain; and the deployed resolver code is what our Tolk source compiles to.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginCell, Cell, Dictionary } from '@ton/core';
import { runTolkCompiler } from '@ton/tolk-js';
import { addressToRaw } from '../address.js';
import { CATEGORY_NEXT_RESOLVER, CATEGORY_WALLET, DNS_NEXT_RESOLVER_PREFIX, domainToInternal, resolveDns, walletFromRecord } from '../dns.js';
import { readResolverSource } from './dns-resolver.js';
import { openTestDevnet, type TestDevnet } from '../../../test/support/devnet.js';

let devnet: TestDevnet;
beforeAll(async () => {
  devnet = await openTestDevnet();
});
afterAll(async () => {
  await devnet?.close();
});

const walletId = (name: string) => devnet.directory.wallets.find((w) => w.name === name)!.id;

function dnsresolve(resolver: string, name: Buffer, category: bigint) {
  return devnet.chain.runGetMethod(resolver, 'dnsresolve', [
    { type: 'slice', cell: beginCell().storeBuffer(name).endCell() },
    { type: 'int', value: category },
  ]);
}

describe('devnet DNS', () => {
  it('encodes domains in the TEP-81 internal form', () => {
    expect(domainToInternal('alice.ton')).toEqual(Buffer.from('ton\0alice\0', 'latin1'));
    expect(domainToInternal('Sub.Alice.TON')).toEqual(Buffer.from('ton\0alice\0sub\0', 'latin1'));
    expect(domainToInternal('.')).toEqual(Buffer.from([0]));
  });

  it('resolves alice.ton to alice’s wallet through the root and the .ton zone', async () => {
    const { dns } = devnet.directory;
    const res = await resolveDns(devnet.chain, dns.rootId, 'alice.ton');
    expect(res.resolvers).toEqual([dns.rootId, dns.zoneId]);
    expect(dns.rootId.startsWith('-1:')).toBe(true);
    expect(addressToRaw(walletFromRecord(res.record)!)).toBe(walletId('alice'));
    for (const name of ['bob', 'merchant', 'exchange']) {
      const r = await resolveDns(devnet.chain, dns.rootId, `${name}.ton`);
      expect(addressToRaw(walletFromRecord(r.record)!)).toBe(walletId(name));
    }
  });

  it('answers each resolver step as TEP-81 says', async () => {
    const { dns } = devnet.directory;
    const root = await dnsresolve(dns.rootId, Buffer.from('ton\0alice\0', 'latin1'), CATEGORY_WALLET);
    expect(root.exitCode).toBe(0);
    expect(root.stack[0]).toEqual({ type: 'int', value: 32n }); // "ton\0" resolved
    const next = root.stack[1]!;
    expect(next.type).toBe('cell');
    const s = (next as { cell: Cell }).cell.beginParse();
    expect(s.loadUint(16)).toBe(DNS_NEXT_RESOLVER_PREFIX);
    expect(addressToRaw(s.loadAddress())).toBe(dns.zoneId);

    // at the zone, with the "self" zero byte the remainder may start with
    const zone = await dnsresolve(dns.zoneId, Buffer.from('\0alice\0', 'latin1'), CATEGORY_WALLET);
    expect(zone.stack[0]).toEqual({ type: 'int', value: 56n });
    // category 0 returns the whole record set
    const all = await dnsresolve(dns.zoneId, Buffer.from('alice\0', 'latin1'), 0n);
    const set = Dictionary.loadDirect(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell(), (all.stack[1] as { cell: Cell }).cell);
    expect(addressToRaw(walletFromRecord(set.get(CATEGORY_WALLET)!)!)).toBe(walletId('alice'));
    // a category the name does not have
    const none = await dnsresolve(dns.zoneId, Buffer.from('alice\0', 'latin1'), CATEGORY_NEXT_RESOLVER);
    expect(none.stack).toEqual([{ type: 'int', value: 48n }, { type: 'null' }]);
  });

  it('does not resolve unknown names, and fails on a non-byte-aligned name', async () => {
    const { dns } = devnet.directory;
    expect((await resolveDns(devnet.chain, dns.rootId, 'nobody.ton')).record).toBeNull();
    expect((await resolveDns(devnet.chain, dns.rootId, 'alice.com')).record).toBeNull();
    const unknown = await dnsresolve(dns.zoneId, Buffer.from('nobody\0', 'latin1'), CATEGORY_WALLET);
    expect(unknown.stack).toEqual([{ type: 'int', value: 0n }, { type: 'null' }]);
    const odd = await devnet.chain.runGetMethod(dns.zoneId, 'dnsresolve', [
      { type: 'slice', cell: beginCell().storeUint(1, 7).endCell() },
      { type: 'int', value: CATEGORY_WALLET },
    ]);
    expect(odd.exitCode).toBe(70);
  });

  it('runs the code our Tolk source compiles to', async () => {
    const source = readResolverSource();
    expect(source).toContain('get fun dnsresolve');
    const compiled = await runTolkCompiler({
      entrypointFileName: 'dns-resolver.tolk',
      fsReadCallback: () => readFileSync(new URL('./contracts/dns-resolver.tolk', import.meta.url), 'utf8'),
    });
    if (compiled.status !== 'ok') throw new Error(compiled.message);
    const code = Cell.fromBase64(compiled.codeBoc64);
    for (const resolver of [devnet.directory.dns.rootId, devnet.directory.dns.zoneId]) {
      const state = await devnet.chain.getAccountState(resolver);
      expect(Cell.fromBase64(state.code!).hash().toString('hex')).toBe(code.hash().toString('hex'));
    }
  });
});
