// JettonWalletBook on a real devnet: a wallet is proven by its master once per code, a contract that is
// not a wallet (or lies about its master) is disproven and then skipped, and only proven wallets or
// transactions with a jetton sign are candidates — a plain wallet-to-wallet transfer costs no read.
import { internal, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressToRaw } from '../../chain/address.js';
import { jettonWalletData } from '../../chain/jetton.js';
import type { TransactionModel } from '../../chain/model.js';
import { jettonWalletOf } from '../../chain/devnet/inputs.js';
import { sendFromWallet } from '../../chain/devnet/sender.js';
import { openTestDevnet, runTrace, type TestDevnet } from '../../../test/support/devnet.js';
import { hasJettonSign, JettonWalletBook } from './jetton-wallets.js';

let devnet: TestDevnet;
beforeAll(async () => {
  devnet = await openTestDevnet();
});
afterAll(async () => {
  await devnet?.close();
});

/** The devnet chain's get-methods, counted per method name. */
function countingRunner() {
  const calls: string[] = [];
  return {
    calls,
    runGetMethod: (address: string, method: string | number, stack?: Parameters<typeof devnet.chain.runGetMethod>[2]) => {
      calls.push(String(method));
      return devnet.chain.runGetMethod(address, method, stack);
    },
  };
}

describe('JettonWalletBook', () => {
  it('proves a jetton wallet once per code; a plain TON top-up of it is then a candidate without a read', async () => {
    const alice = devnet.directory.wallets.find((w) => w.name === 'alice')!;
    const usdt = devnet.directory.jettons.find((j) => j.key === 'usdt')!;
    const wallet = addressToRaw(await jettonWalletOf(devnet.chain, usdt.masterId, alice.address, 'owner'));
    const runner = countingRunner();
    const book = new JettonWalletBook(runner);
    // a TON top-up of the jetton wallet: no jetton op in or out
    const { transactions } = await runTrace(devnet.chain, async () => ({ message_hash: await sendFromWallet(devnet.chain, alice, [internal({ to: wallet, value: toNano('0.05'), bounce: true })]) }));
    const topUp = transactions.find((tx) => tx.account === wallet)!;
    expect(hasJettonSign(topUp)).toBe(false);
    expect(book.candidate(topUp)).toBe(false); // unknown and unsigned: no read for it
    expect(book.candidate(topUp, true)).toBe(true); // unless a client follows the account itself

    const state = await devnet.chain.getAccountState(wallet);
    const data = await jettonWalletData(devnet.chain, wallet);
    expect(await book.proves(state, data)).toBe(true);
    expect(runner.calls).toEqual(['get_wallet_address']);
    expect(book.candidate(topUp)).toBe(true);
    // proven for this code: no second question to the master
    expect(await book.proves(state, data)).toBe(true);
    expect(runner.calls).toEqual(['get_wallet_address']);
    // a claim of another owner is asked again, and the master does not derive this account for it
    const bob = devnet.directory.wallets.find((w) => w.name === 'bob')!;
    expect(await book.proves(state, { ...data, owner: bob.id })).toBe(false);
    expect(runner.calls).toEqual(['get_wallet_address', 'get_wallet_address']);
  });

  it('an ordinary wallet is disproven once and skipped afterwards, even with a jetton sign', async () => {
    const [alice, bob] = ['alice', 'bob'].map((n) => devnet.directory.wallets.find((w) => w.name === n)!);
    const runner = countingRunner();
    const book = new JettonWalletBook(runner);
    const { transactions } = await runTrace(devnet.chain, async () => ({ message_hash: await sendFromWallet(devnet.chain, alice!, [internal({ to: bob!.address, value: toNano('0.01'), bounce: false })]) }));
    expect(transactions.every((tx) => !book.candidate(tx))).toBe(true);
    // an excesses-like op sent by alice's wallet is a sign; the proof says no and is remembered
    const signed: TransactionModel = { ...transactions[0]!, outMessages: transactions[0]!.outMessages.map((m) => ({ ...m, opcode: 0xd53276db })) };
    expect(book.candidate(signed)).toBe(true);
    expect(await book.proves(await devnet.chain.getAccountState(alice!.id), null)).toBe(false);
    expect(book.candidate(signed)).toBe(false);
    expect(book.candidate(signed, true)).toBe(false);
    expect(runner.calls).toEqual([]);
  });

  it('is bounded: the oldest account is forgotten first', async () => {
    const [alice, bob] = ['alice', 'bob'].map((n) => devnet.directory.wallets.find((w) => w.name === n)!);
    const usdt = devnet.directory.jettons.find((j) => j.key === 'usdt')!;
    const book = new JettonWalletBook(countingRunner(), 1);
    const proveWallet = async (owner: typeof alice) => {
      const wallet = addressToRaw(await jettonWalletOf(devnet.chain, usdt.masterId, owner!.address, 'owner'));
      expect(await book.proves(await devnet.chain.getAccountState(wallet), await jettonWalletData(devnet.chain, wallet))).toBe(true);
      return wallet;
    };
    const tx = (account: string) => ({ account, origStatus: 'active', endStatus: 'active', inMessage: null, outMessages: [] }) as unknown as TransactionModel;
    const first = await proveWallet(alice);
    expect(book.candidate(tx(first))).toBe(true);
    const second = await proveWallet(bob);
    expect(book.candidate(tx(second))).toBe(true);
    expect(book.candidate(tx(first))).toBe(false);
  });
});
