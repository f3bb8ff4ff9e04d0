// Transfer extraction on real devnet transactions: every case of compat.md §7 produced by the
// devnet's own scenarios, read back from finalized blocks, and what the indexer records for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginCell } from '@ton/core';
import { jettonWalletAddress } from '../chain/jetton.js';
import { NOBODY } from '../chain/devnet/scenarios.js';
import { openTestDevnet, runTrace, type TestDevnet } from '../../test/support/devnet.js';
import { addressToRaw } from '../chain/address.js';
import type { TransactionModel } from '../chain/model.js';
import { bouncedJettonAmount, CLAIMS, extract, TON, transactionFee, type TransferRecord } from './extract.js';

let devnet: TestDevnet;
const id = (name: string) => devnet.directory.wallets.find((w) => w.name === name)!.id;
const master = (key: string) => devnet.directory.jettons.find((j) => j.key === key)!.masterId;

const jettonWallet = (jetton: string, owner: string): Promise<string> => jettonWalletAddress(devnet.chain, master(jetton), id(owner));

const at = (trace: TransactionModel[], account: string) => trace.filter((t) => t.account === account);
const ton = (tx: TransactionModel, owner: string) => extract(tx, { asset: TON, owner }).transfers.filter((t) => t.asset === TON);
const claims = (tx: TransactionModel, owner: string) => extract(tx, { asset: TON, owner }).transfers.filter((t) => t.asset === CLAIMS);
const jetton = (tx: TransactionModel, key: string, owner: string) => extract(tx, { asset: master(key), owner }).transfers;
const pick = (t: TransferRecord) => ({ direction: t.direction, kind: t.kind, status: t.status, amount: t.amount, comment: t.comment, sender: t.sender, recipients: t.recipients });

beforeAll(async () => {
  devnet = await openTestDevnet();
}, 60_000);
afterAll(async () => {
  await devnet?.close();
});

describe('TON transfers', () => {
  it('a deposit with a memo at the receiver, a withdrawal with its fee at the sender', async () => {
    const { transactions } = await runTrace(devnet.chain, () => devnet.control.send({ from: 'alice', to: 'bob', amount: '1500000000', comment: 'user 17' }));
    const [send, receive] = transactions;
    expect(ton(receive!, id('bob')).map(pick)).toEqual([
      { direction: 'in', kind: 'deposit', status: 'ok', amount: 1_500_000_000n, comment: 'user 17', sender: id('alice'), recipients: [id('bob')] },
    ]);
    const out = ton(send!, id('alice'));
    expect(out.map(pick)).toEqual([
      { direction: 'out', kind: 'withdrawal', status: 'ok', amount: 1_500_000_000n, comment: 'user 17', sender: id('alice'), recipients: [id('bob')] },
    ]);
    // the fee covers total fees plus the forwarding fee the message carries
    expect(out[0]!.fee).toBe(send!.totalFees + send!.outMessages[0]!.fwdFee);
    expect(out[0]!.fee).toBeGreaterThan(send!.totalFees);
  });

  it('a bounced deposit: in as bounced, the refund out; the sender gets a bounce_refund', async () => {
    const { transactions } = await runTrace(devnet.chain, () => devnet.control.bounce({ from: 'carol', amount: '300000000' }));
    const nobody = addressToRaw(NOBODY);
    const refused = at(transactions, nobody)[0]!;
    const records = ton(refused, nobody);
    expect(records.map((r) => [r.direction, r.kind, r.status])).toEqual([
      ['in', 'deposit', 'bounced'],
      ['out', 'bounce_refund', 'ok'],
    ]);
    expect(records[0]!.amount).toBe(300_000_000n);
    expect(records[0]!.reason).toMatch(/compute skipped/);
    expect(records[1]!.recipients).toEqual([id('carol')]);
    expect(records[1]!.amount).toBeLessThan(300_000_000n);
    const back = at(transactions, id('carol')).find((t) => t.inMessage?.type === 'internal')!;
    expect(ton(back, id('carol')).map((r) => [r.direction, r.kind, r.status, r.amount])).toEqual([['in', 'bounce_refund', 'ok', records[1]!.amount]]);
  });

  it('a non-bounceable deposit to an address without code is credited', async () => {
    const fresh = '0:' + 'ab'.repeat(32);
    const { transactions } = await runTrace(devnet.chain, () => devnet.control.send({ from: 'dave', to: fresh, amount: '200000000', bounce: false }));
    const records = ton(at(transactions, fresh)[0]!, fresh);
    expect(records.map(pick)).toEqual([
      { direction: 'in', kind: 'deposit', status: 'ok', amount: 200_000_000n, comment: null, sender: id('dave'), recipients: [fresh] },
    ]);
  });
});

describe('jetton transfers', () => {
  it.each([
    { layout: 'inline', inRef: false },
    { layout: 'ref', inRef: true },
  ])('a deposit with its comment $layout: deposit at the wallet, notification TON and a claim at the owner', async ({ layout, inRef }) => {
    const text = `deposit ${layout}`;
    const { transactions } = await runTrace(devnet.chain, () =>
      devnet.control.jettonSend({ from: 'alice', jetton: 'usdt', to: 'merchant', amount: '2500000', comment: text, comment_in_ref: inRef }),
    );
    const wallet = await jettonWallet('usdt', 'merchant');
    const receive = at(transactions, wallet)[0]!;
    expect(jetton(receive, 'usdt', id('merchant')).map(pick)).toEqual([
      { direction: 'in', kind: 'deposit', status: 'ok', amount: 2_500_000n, comment: text, sender: id('alice'), recipients: [id('merchant')] },
    ]);
    expect(jetton(receive, 'usdt', id('merchant'))[0]!.jetton).toBe(master('usdt'));
    const notify = at(transactions, id('merchant'))[0]!;
    expect(ton(notify, id('merchant')).map((r) => [r.kind, r.status, r.comment])).toEqual([['jetton_notification_ton', 'ok', text]]);
    const [claim] = claims(notify, id('merchant'));
    expect(claim).toMatchObject({ status: 'rejected', source: wallet, amount: 2_500_000n, jetton: null });

    // the sender's side: the withdrawal at alice's jetton wallet, the excess back to alice
    const sent = at(transactions, await jettonWallet('usdt', 'alice'))[0]!;
    expect(jetton(sent, 'usdt', id('alice')).map(pick)).toEqual([
      { direction: 'out', kind: 'withdrawal', status: 'ok', amount: 2_500_000n, comment: text, sender: id('alice'), recipients: [id('merchant')] },
    ]);
    const excess = at(transactions, id('alice')).find((t) => t.inMessage?.decoded.kind === 'excess')!;
    expect(ton(excess, id('alice')).map((r) => [r.direction, r.kind, r.status])).toEqual([['in', 'excess', 'ok']]);
  });

  it('a transfer of more than the balance: failed withdrawal, the TON comes back as a bounce_refund', async () => {
    const { transactions } = await runTrace(devnet.chain, () => devnet.control.failedJettonTransfer({ from: 'dave', jetton: 'gram', to: 'alice' }));
    const wallet = await jettonWallet('gram', 'dave');
    const [failed] = jetton(at(transactions, wallet)[0]!, 'gram', id('dave'));
    expect(failed).toMatchObject({ direction: 'out', kind: 'withdrawal', status: 'failed' });
    expect(failed!.reason).toMatch(/exit code/);
    expect(at(transactions, await jettonWallet('gram', 'alice'))).toHaveLength(0);
    const back = at(transactions, id('dave')).find((t) => t.inMessage?.type === 'internal')!;
    expect(ton(back, id('dave')).map((r) => [r.direction, r.kind])).toEqual([['in', 'bounce_refund']]);
  });

  it('a forged internal_transfer is refused by the jetton wallet: rejected, never a deposit', async () => {
    const { transactions } = await runTrace(devnet.chain, () =>
      devnet.control.forgedInternalTransfer({ from: 'mallory', jetton: 'usdt', to: 'exchange', amount: '7000000', comment: 'free money' }),
    );
    const wallet = await jettonWallet('usdt', 'exchange');
    const [record] = jetton(at(transactions, wallet)[0]!, 'usdt', id('exchange'));
    expect(record).toMatchObject({ direction: 'in', kind: 'deposit', status: 'rejected', amount: 7_000_000n, comment: 'free money', sender: id('mallory') });
    expect(record!.reason).toMatch(/refused internal_transfer.*exit code/);
  });

  it('a forged transfer_notification credits TON but only a rejected claim of jettons', async () => {
    const { transactions } = await runTrace(devnet.chain, () =>
      devnet.control.forgedNotification({ from: 'mallory', to: 'exchange', amount: '9000000', comment: 'deposit 42' }),
    );
    const tx = at(transactions, id('exchange'))[0]!;
    expect(ton(tx, id('exchange')).map((r) => [r.kind, r.status])).toEqual([['jetton_notification_ton', 'ok']]);
    expect(claims(tx, id('exchange')).map(pick)).toEqual([
      { direction: 'in', kind: 'deposit', status: 'rejected', amount: 9_000_000n, comment: 'deposit 42', sender: id('mallory'), recipients: [id('exchange')] },
    ]);
    expect(claims(tx, id('exchange'))[0]!.source).toBe(id('mallory'));
  });

  it('the first transaction of a holder\'s jetton wallet is the mint from the master', async () => {
    const wallet = await jettonWallet('usdt', 'carol');
    const state = await devnet.chain.getAccountState(wallet);
    let page = await devnet.chain.getTransactions(wallet, state.lastTxLt, state.lastTxHash);
    while (page[page.length - 1]!.prevLt !== 0n) {
      const last = page[page.length - 1]!;
      page = await devnet.chain.getTransactions(wallet, last.prevLt, last.prevHash);
    }
    const first = page[page.length - 1]!;
    expect(jetton(first, 'usdt', id('carol'))).toMatchObject([{ direction: 'in', kind: 'mint', status: 'ok', amount: 10_000_000_000n, jetton: master('usdt') }]);
  });
});

describe('fees and amounts', () => {
  it('over a whole account history, transfers in − out − fees equal the balance on chain', async () => {
    for (const name of ['alice', 'carol', 'exchange', 'mallory']) {
      const state = await devnet.chain.getAccountState(id(name));
      let sum = 0n;
      let next = { lt: state.lastTxLt, hash: state.lastTxHash };
      while (next.lt !== 0n) {
        const page = await devnet.chain.getTransactions(id(name), next.lt, next.hash);
        for (const tx of page) {
          for (const t of ton(tx, id(name))) sum += t.direction === 'in' ? t.amount : -t.amount;
          sum -= transactionFee(tx);
        }
        const last = page[page.length - 1]!;
        next = { lt: last.prevLt, hash: last.prevHash };
      }
      expect(sum, name).toBe(state.balance);
    }
  });

  it('reads the amount of a bounced jetton message, and nothing from a short body', () => {
    const body = beginCell().storeUint(0xffffffff, 32).storeUint(0x178d4519, 32).storeUint(42, 64).storeCoins(123_456_789n).endCell();
    expect(bouncedJettonAmount(body.toBoc().toString('base64'))).toBe(123_456_789n);
    const short = beginCell().storeUint(0xffffffff, 32).storeUint(0x178d4519, 32).endCell();
    expect(bouncedJettonAmount(short.toBoc().toString('base64'))).toBeNull();
  });

  it('reads the amount from the original body of a new_bounce_body#fffffffe', () => {
    const original = beginCell().storeUint(0x178d4519, 32).storeUint(42, 64).storeCoins(987_654_321n).endCell();
    const info = beginCell().storeCoins(50_000_000n).storeBit(false).storeUint(1n, 64).storeUint(1_760_000_000, 32).endCell();
    const body = beginCell().storeUint(0xfffffffe, 32).storeRef(original).storeRef(info).storeUint(1, 8).storeInt(709, 32).storeBit(true).storeUint(5000, 32).storeUint(90, 32).endCell();
    expect(bouncedJettonAmount(body.toBoc().toString('base64'))).toBe(987_654_321n);
  });
});
