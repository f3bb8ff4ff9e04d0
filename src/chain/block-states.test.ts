// States read from a block's own state update: on real mainnet blocks each account the block touched is
// there with its last transaction being the block's last one of that account; on the devnet the state a
// non-final block shows is the state the chain reports for those accounts once that block is finalized.
import { readFileSync } from 'node:fs';
import { internal, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDevnet, type TestDevnet } from '../../test/support/devnet.js';
import { accountStatesAfterBlock, stateHashes } from './block-states.js';
import { decodeBlock } from './decode/block.js';
import { signedTransfer, walletSeqno } from './devnet/wallets.js';
import type { TransactionModel } from './model.js';
import type { NonFinalBlock } from './source.js';

const dir = new URL('../../test/fixtures/mainnet/blocks/', import.meta.url);
const read = (name: string) => readFileSync(new URL(name, dir));

/** The last transaction of each account in `txs` (lt order). */
const lastOfEach = (txs: TransactionModel[]) => new Map(txs.map((t) => [t.account, t]));

describe('accountStatesAfterBlock on mainnet blocks', () => {
  for (const file of ['tongo-block-5.boc', 'tongo-block-6.boc', 'tongo-block-7.boc', 'block_0_8000000000000000_34703989.boc']) {
    it(`${file}: every account with a transaction, at its last transaction of the block`, () => {
      const boc = read(file);
      const block = decodeBlock(boc);
      const last = lastOfEach(block.transactions);
      expect(last.size).toBeGreaterThan(0);
      const states = accountStatesAfterBlock(boc, block.header.rootHash, last.keys());
      expect([...states.keys()].sort()).toEqual([...last.keys()].sort());
      for (const [account, state] of states) {
        const tx = last.get(account)!;
        expect({ lt: state.lastTxLt, hash: state.lastTxHash, status: state.status }).toEqual({ lt: tx.lt, hash: tx.hash, status: tx.endStatus });
        if (state.status === 'active') expect(state.codeHash).toMatch(/^[0-9a-f]{64}$/);
      }
    });
  }

  it('an account the block did not touch is left out (pruned on the new side), one of another workchain too', () => {
    const boc = read('tongo-block-6.boc');
    const block = decodeBlock(boc);
    const untouched = `0:${'ab'.repeat(32)}`;
    const states = accountStatesAfterBlock(boc, block.header.rootHash, [untouched, `-1:${'33'.repeat(32)}`, block.transactions[0]!.account]);
    expect([...states.keys()]).toEqual([block.transactions[0]!.account]);
  });

  it('a BoC that is not the named block is refused', () => {
    const boc = read('tongo-block-6.boc');
    const other = decodeBlock(read('tongo-block-7.boc')).header.rootHash;
    expect(() => accountStatesAfterBlock(boc, other, [])).toThrow(/not/);
  });
});

describe('accountStatesAfterBlock on the devnet', () => {
  let devnet: TestDevnet;
  beforeAll(async () => {
    devnet = await openTestDevnet({ confirmationLagMs: 500 });
    await devnet.chain.produceBlock();
  }, 120_000);
  afterAll(async () => {
    await devnet?.close();
  });

  it("a non-final block's states are the states the chain reports after it is finalized", async () => {
    const alice = devnet.directory.wallets.find((w) => w.name === 'alice')!;
    const bob = devnet.directory.wallets.find((w) => w.name === 'bob')!;
    const seqno = walletSeqno(alice.version, devnet.chain.pendingAccount(alice.id).data);
    const transfer = await signedTransfer(alice, { seqno, now: devnet.chain.now(), messages: [internal({ to: bob.address, value: toNano('0.3'), bounce: false })] });
    const shown: Array<{ block: NonFinalBlock; states: ReturnType<typeof accountStatesAfterBlock>; finalizedBefore: number }> = [];
    const stop = devnet.chain.onNonFinalBlock((block) => {
      if (!block.boc) return;
      shown.push({ block, states: accountStatesAfterBlock(block.boc, block.id.rootHash, block.transactions.map((t) => t.account)), finalizedBefore: devnet.chain.masterchainSeqno });
    });
    try {
      await devnet.chain.sendExternalMessage(transfer.toBoc());
      const head = await devnet.chain.produceBlock();
      const withAlice = shown.find((s) => s.block.transactions.some((t) => t.account === alice.id));
      expect(withAlice, 'a non-final block with the transfer').toBeDefined();
      // read before the masterchain block that commits it
      expect(withAlice!.finalizedBefore).toBeLessThan(head.seqno);
      const last = lastOfEach(withAlice!.block.transactions);
      expect([...withAlice!.states.keys()].sort()).toEqual([...last.keys()].sort());
      for (const [account, state] of withAlice!.states) {
        expect(state).toEqual(stateHashes(await devnet.chain.getAccountState(account)));
        expect(state.lastTxLt).toBe(last.get(account)!.lt);
      }
      expect(withAlice!.states.get(alice.id)!.balance).toBeGreaterThan(0n);
    } finally {
      stop();
    }
  }, 60_000);
});
