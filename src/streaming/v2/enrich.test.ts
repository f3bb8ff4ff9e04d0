// The service's enricher over the real devnet chain: the devnet USDT master's on-chain metadata and the
// address book's friendly forms; a get-method that fails or never answers leaves that account out of
// `metadata` (and the event goes out within the bound) instead of holding the notification back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFriendly } from '../../chain/address.js';
import { openTestDevnet, runTrace, type TestDevnet } from '../../../test/support/devnet.js';
import { chainEnricher, chainFacts } from './enrich.js';
import { readContractFacts, v3Address } from './v3/index.js';

let devnet: TestDevnet;
beforeAll(async () => {
  devnet = await openTestDevnet();
}, 60_000);
afterAll(async () => {
  await devnet?.close();
});

describe('chainEnricher', () => {
  it('reads metadata and friendly forms; a failing or silent get-method leaves only that entry out, within the bound', async () => {
    const chain = devnet.chain;
    const usdt = devnet.directory.jettons.find((j) => j.key === 'usdt')!.masterId;
    const gram = devnet.directory.jettons.find((j) => j.key === 'gram')!.masterId;
    const alice = devnet.directory.wallets.find((w) => w.name === 'alice')!.id;
    const accounts = [usdt, gram, alice];

    const healthy = await chainEnricher(chain).build(accounts, true, true);
    expect(Object.keys(healthy.metadata).sort()).toEqual([v3Address(gram), v3Address(usdt)].sort());
    expect(healthy.metadata[v3Address(usdt)]!.token_info[0]).toMatchObject({ type: 'jetton_masters', symbol: 'USDT' });
    expect(healthy.book[v3Address(alice)]!.user_friendly).toBe(toFriendly(alice, { bounceable: false }));
    expect(healthy.book[v3Address(usdt)]!.user_friendly).toBe(toFriendly(usdt, { bounceable: true }));

    // the real chain, except that USDT's get-methods never answer and GRAM's fail
    const faulty = {
      network: chain.network,
      getAccountState: chain.getAccountState.bind(chain),
      runGetMethod: (a: string, m: string | number, s?: Parameters<typeof chain.runGetMethod>[2]) =>
        a === usdt ? new Promise<never>(() => {}) : a === gram ? Promise.reject(new Error('liteserver down')) : chain.runGetMethod(a, m, s),
    };
    const started = Date.now();
    const partial = await chainEnricher(faulty, { timeoutMs: 300 }).build(accounts, true, true);
    expect(Date.now() - started).toBeLessThan(10_000); // bounded: no hang on the silent account
    expect(partial.metadata).toEqual({});
    expect(Object.keys(partial.book).sort()).toEqual(accounts.map(v3Address).sort());
    // only what was asked for is built
    expect(await chainEnricher(chain).build(accounts, false, true).then((e) => e.book)).toEqual({});
  }, 60_000);
});

describe('chainFacts', () => {
  it('proves a jetton transfer\'s wallets through the chain; a silent get-method proves nothing, within the bound', async () => {
    const chain = devnet.chain;
    const usdt = devnet.directory.jettons.find((j) => j.key === 'usdt')!.masterId;
    const { transactions: txs } = await runTrace(chain, () => devnet.control.jettonSend({ from: 'alice', jetton: 'usdt', to: 'bob', amount: '1000', comment: 'facts' }));
    const wallets = [...new Set(txs.filter((t) => t.inMessage?.opcode === 0x0f8a7ea5 || t.inMessage?.opcode === 0x178d4519).map((t) => t.account))];
    expect(wallets).toHaveLength(2);
    const proven = await readContractFacts(txs, chainFacts(chain));
    for (const w of wallets) expect(proven.jettonWallet(w)?.jetton).toBe(usdt);
    // the master never answers get_wallet_address: no wallet is proven, and the read ends at the bound
    const silent = { runGetMethod: (a: string, m: string | number, s?: Parameters<typeof chain.runGetMethod>[2]) => (a === usdt ? new Promise<never>(() => {}) : chain.runGetMethod(a, m, s)) };
    const unproven = await readContractFacts(txs, chainFacts(silent, 200));
    for (const w of wallets) expect(unproven.jettonWallet(w)).toBeUndefined();
  }, 60_000);
});
