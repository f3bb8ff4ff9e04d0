// buildBlock and merkleUpdate on their own: the devnet's path (ready Transaction cells with their accounts),
// and a state update that carries only what changed.
import { Address, beginCell, Cell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { decodeBlock } from '../decode/index.js';
import { loadShardAccounts, loadShardStateUnsplit } from '../tlb/shard-state.js';
import { merkleUpdate } from './merkle-update.js';
import { SyntheticChain } from './testing/synthetic.js';
import { newAccount, shardAccountEntry, transferTransaction } from './testing/transfer.js';

/** Every cell of a tree, once. */
function cells(root: Cell): Cell[] {
  const seen = new Map<string, Cell>();
  const visit = (c: Cell) => {
    const h = c.hash().toString('hex');
    if (seen.has(h)) return;
    seen.set(h, c);
    c.refs.forEach(visit);
  };
  visit(root);
  return [...seen.values()];
}

describe('merkleUpdate', () => {
  it('prunes what both states share and keeps the hashes of both', () => {
    const shared = beginCell().storeUint(7, 32).storeRef(beginCell().storeUint(8, 32)).endCell();
    const from = beginCell().storeUint(1, 8).storeRef(shared).storeRef(beginCell().storeUint(2, 8)).endCell();
    const to = beginCell().storeUint(1, 8).storeRef(shared).storeRef(beginCell().storeUint(3, 8)).endCell();
    const update = merkleUpdate(from, to);
    const parsed = Cell.fromBoc(update.toBoc())[0]!; // @ton/core checks the exotic cell's hashes and depths
    expect(parsed.refs[0]!.hash(0).equals(from.hash())).toBe(true);
    expect(parsed.refs[1]!.hash(0).equals(to.hash())).toBe(true);
    const pruned = [...cells(parsed.refs[0]!), ...cells(parsed.refs[1]!)].filter((c) => c.isExotic);
    expect(pruned).toHaveLength(2); // `shared` on each side, nothing else
    expect(cells(parsed.refs[1]!).some((c) => !c.isExotic && c.bits.length === 32)).toBe(false);
  });
});

describe('SyntheticChain.addTransaction (ready transactions, as the devnet has them)', () => {
  it('puts the given Transaction cells and account states into the block and state', () => {
    const chain = new SyntheticChain();
    const to = chain.addressIn('8000000000000000', 5);
    const made = transferTransaction(newAccount(to), { from: chain.addressIn('8000000000000000', 6), to, amount: 42n }, 5_000_003n, 1_700_000_100);
    expect(chain.addTransaction(0, made.cell, shardAccountEntry(made.account))).toBe('8000000000000000');
    const step = chain.nextMasterchainBlock();
    const [shard] = step.shardBlocks;
    const decoded = decodeBlock(shard!.boc);
    expect(decoded.transactions.map((t) => [t.hash, t.lt])).toEqual([[made.cell.hash().toString('hex'), 5_000_003n]]);
    expect(decoded.header.startLt).toBeLessThanOrEqual(5_000_003n);
    expect(decoded.header.endLt).toBeGreaterThan(5_000_003n);
    const accounts = loadShardAccounts(loadShardStateUnsplit(shard!.state.beginParse()).accounts);
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.account.hash().equals(made.account.cell.hash())).toBe(true);
    expect(accounts[0]!.balance.coins).toBe(42n);
  });

  it('a transfer to a masterchain account lands in the masterchain block', () => {
    const chain = new SyntheticChain();
    const to = Address.parseRaw(`-1:${'33'.repeat(32)}`);
    expect(chain.transfer({ from: chain.addressIn('8000000000000000', 1), to, amount: 7n })).toBe('8000000000000000');
    const step = chain.nextMasterchainBlock();
    expect(step.shardBlocks).toHaveLength(0);
    const decoded = decodeBlock(step.masterchain.boc);
    expect(decoded.transactions.map((t) => [t.account, t.inMessage!.value, t.mcSeqno])).toEqual([[to.toRawString(), 7n, 1]]);
    expect(decoded.header.startLt).toBeGreaterThan(0n);
  });

  it('an update of a state with many accounts prunes the accounts a block did not touch', () => {
    const chain = new SyntheticChain();
    const from = chain.addressIn('8000000000000000', 0);
    for (let i = 1; i <= 30; i++) chain.transfer({ from, to: chain.addressIn('8000000000000000', i), amount: BigInt(i) });
    chain.nextMasterchainBlock();
    chain.transfer({ from, to: chain.addressIn('8000000000000000', 1), amount: 5n });
    const [shard] = chain.nextMasterchainBlock().shardBlocks;
    const update = shard!.root.refs[2]!;
    // The new side holds the one changed account; its 29 unchanged neighbours are pruned branches.
    expect(cells(update.refs[1]!).filter((c) => c.isExotic).length).toBeGreaterThan(0);
    expect(cells(update.refs[1]!).length).toBeLessThan(cells(shard!.state).length / 2);
  });
});
