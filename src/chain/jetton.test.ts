// The jetton get-methods on the devnet's real jettons (the reference minter and wallet of
// @ton-community/assets-sdk), answered both as a TVM answers (a slice) and as a serialized stack may
// (a cell), and refused with a JettonAnswerError where the contract is no jetton.
import { JettonWallet } from '@ton-community/assets-sdk/dist/jetton/JettonWallet.js';
import { beginCell, Cell, type TupleItem } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDevnet, type TestDevnet } from '../../test/support/devnet.js';
import { addressAnswer, jettonData, jettonWalletAddress, jettonWalletBalance, JettonAnswerError, sliceOrCell, type GetMethodRunner } from './jetton.js';

let devnet: TestDevnet;
const wallet = (name: string) => devnet.directory.wallets.find((w) => w.name === name)!;
const master = (key: string) => devnet.directory.jettons.find((j) => j.key === key)!.masterId;

/** The devnet, with every slice in a get-method answer handed back as a cell holding the same bits. */
const asCells: GetMethodRunner = {
  async runGetMethod(address, method, stack) {
    const res = await devnet.chain.runGetMethod(address, method, stack);
    return { ...res, stack: res.stack.map((item): TupleItem => (item.type === 'slice' ? { type: 'cell', cell: item.cell } : item)) };
  },
};

beforeAll(async () => {
  devnet = await openTestDevnet();
}, 60_000);
afterAll(async () => {
  await devnet?.close();
});

describe('get_wallet_address', () => {
  it("derives the wallet that says, itself, it belongs to the owner and the master; as a slice or as a cell", async () => {
    const alice = wallet('alice');
    const derived = await jettonWalletAddress(devnet.chain, master('usdt'), alice.id);
    // The derived account runs the reference wallet code and names alice and the USDT master in its data.
    const state = await devnet.chain.getAccountState(derived);
    expect(state.status).toBe('active');
    const data = await devnet.chain.runGetMethod(derived, 'get_wallet_data');
    expect(data.exitCode).toBe(0);
    expect(data.stack[0]).toEqual({ type: 'int', value: 10_000n * 10n ** 6n });
    expect(addressAnswer(data.stack[1])).toBe(alice.id);
    expect(addressAnswer(data.stack[2])).toBe(master('usdt'));

    expect(await jettonWalletAddress(asCells, master('usdt'), alice.id)).toBe(derived);
    // Another master or another owner: another wallet.
    expect(await jettonWalletAddress(devnet.chain, master('fake-usdt'), alice.id)).not.toBe(derived);
    expect(await jettonWalletAddress(devnet.chain, master('usdt'), wallet('bob').id)).not.toBe(derived);
  });

  it('refuses a contract that is no jetton master, naming it and the exit code', async () => {
    const alice = wallet('alice');
    const err = await jettonWalletAddress(devnet.chain, alice.id, wallet('bob').id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JettonAnswerError);
    expect(err).toMatchObject({ account: alice.id, method: 'get_wallet_address' });
    expect((err as JettonAnswerError).exitCode).not.toBe(0);
    expect((err as Error).message).toBe(`${alice.id} is not a jetton master (get_wallet_address exit code ${(err as JettonAnswerError).exitCode})`);
  });
});

describe('get_jetton_data', () => {
  it("reads supply, admin, content and the wallet code every genuine wallet runs; as a slice or as a cell", async () => {
    const data = await jettonData(devnet.chain, master('usdt'));
    expect(data.totalSupply).toBe(6n * 10_000n * 10n ** 6n);
    expect(data.mintable).toBe(true);
    expect(data.admin).toBe(devnet.directory.faucet.id);
    expect(data.walletCode.hash().equals(JettonWallet.code.hash())).toBe(true);
    // The wallet the master derives runs exactly that code.
    const derived = await jettonWalletAddress(devnet.chain, master('usdt'), wallet('alice').id);
    const account = await devnet.chain.getAccountState(derived);
    expect(Cell.fromBase64(account.code!).hash().equals(data.walletCode.hash())).toBe(true);

    const viaCells = await jettonData(asCells, master('usdt'));
    expect({ ...viaCells, content: viaCells.content.hash(), walletCode: viaCells.walletCode.hash() }).toEqual({
      ...data, content: data.content.hash(), walletCode: data.walletCode.hash(),
    });
  });

  it('refuses a wallet contract', async () => {
    await expect(jettonData(devnet.chain, wallet('alice').id)).rejects.toThrow(JettonAnswerError);
  });
});

describe('get_wallet_data', () => {
  it('reads a balance, 0 for an account with no code, and refuses a contract that is no jetton wallet', async () => {
    const derived = await jettonWalletAddress(devnet.chain, master('gram'), wallet('carol').id);
    expect(await jettonWalletBalance(devnet.chain, derived)).toBeGreaterThan(0n);
    // An owner no jetton ever reached: its wallet is derived but not deployed.
    const nobody = await jettonWalletAddress(devnet.chain, master('gram'), `0:${'5a'.repeat(32)}`);
    expect((await devnet.chain.getAccountState(nobody)).status).not.toBe('active');
    expect(await jettonWalletBalance(devnet.chain, nobody)).toBe(0n);
    await expect(jettonWalletBalance(devnet.chain, wallet('alice').id)).rejects.toThrow(JettonAnswerError);
  });
});

describe('the one rule for a slice-or-cell answer', () => {
  it('takes the same bits from a slice or a cell, and nothing else', () => {
    const cell = beginCell().storeAddress(wallet('alice').address).endCell();
    expect(sliceOrCell({ type: 'slice', cell })).toBe(cell);
    expect(sliceOrCell({ type: 'cell', cell })).toBe(cell);
    expect(sliceOrCell({ type: 'int', value: 1n })).toBeNull();
    expect(sliceOrCell(undefined)).toBeNull();
    expect(addressAnswer({ type: 'cell', cell })).toBe(wallet('alice').id);
    // addr_none and bits that are no address are no address
    expect(addressAnswer({ type: 'slice', cell: beginCell().storeUint(0, 2).endCell() })).toBeNull();
    expect(addressAnswer({ type: 'slice', cell: beginCell().storeUint(3, 2).endCell() })).toBeNull();
  });
});
