// Streaming v2's include_address_book and include_metadata through the real service on the devnet: the
// address book names every account the client's notification mentions (wallets non-bounceable, as TON
// Center does; a jetton master bounceable), metadata carries the devnet jetton master's on-chain TEP-64
// content, and a client without the flags gets neither key. Notifications keep their order per connection.
// account_state_change and jettons_change: a jetton transfer from alice to bob yields both jetton wallets'
// new balances (as get_wallet_data says afterwards) and the states the transactions left (HASH_UPDATE).
import { Cell, loadTransaction } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFriendly } from '../../src/chain/address.js';
import { jettonWalletBalance } from '../../src/chain/jetton.js';
import { jettonWalletOf } from '../../src/chain/devnet/inputs.js';
import type { DevnetChain } from '../../src/chain/devnet/chain.js';
import type { TestService } from '../support/service.js';
import { openSse, openWs, type V2Event } from '../support/v2-client.js';
import { startV2Devnet, until, v3 } from '../support/v2-devnet.js';

describe('streaming v2 address book and metadata on the devnet', () => {
  let svc: TestService;
  let key: string;
  let chain: DevnetChain;

  beforeAll(async () => void ({ svc, key, chain } = await startV2Devnet()), 120_000);
  afterAll(() => svc?.close());

  it('a transfer to a jetton master: address_book and metadata for the accounts each notification mentions', async () => {
    const alice = chain.directory!.wallets.find((w) => w.name === 'alice')!;
    const usdt = chain.directory!.jettons.find((j) => j.symbol === 'USDT' && j.name.includes('devnet'))!;
    const rich: V2Event[] = [];
    const plain: V2Event[] = [];
    const sub = { types: ['transactions'], addresses: [alice.id], min_finality: 'confirmed' };
    const a = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, { ...sub, include_address_book: true, include_metadata: true }, { onEvent: (e) => rich.push(e) });
    const b = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, sub, { onEvent: (e) => plain.push(e) });
    const ws = await openWs(`${svc.url.replace('http', 'ws')}/streaming/v2/ws`, { authorization: `Bearer ${key}` });
    expect(await ws.request({ operation: 'subscribe', types: ['transactions'], addresses: [alice.id], include_address_book: true, id: 's' })).toEqual({ id: 's', status: 'subscribed' });
    await svc.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: usdt.master.toString(), amount: '100000000', comment: 'hi master', bounce: true } });
    await svc.produceBlock();
    await svc.produceBlock();
    const txs = (list: V2Event[]) => list.filter((e) => e.event === 'event' && e.data.type === 'transactions' && (e.data.transactions as unknown[]).length > 0);
    const finalized = (list: V2Event[]) => txs(list).filter((e) => e.data.finality === 'finalized');
    await until(() => finalized(rich).length > 0 && finalized(plain).length > 0 && ws.notifications.some((n) => n.finality === 'finalized'), () => [rich, plain, ws.notifications]);

    for (const e of txs(rich)) {
      expect(Object.keys(e.data)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'transactions', 'address_book', 'metadata']);
      const book = e.data.address_book as Record<string, { user_friendly: string; domain: string | null; interfaces: null }>;
      // exactly the accounts the notification's transactions mention
      const mentioned = new Set((e.data.transactions as Array<{ account: string; in_msg: { source: string | null } | null; out_msgs: Array<{ destination: string | null }> }>).flatMap((t) => [t.account, t.in_msg?.source, ...t.out_msgs.map((m) => m.destination)]).filter((x): x is string => !!x));
      expect(Object.keys(book).sort()).toEqual([...mentioned].sort());
      expect(book[v3(alice.id)]!.user_friendly).toBe(toFriendly(alice.id, { bounceable: false, testOnly: false }));
      expect(book[v3(usdt.masterId)]!.user_friendly).toBe(toFriendly(usdt.masterId, { bounceable: true, testOnly: false }));
      const metadata = e.data.metadata as Record<string, { is_indexed: boolean; token_info: Array<Record<string, unknown>> }>;
      expect(Object.keys(metadata)).toEqual([v3(usdt.masterId)]);
      expect(metadata[v3(usdt.masterId)]!.token_info[0]).toMatchObject({ valid: true, type: 'jetton_masters', symbol: 'USDT', name: usdt.name });
    }
    expect(txs(rich).map((e) => e.data.finality)).toEqual(txs(plain).map((e) => e.data.finality));
    for (const e of txs(plain)) expect(Object.keys(e.data)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'transactions']);
    const wsTx = ws.notifications.filter((n) => n.type === 'transactions' && (n.transactions as unknown[]).length > 0);
    for (const n of wsTx) expect(Object.keys(n)).toEqual(['type', 'finality', 'trace_external_hash_norm', 'transactions', 'address_book']);
    // ids still rise per connection: the enriched notifications kept their order
    const ids = rich.filter((e) => e.event === 'event').map((e) => e.id!.split('~')[0]!).map(Number);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    a.abort();
    b.abort();
    ws.close();
    await svc.settle();
  });

  it('a jetton transfer: account_state_change and jettons_change, only for subscribed addresses', async () => {
    const alice = chain.directory!.wallets.find((w) => w.name === 'alice')!;
    const bob = chain.directory!.wallets.find((w) => w.name === 'bob')!;
    const usdt = chain.directory!.jettons.find((j) => j.key === 'usdt')!;
    const walletOf = async (owner: typeof bob) => (await jettonWalletOf(chain, usdt.masterId, owner.address, 'owner')).toRawString();
    const [aliceWallet, bobWallet] = [await walletOf(alice), await walletOf(bob)];
    const mine: V2Event[] = [];
    const other: V2Event[] = [];
    const types = ['account_state_change', 'jettons_change'];
    const a = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, { types, addresses: [bobWallet, alice.id], min_finality: 'confirmed' }, { onEvent: (e) => mine.push(e) });
    const carol = chain.directory!.wallets.find((w) => w.name === 'carol')!;
    const b = await openSse(`${svc.url}/streaming/v2/sse?api_key=${key}`, { types, addresses: [carol.id], min_finality: 'confirmed' }, { onEvent: (e) => other.push(e) });
    const res = await svc.api('/devnet/jetton/send', { method: 'POST', json: { from: 'alice', jetton: 'usdt', to: 'bob', amount: '1000000' } });
    expect(res.status).toBe(200);
    for (let i = 0; i < 4; i++) await svc.produceBlock();
    const of = (type: string, finality: string) => mine.filter((e) => e.event === 'event' && e.data.type === type && e.data.finality === finality).map((e) => e.data as Record<string, any>);
    await until(() => of('jettons_change', 'finalized').length >= 2 && of('account_state_change', 'finalized').some((n) => n.account === v3(bobWallet)), () => mine);

    // jettons_change: both wallets of the transfer (bob's subscribed itself, alice's through its owner), balances as get_wallet_data says now
    const jettons = of('jettons_change', 'finalized').map((n) => n.jetton);
    expect(jettons.map((j) => j.address).sort()).toEqual([v3(aliceWallet), v3(bobWallet)].sort());
    for (const [wallet, owner] of [[aliceWallet, alice.id], [bobWallet, bob.id]] as const) {
      const j = jettons.find((x) => x.address === v3(wallet))!;
      expect(j).toMatchObject({ balance: (await jettonWalletBalance(chain, wallet)).toString(), owner: v3(owner), jetton: v3(usdt.masterId) });
      expect(j.last_transaction_lt).toBe((await chain.getAccountState(wallet)).lastTxLt.toString());
    }
    // account_state_change: each state is one its account's transactions left (HASH_UPDATE's new hash, read independently)
    const newHashes = async (account: string) => {
      const s = await chain.getAccountState(account);
      const txs = await chain.getTransactions(account, s.lastTxLt, s.lastTxHash, 5);
      return txs.map((t) => loadTransaction(Cell.fromBase64(t.boc).beginParse()).stateUpdate.newHash.toString('base64'));
    };
    const states = [...of('account_state_change', 'confirmed'), ...of('account_state_change', 'finalized')];
    for (const n of states) {
      expect(Object.keys(n)).toEqual(['type', 'finality', 'account', 'state']);
      expect([v3(alice.id), v3(bobWallet)]).toContain(n.account);
      expect(await newHashes(n.account.toLowerCase())).toContain(n.state.hash);
    }
    const bobState = of('account_state_change', 'finalized').filter((n) => n.account === v3(bobWallet));
    expect(bobState).toHaveLength(1);
    expect(bobState[0]!.state).toMatchObject({ hash: (await newHashes(bobWallet))[0], account_status: 'active', balance: (await chain.getAccountState(bobWallet)).balance.toString() });
    // confirmed: only the trace's first transaction (alice's wallet) reaches the hub, its state read from the
    // non-final block; no confirmed jettons_change (the balance comes from get_wallet_data on finalized state)
    expect(of('account_state_change', 'confirmed').map((n) => n.account)).toEqual([v3(alice.id)]);
    expect(of('jettons_change', 'confirmed')).toEqual([]);
    // nothing for a client whose addresses the transfer does not touch
    expect(other.filter((e) => e.event === 'event')).toEqual([]);
    a.abort();
    b.abort();
    await svc.settle();
  });
});
