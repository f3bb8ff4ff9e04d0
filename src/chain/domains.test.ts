// The reverse-name book on a real devnet: a wallet with a `.ton` name gets it, one without gets null,
// and when the zone resolver moves a name to another wallet (the owner's set_domain_records, a real
// transaction) or removes it, the next check shows it for the new wallet only, or for none.
import { internal, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDevnet, type TestDevnet } from '../../test/support/devnet.js';
import { settle } from './devnet/genesis.js';
import { setDomainRecordsBody, walletRecord } from './devnet/dns-resolver.js';
import { signedTransfer, walletSeqno } from './devnet/wallets.js';
import { DomainBook } from './domains.js';

let devnet: TestDevnet;
beforeAll(async () => {
  devnet = await openTestDevnet();
}, 120_000);
afterAll(async () => {
  await devnet?.close();
});

const wallet = (name: string) => devnet.directory.wallets.find((w) => w.name === name)!;

/** The zone's owner (the faucet) sends `set_domain_records` for `component`. */
async function setRecords(component: string, to: string | null) {
  const { chain } = devnet;
  const faucet = devnet.directory.faucet;
  const body = setDomainRecordsBody(component, to ? { wallet: walletRecord(wallet(to).address) } : null);
  const seqno = walletSeqno(faucet.version, chain.pendingAccount(faucet.id).data);
  const ext = await signedTransfer(faucet, { seqno, now: chain.now(), messages: [internal({ to: devnet.directory.dns.zone, value: toNano('0.1'), bounce: true, body })] });
  await chain.sendExternalMessage(ext.toBoc());
  await settle(chain);
}

describe('DomainBook', () => {
  it('shows a name only while it resolves forward to the account', async () => {
    let now = 0;
    const book = new DomainBook({ source: devnet.chain, root: devnet.directory.dns.rootId, names: Object.keys(devnet.directory.dns.names), ttlMs: 1_000, now: () => now });
    expect(await book.domainOf(wallet('alice').id)).toBe('alice.ton');
    expect(await book.domainOf(wallet('merchant').id)).toBe('merchant.ton');
    expect(await book.domainOf(wallet('carol').id)).toBeNull();

    // alice.ton moves to carol; bob.ton is removed
    await setRecords('alice', 'carol');
    await setRecords('bob', null);
    // within the check's lifetime the last proven answer stands
    expect(await book.domainOf(wallet('alice').id)).toBe('alice.ton');
    now += 1_000;
    await book.check();
    expect(await book.domainOf(wallet('alice').id)).toBeNull();
    expect(await book.domainOf(wallet('carol').id)).toBe('alice.ton');
    expect(await book.domainOf(wallet('bob').id)).toBeNull();
    expect(await book.domainOf(wallet('exchange').id)).toBe('exchange.ton');
  });

  it('learns names resolved elsewhere, bounded; a book without a root knows none', async () => {
    const book = new DomainBook({ source: devnet.chain, root: devnet.directory.dns.rootId, maxNames: 1 });
    expect(await book.domainOf(wallet('exchange').id)).toBeNull();
    book.learn('Exchange.TON.', wallet('exchange').id);
    expect(await book.domainOf(wallet('exchange').id)).toBe('exchange.ton');
    book.learn('merchant.ton', wallet('merchant').id);
    // one name kept: the older one left
    expect(await book.domainOf(wallet('exchange').id)).toBeNull();
    expect(await book.domainOf(wallet('merchant').id)).toBe('merchant.ton');
    // a learned name that does not resolve to the account is dropped at the check
    book.learn('nobody-here.ton', wallet('dave').id);
    await book.check();
    expect(await book.domainOf(wallet('dave').id)).toBeNull();

    const rootless = new DomainBook({ source: devnet.chain, root: null, names: ['exchange.ton'] });
    rootless.learn('exchange.ton', wallet('exchange').id);
    expect(await rootless.domainOf(wallet('exchange').id)).toBeNull();
  });
});

describe('the devnet zone resolver', () => {
  it("refuses set_domain_records from anyone but its owner", async () => {
    const { chain } = devnet;
    const mallory = wallet('mallory');
    const body = setDomainRecordsBody('exchange', { wallet: walletRecord(mallory.address) });
    const seqno = walletSeqno(mallory.version, chain.pendingAccount(mallory.id).data);
    const ext = await signedTransfer(mallory, { seqno, now: chain.now(), messages: [internal({ to: devnet.directory.dns.zone, value: toNano('0.1'), bounce: true, body })] });
    await chain.sendExternalMessage(ext.toBoc());
    await settle(chain);
    const book = new DomainBook({ source: chain, root: devnet.directory.dns.rootId, names: ['exchange.ton'] });
    expect(await book.domainOf(wallet('exchange').id)).toBe('exchange.ton');
    expect(await book.domainOf(mallory.id)).toBeNull();
  });
});
