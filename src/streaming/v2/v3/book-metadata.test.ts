// Address book and metadata on the devnet: friendly forms by wallet-ness as TON Center writes them,
// `.ton` domains through the real DNS contracts, jetton metadata on-chain (the devnet USDT) and
// off-chain (a minter deployed here whose content URL points at a local HTTP server) behind the
// webhooks' SSRF guard, cached and bounded.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginCell, Cell, internal, toNano } from '@ton/core';
import { JettonMinter } from '@ton-community/assets-sdk/dist/jetton/JettonMinter.js';
import { openTestDevnet, runTrace, type TestDevnet } from '../../../../test/support/devnet.js';
import { mintBody } from '../../../chain/devnet/jettons.js';
import { sendFromWallet } from '../../../chain/devnet/sender.js';
import { addressToRaw, parseAddressInfo } from '../../../chain/address.js';
import { resolveDns, walletFromRecord } from '../../../chain/dns.js';
import { AddressBookBuilder, guardedFetcher, MetadataReader, pickAddressBook, v3Address } from './index.js';

let devnet: TestDevnet;
let server: http.Server;
let base = '';
let hits = 0;
const wallet = (name: string) => devnet.directory.wallets.find((w) => w.name === name)!;
const run = (a: string, m: string, s?: Parameters<TestDevnet['chain']['runGetMethod']>[2]) => devnet.chain.runGetMethod(a, m, s);
const codeHash = async (a: string) => {
  const s = await devnet.chain.getAccountState(a);
  return s.code ? Cell.fromBase64(s.code).hash().toString('hex') : null;
};

beforeAll(async () => {
  devnet = await openTestDevnet();
  server = http.createServer((req, res) => {
    hits++;
    if (req.url === '/jetton.json') return res.end(JSON.stringify({ name: 'Offchain Coin', symbol: 'OFF', decimals: '9', image: 'https://example.com/off.png', description: 'served locally' }));
    if (req.url === '/huge.json') return res.end(JSON.stringify({ name: 'x'.repeat(400_000) }));
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  server?.close();
  await devnet?.close();
});

describe('address book', () => {
  it('wallets and code-less accounts non-bounceable, other contracts bounceable; domains from the DNS', async () => {
    // the reverse map a DNS component keeps: every devnet name resolved forward through the real resolvers
    const reverse = new Map<string, string>();
    for (const name of ['alice', 'bob']) {
      const { record } = await resolveDns(devnet.chain, devnet.directory.dns.rootId, `${name}.ton`);
      const a = walletFromRecord(record);
      if (a) reverse.set(addressToRaw(a), `${name}.ton`);
    }
    expect(reverse.size).toBe(2);
    const book = new AddressBookBuilder({ codeHash, testOnly: false, resolveDomain: async (a) => reverse.get(a) ?? null });
    const fresh = '0:' + 'cd'.repeat(32);
    const master = devnet.directory.jettons.find((j) => j.key === 'usdt')!.masterId;
    const b = await book.build([wallet('alice').id, wallet('bob').id, master, fresh]);
    expect(Object.keys(b)).toEqual([wallet('alice').id, wallet('bob').id, master, fresh].sort().map(v3Address));
    const info = (a: string) => parseAddressInfo(b[v3Address(a)]!.user_friendly!);
    expect(info(wallet('alice').id)).toMatchObject({ bounceable: false, testOnly: false }); // v4 wallet
    expect(info(wallet('bob').id)).toMatchObject({ bounceable: false }); // v5r1 wallet
    expect(info(master)).toMatchObject({ bounceable: true }); // a jetton minter
    expect(info(fresh)).toMatchObject({ bounceable: false }); // no code
    expect(b[v3Address(wallet('alice').id)]).toEqual({ user_friendly: b[v3Address(wallet('alice').id)]!.user_friendly, domain: 'alice.ton', interfaces: null });
    expect(b[v3Address(master)]!.domain).toBeNull();
    expect(Object.keys(pickAddressBook(b, [v3Address(master)]))).toEqual([v3Address(master)]);
  });
});

describe('metadata', () => {
  it('on-chain jetton content read through get_jetton_data', async () => {
    const reader = new MetadataReader({ runGetMethod: run, policy: { allowLoopback: true } });
    const master = devnet.directory.jettons.find((j) => j.key === 'usdt')!;
    const m = await reader.build([master.masterId, wallet('alice').id]);
    expect(Object.keys(m)).toEqual([v3Address(master.masterId)]); // a wallet has no token metadata
    expect(m[v3Address(master.masterId)]).toEqual({
      is_indexed: true,
      token_info: [{ valid: true, type: 'jetton_masters', name: master.name, symbol: master.symbol, description: master.description, extra: { decimals: String(master.decimals) } }],
    });
  });

  it('off-chain content fetched over HTTP behind the SSRF guard, cached, bounded in size and time', async () => {
    const faucet = devnet.directory.faucet;
    const minterFor = (path: string) => JettonMinter.createFromConfig({ admin: faucet.address, content: beginCell().storeUint(1, 8).storeStringTail(base + path).endCell() });
    const deploy = async (minter: JettonMinter) =>
      runTrace(devnet.chain, () =>
        sendFromWallet(devnet.chain, faucet, [
          internal({ to: minter.address, value: toNano('0.2'), bounce: false, init: minter.init, body: mintBody({ minter: minter.address, owner: wallet('carol').address, amount: 5n, queryId: 1n }) }),
        ]).then((message_hash) => ({ message_hash })),
      );
    const ok = minterFor('/jetton.json');
    const huge = minterFor('/huge.json');
    await deploy(ok);
    await deploy(huge);
    const [okId, hugeId] = [addressToRaw(ok.address), addressToRaw(huge.address)];

    let now = 1_000_000;
    const reader = new MetadataReader({ runGetMethod: run, fetchOffchain: guardedFetcher({ allowLoopback: true }, 64 * 1024, 2_000), ttlMs: 60_000, maxEntries: 2, now: () => now });
    hits = 0;
    const m = await reader.build([okId, hugeId]);
    expect(m[v3Address(okId)]!.token_info).toEqual([{ valid: true, type: 'jetton_masters', name: 'Offchain Coin', symbol: 'OFF', description: 'served locally', image: 'https://example.com/off.png', extra: { decimals: '9' } }]);
    // larger than the bound: nothing off-chain is used, and no content at all is left
    expect(m[v3Address(hugeId)]!.token_info).toEqual([{ valid: true, type: 'jetton_masters' }]);
    expect(hits).toBe(2);
    await reader.get(okId);
    expect(hits).toBe(2); // cached
    now += 61_000;
    await reader.get(okId);
    expect(hits).toBe(3); // expired and read again

    // the production policy refuses loopback: the same content yields no off-chain fields, no request made
    const guarded = new MetadataReader({ runGetMethod: run, policy: { allowLoopback: false } });
    hits = 0;
    expect((await guarded.get(okId))!.token_info).toEqual([{ valid: true, type: 'jetton_masters' }]);
    expect(hits).toBe(0);
  });
});
