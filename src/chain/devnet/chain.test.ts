// DevnetChain as a ChainSource: genesis, blocks and their order, traces across blocks, account
// history, get-methods, the mempool (emulation, refusal, duplicates) — on real transactions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beginCell, internal, toNano } from '@ton/core';
import { ChainRejectedError, MAX_TRANSACTIONS_PER_CALL } from '../source.js';
import type { PendingMessage, TransactionModel } from '../model.js';
import { ACCOUNT_NOT_ACTIVE_EXIT_CODE, MIN_BLOCK_INTERVAL_MS, DevnetChain } from './chain.js';
import { settle } from './genesis.js';
import { BLOCK_LT_STEP } from './producer.js';
import { openTestDevnet, runTrace, transactionsAfter, type TestDevnet } from '../../../test/support/devnet.js';
import { signedTransfer, walletSeqno, type DevnetWallet } from './wallets.js';

let devnet: TestDevnet;
const wallet = (name: string): DevnetWallet => devnet.directory.wallets.find((w) => w.name === name)!;

beforeAll(async () => {
  devnet = await openTestDevnet();
});
afterAll(async () => {
  await devnet?.close();
});

/** The seqno a new message needs: after every pending message (plus `offset`, to make a stale or future one). */
function nextSeqno(from: DevnetWallet, offset = 0): number {
  return walletSeqno(from.version, devnet.chain.pendingAccount(from.id).data) + offset;
}

async function transfer(from: DevnetWallet, to: DevnetWallet, amount: bigint, seqnoOffset = 0): Promise<Buffer> {
  const seqno = nextSeqno(from, seqnoOffset);
  const cell = await signedTransfer(from, { seqno, now: devnet.chain.now(), messages: [internal({ to: to.address, value: amount, bounce: false })] });
  return cell.toBoc();
}

describe('devnet genesis', () => {
  it('deploys every named wallet with funds, and the merchant has an outgoing transaction', async () => {
    for (const w of devnet.directory.wallets) {
      const state = await devnet.chain.getAccountState(w.id);
      expect(state.status, w.name).toBe('active');
      expect(state.balance, w.name).toBeGreaterThan(toNano('100'));
    }
    const merchant = await devnet.chain.getAccountState(wallet('merchant').id);
    const history = await devnet.chain.getTransactions(merchant.address, merchant.lastTxLt, merchant.lastTxHash);
    const outgoing = history.filter((t) => t.inMessage?.type === 'external-in' && t.outMessages.length > 0);
    expect(outgoing.length).toBeGreaterThan(0);
  });

  it('mints USDT (6 decimals), a second jetton and a look-alike USDT from another master', async () => {
    const wallets = await devnet.control.wallets();
    const alice = wallets.find((w) => w.name === 'alice')!;
    const usdt = alice.jettons.find((j) => j.key === 'usdt')!;
    expect(usdt).toMatchObject({ symbol: 'USDT', decimals: 6, balance: String(10_000n * 10n ** 6n) });
    expect(alice.jettons.find((j) => j.key === 'gram')!.decimals).toBe(9);
    const fake = wallets.find((w) => w.name === 'mallory')!.jettons.find((j) => j.key === 'fake-usdt')!;
    expect(fake.symbol).toBe('USDT');
    expect(fake.master).not.toBe(usdt.master);
    expect(BigInt(fake.balance)).toBeGreaterThan(0n);
    const data = await devnet.chain.runGetMethod(usdt.master, 'get_jetton_data');
    expect(data.exitCode).toBe(0);
    expect(data.stack[0]).toEqual({ type: 'int', value: 6n * 10_000n * 10n ** 6n });
  });
});

describe('devnet blocks', () => {
  it('commits one basechain shard block per masterchain block, with stable hashes and aligned lts', async () => {
    const head = await devnet.chain.getMasterchainHead();
    const block = (await devnet.chain.getFinalizedBlock(head.seqno))!;
    expect(block.masterchain).toEqual(head);
    expect(block.masterchain).toMatchObject({ workchain: -1, shard: '8000000000000000', mcSeqno: head.seqno });
    expect(block.shards).toHaveLength(1);
    expect(block.shards[0]).toMatchObject({ workchain: 0, shard: '8000000000000000', mcSeqno: head.seqno });
    expect(block.masterchain.rootHash).toMatch(/^[0-9a-f]{64}$/);
    expect(block.masterchain.rootHash).not.toBe(block.shards[0]!.rootHash);
    expect(block.shards[0]!.startLt % BLOCK_LT_STEP).toBe(0n);
    expect(block.masterchain.startLt).toBeGreaterThan(block.shards[0]!.endLt);
    expect(await devnet.chain.getFinalizedBlock(head.seqno)).toEqual(block);
    expect(await devnet.chain.getFinalizedBlock(head.seqno + 1)).toBeNull();
    await expect(devnet.chain.getFinalizedBlock(0)).rejects.toThrow(/invalid masterchain seqno/);
    expect(await devnet.chain.getOldestAvailableSeqno()).toBe(1);
  });

  it('lists masterchain transactions first, then the shard block by lt', async () => {
    // genesis block 2 holds the root resolver top-up (masterchain) and the wallet fundings (basechain)
    const block = (await devnet.chain.getFinalizedBlock(2))!;
    const workchains = block.transactions.map((t) => t.block.workchain);
    expect(workchains[0]).toBe(-1);
    expect(workchains.slice(1).every((w) => w === 0)).toBe(true);
    const shardLts = block.transactions.slice(1).map((t) => t.lt);
    expect([...shardLts].sort((a, b) => (a < b ? -1 : 1))).toEqual(shardLts);
    for (const t of block.transactions) expect(t.mcSeqno).toBe(2);
    expect(block.transactions[0]!.account).toBe(devnet.directory.dns.rootId);
  });

  it('carries one hop per block, so a jetton transfer spans four blocks linked by message hashes', async () => {
    const start = devnet.chain.masterchainSeqno;
    const { transactions } = await runTrace(devnet.chain, () =>
      devnet.control.jettonSend({ from: 'carol', jetton: 'usdt', to: 'dave', amount: '1000000', comment: 'hop by hop' }),
    );
    // external → jetton wallet → recipient jetton wallet → (notification, excess)
    expect(transactions.map((t) => t.mcSeqno)).toEqual([start + 1, start + 2, start + 3, start + 4, start + 4]);
    for (let i = 1; i < transactions.length; i++) {
      const tx = transactions[i]!;
      const creator = transactions.find((t) => t.outMessages.some((m) => m.hash === tx.inMessage!.hash));
      expect(creator, `creator of ${tx.hash}`).toBeDefined();
      expect(creator!.mcSeqno).toBe(tx.mcSeqno - 1);
      expect(creator!.lt).toBeLessThan(tx.inMessage!.createdLt + 1n);
    }
  });

  it('walks an account history back by (lt, hash), at most 16 per call', async () => {
    const alice = wallet('alice');
    for (let i = 0; i < 11; i++) await devnet.control.send({ from: 'alice', to: 'bob', amount: '1000000', comment: `tick ${i}` });
    await settle(devnet.chain);
    const state = await devnet.chain.getAccountState(alice.id);
    const all: TransactionModel[] = [];
    let cursor = { lt: state.lastTxLt, hash: state.lastTxHash };
    for (;;) {
      const page = await devnet.chain.getTransactions(alice.id, cursor.lt, cursor.hash, 7);
      expect(page.length).toBeLessThanOrEqual(7);
      expect(page[0]!.lt).toBe(cursor.lt);
      all.push(...page);
      const last = page[page.length - 1]!;
      if (last.prevLt === 0n) break;
      cursor = { lt: last.prevLt, hash: last.prevHash };
    }
    for (let i = 1; i < all.length; i++) {
      expect(all[i]!.lt).toBe(all[i - 1]!.prevLt);
      expect(all[i]!.hash).toBe(all[i - 1]!.prevHash);
    }
    expect(all.length).toBeGreaterThan(12);
    expect(all.at(-1)!.inMessage!.decoded).toMatchObject({ kind: 'text_comment', text: 'devnet genesis funding' });
    const capped = await devnet.chain.getTransactions(alice.id, state.lastTxLt, state.lastTxHash, 1000);
    expect(capped).toHaveLength(MAX_TRANSACTIONS_PER_CALL);
    await expect(devnet.chain.getTransactions(alice.id, state.lastTxLt, '00'.repeat(32))).rejects.toThrow(/not on the devnet chain/);
  });
});

describe('devnet get-methods', () => {
  it('returns non-zero exit codes instead of throwing', async () => {
    const alice = wallet('alice');
    const seqno = await devnet.chain.runGetMethod(alice.id, 'seqno');
    expect(seqno.exitCode).toBe(0);
    expect(seqno.stack[0]?.type).toBe('int');
    const missing = await devnet.chain.runGetMethod(alice.id, 'no_such_method');
    expect(missing.exitCode).toBe(11);
    const nobody = await devnet.chain.runGetMethod(`0:${'ab'.repeat(32)}`, 'seqno');
    expect(nobody.exitCode).toBe(ACCOUNT_NOT_ACTIVE_EXIT_CODE);
  });
});

describe('devnet mempool', () => {
  it('emulates a message: involved accounts listed, nothing changes', async () => {
    const [alice, bob] = [wallet('alice'), wallet('bob')];
    const before = [await devnet.chain.getAccountState(alice.id), await devnet.chain.getAccountState(bob.id)];
    const boc = await transfer(alice, bob, toNano('2'));
    const result = await devnet.chain.emulateMessage(boc);
    expect(result.involvedAccounts).toEqual([alice.id, bob.id].sort());
    expect(result.transactions).toHaveLength(2);
    expect(result.transactions[1]!.inMessage!.value).toBe(toNano('2'));
    expect(result.transactions[1]!.inMessage!.hash).toBe(result.transactions[0]!.outMessages[0]!.hash);
    expect(await devnet.chain.getAccountState(alice.id)).toEqual(before[0]);
    expect(await devnet.chain.getAccountState(bob.id)).toEqual(before[1]);
    expect(await devnet.chain.getPendingMessages()).toEqual([]);
  });

  it('admits a message with its involved accounts, tells listeners, executes it in the next block', async () => {
    const [alice, carol] = [wallet('alice'), wallet('carol')];
    const heard: PendingMessage[] = [];
    const unsubscribe = devnet.chain.onPendingMessage((m) => heard.push(m));
    const boc = await transfer(alice, carol, toNano('3'));
    const { hash } = await devnet.chain.sendExternalMessage(boc);
    unsubscribe();
    const pending = await devnet.chain.getPendingMessages();
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ hash, destination: alice.id, involvedAccounts: [alice.id, carol.id].sort() });
    expect(Buffer.from(pending[0]!.boc, 'base64').equals(boc)).toBe(true);
    expect(heard.map((m) => m.hash)).toEqual([hash]);
    // a second message from the same wallet (the seqno after the pending one) is accepted for the same block
    const next = await devnet.chain.sendExternalMessage(await transfer(alice, carol, toNano('1')));
    await expect(devnet.chain.sendExternalMessage(boc)).rejects.toMatchObject({ code: 'duplicate' });
    const carolBefore = (await devnet.chain.getAccountState(carol.id)).balance;
    const head = await devnet.chain.produceBlock();
    expect(await devnet.chain.getPendingMessages()).toEqual([]);
    const block = (await devnet.chain.getFinalizedBlock(head.seqno))!;
    expect(block.transactions.map((t) => t.inMessage!.hash)).toEqual([hash, next.hash]);
    await settle(devnet.chain);
    const credited = (await transactionsAfter(devnet.chain, head.seqno)).filter((t) => t.account === carol.id);
    expect(credited.map((t) => [t.inMessage!.value, t.inbound])).toEqual([
      [toNano('3'), 'credited'],
      [toNano('1'), 'credited'],
    ]);
    // storage fees since carol's last transaction come off the credit
    const gained = (await devnet.chain.getAccountState(carol.id)).balance - carolBefore;
    expect(gained).toBeLessThanOrEqual(toNano('4'));
    expect(gained).toBeGreaterThan(toNano('3.99'));
    await expect(devnet.chain.sendExternalMessage(boc)).rejects.toThrow(/already on chain/);
  });

  it('refuses a message the wallet would reject, with a clear error, and never shows it', async () => {
    const [alice, bob] = [wallet('alice'), wallet('bob')];
    const forged: DevnetWallet = { ...alice, privateKey: bob.privateKey };
    const cell = await signedTransfer(forged, {
      seqno: nextSeqno(alice),
      now: devnet.chain.now(),
      messages: [internal({ to: bob.address, value: toNano('1'), bounce: false })],
    });
    const refusal = devnet.chain.sendExternalMessage(cell.toBoc());
    await expect(refusal).rejects.toBeInstanceOf(ChainRejectedError);
    await expect(refusal).rejects.toThrow(new RegExp(`account ${alice.id} did not accept the external message \\(exit code 35\\)`));
    await expect(refusal).rejects.toMatchObject({ code: 'not_accepted' });
    expect(await devnet.chain.getPendingMessages()).toEqual([]);
    // a stale seqno is refused the same way
    await expect(devnet.chain.sendExternalMessage(await transfer(alice, bob, 1n, -1))).rejects.toMatchObject({ code: 'not_accepted' });
  });

  it('refuses bytes that are not an external message', async () => {
    await expect(devnet.chain.sendExternalMessage(Buffer.from('not a boc'))).rejects.toMatchObject({ code: 'invalid_boc' });
    const notMessage = beginCell().storeUint(7, 3).endCell().toBoc();
    await expect(devnet.chain.sendExternalMessage(notMessage)).rejects.toMatchObject({ code: 'invalid_message' });
    const internalMessage = beginCell()
      .store((b) => b.storeUint(0, 1))
      .endCell();
    await expect(devnet.chain.sendExternalMessage(internalMessage.toBoc())).rejects.toBeInstanceOf(ChainRejectedError);
  });
});

describe('devnet options', () => {
  it('refuses a block interval under the minimum', () => {
    expect(() => new DevnetChain({ dataDir: devnet.dataDir, blockIntervalMs: MIN_BLOCK_INTERVAL_MS - 1 })).toThrow(RangeError);
  });

  it('produces empty blocks when nothing is queued', async () => {
    await settle(devnet.chain);
    const before = devnet.chain.masterchainSeqno;
    await devnet.chain.produceBlock();
    expect(await transactionsAfter(devnet.chain, before)).toEqual([]);
  });
});
