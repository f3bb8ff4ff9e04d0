// Streaming v2 `jettons_change` for every transaction of a proven jetton wallet, through the real service
// on the devnet (docs.ton.org reference: "each transaction on a jetton wallet contract"): a jetton transfer
// yields the wallets' balances as before; a plain TON top-up of a jetton wallet (no jetton op) and a forged
// `internal_transfer` the wallet refuses (an aborted transaction) each yield the unchanged balance at that
// transaction's LT; an ordinary wallet-to-wallet TON transfer yields none.
import { Address } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jettonWalletBalance } from '../../src/chain/jetton.js';
import { jettonWalletOf } from '../../src/chain/devnet/inputs.js';
import type { DevnetChain } from '../../src/chain/devnet/chain.js';
import type { DevnetWallet } from '../../src/chain/devnet/wallets.js';
import type { TestService } from '../support/service.js';
import { openSse, type V2Event } from '../support/v2-client.js';
import { startV2Devnet, until, v3 } from '../support/v2-devnet.js';

type Json = Record<string, any>;

describe('streaming v2 jettons_change on every jetton wallet transaction (devnet)', () => {
  let svc: TestService;
  let key: string;
  let chain: DevnetChain;

  beforeAll(async () => void ({ svc, key, chain } = await startV2Devnet()), 120_000);
  afterAll(() => svc?.close());

  const wallet = (name: string): DevnetWallet => chain.directory!.wallets.find((w) => w.name === name)!;
  const jettons = (events: V2Event[]) => events.filter((e) => e.event === 'event' && e.data.type === 'jettons_change' && e.data.finality === 'finalized').map((e) => e.data.jetton as Json);
  const subscribe = async (addresses: string[]) => {
    const events: V2Event[] = [];
    const s = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, { types: ['jettons_change'], addresses, min_finality: 'confirmed' }, { onEvent: (e) => events.push(e) });
    expect(s.status).toBe(200);
    return { events, close: () => s.abort() };
  };
  const post = async (path: string, json: unknown) => {
    const res = await svc.api(path, { method: 'POST', json });
    expect(res.status, await res.clone().text()).toBe(200);
    await svc.settle();
  };

  it('a TON top-up and a refused internal_transfer of a jetton wallet: its unchanged balance at each LT; a jetton transfer as before', async () => {
    const bob = wallet('bob');
    const usdt = chain.directory!.jettons.find((j) => j.key === 'usdt')!;
    const bobWallet = (await jettonWalletOf(chain, usdt.masterId, bob.address, 'owner')).toRawString();
    const owner = await subscribe([bob.id]); // the owner's TON wallet
    const own = await subscribe([bobWallet]); // the jetton wallet itself

    // a jetton transfer: bob's wallet once, as get_wallet_data says
    await post('/devnet/jetton/send', { from: 'alice', jetton: 'usdt', to: 'bob', amount: '1000000' });
    await until(() => jettons(owner.events).length === 1 && jettons(own.events).length === 1, () => [owner.events, own.events]);
    const balance = (await jettonWalletBalance(chain, bobWallet)).toString();
    expect(jettons(owner.events)[0]).toMatchObject({ address: v3(bobWallet), balance, owner: v3(bob.id), jetton: v3(usdt.masterId) });

    // a plain TON transfer to the jetton wallet: no jetton op, the balance is unchanged
    const before = (await chain.getAccountState(bobWallet)).lastTxLt;
    await post('/devnet/send', { from: 'alice', to: Address.parse(bobWallet).toString(), amount: '50000000', bounce: true });
    const topUp = await chain.getAccountState(bobWallet);
    expect(topUp.lastTxLt).toBeGreaterThan(before);
    await until(() => jettons(owner.events).length === 2 && jettons(own.events).length === 2, () => [owner.events, own.events]);
    for (const list of [jettons(owner.events), jettons(own.events)]) {
      expect(list[1]).toMatchObject({ address: v3(bobWallet), balance, owner: v3(bob.id), last_transaction_lt: topUp.lastTxLt.toString() });
    }

    // a plain wallet sends internal_transfer straight to bob's jetton wallet: refused (aborted), still a transaction of it
    await post('/devnet/scenarios/forged-internal-transfer', { from: 'alice', jetton: 'usdt', to: 'bob' });
    const forged = await chain.getAccountState(bobWallet);
    const [refused] = await chain.getTransactions(bobWallet, forged.lastTxLt, forged.lastTxHash, 1);
    expect(refused!.aborted).toBe(true);
    await until(() => jettons(owner.events).length === 3, () => owner.events);
    expect(jettons(owner.events)[2]).toMatchObject({ address: v3(bobWallet), balance, last_transaction_lt: forged.lastTxLt.toString() });
    expect((await jettonWalletBalance(chain, bobWallet)).toString()).toBe(balance);
    // every notification once: each a distinct transaction of the wallet
    expect(new Set(jettons(owner.events).map((j) => j.last_transaction_lt)).size).toBe(3);
    owner.close();
    own.close();
  });

  it('an ordinary TON transfer between wallets yields no jettons_change', async () => {
    const [alice, carol] = [wallet('alice'), wallet('carol')];
    const usdt = chain.directory!.jettons.find((j) => j.key === 'usdt')!;
    const carolWallet = (await jettonWalletOf(chain, usdt.masterId, carol.address, 'owner')).toRawString();
    const sub = await subscribe([alice.id, carol.id]);
    await post('/devnet/send', { from: 'alice', to: carol.address.toString(), amount: '10000000', comment: 'just TON' });
    // then a jetton transfer to carol: the connection keeps its order, so anything of the TON transfer came before
    await post('/devnet/jetton/send', { from: 'dave', jetton: 'usdt', to: 'carol', amount: '1000' });
    await until(() => jettons(sub.events).length >= 1, () => sub.events);
    await svc.settle();
    expect(jettons(sub.events).map((j) => j.address)).toEqual([v3(carolWallet)]);
    sub.close();
  });
});
