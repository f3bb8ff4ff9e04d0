// Round trips of the state storers on real mainnet state proofs (test/fixtures/mainnet/proofs): the parts a
// proof prunes stay cells, so load → store gives the same hash as the proven state.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Address, beginCell, Cell, storeAccount, type Builder } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { buildOldMcBlocks, loadMcStateExtra, loadOldMcBlocks, storeMcStateExtra } from './mc-state-extra.js';
import { shardTreeLeaves } from './shard-descr.js';
import { HashmapCache } from './hashmap.js';
import { loadShardAccounts, loadShardStateUnsplit, shardAccountEntryOf, storeShardAccounts, storeShardStateUnsplit, type DepthBalance } from './shard-state.js';

const dir = new URL('../../../test/fixtures/mainnet/proofs/', import.meta.url);
/** The proven cell of each root of a proof BoC (the Merkle proof's ref). */
const proven = (file: string) => Cell.fromBoc(readFileSync(new URL(file, dir))).map((root) => root.refs[0]!);
const rebuilt = (store: (b: Builder) => void) => beginCell().store(store).endCell();
const hex = (c: Cell) => c.hash().toString('hex');

describe('ShardStateUnsplit and McStateExtra round-trip real states', () => {
  it('masterchain state of 31220993 (shard_proof): state, McStateExtra, shard descr of 36908135', () => {
    const state = proven('shard_proof_mc31220993.boc')[1]!;
    const loaded = loadShardStateUnsplit(state.beginParse());
    expect(loaded.shard.workchainId).toBe(-1);
    expect(hex(rebuilt(storeShardStateUnsplit(loaded)))).toBe(hex(state));
    const extra = loadMcStateExtra(loaded.custom!.beginParse());
    expect(hex(rebuilt(storeMcStateExtra(extra)))).toBe(hex(loaded.custom!));
    const leaves = shardTreeLeaves(extra.shardHashes.get(0)!);
    expect(leaves.map((l) => l.descr.seqno)).toContain(36908135);
    expect(leaves.find((l) => l.descr.seqno === 36908135)!.descr.rootHash.toString('hex')).toMatch(/^39e5cbca/);
  });

  for (const file of ['account_proof_EQBvW8.boc', 'account_proof_shard31618192.boc']) {
    it(`basechain state of ${file}`, () => {
      const state = proven(file)[1]!;
      const loaded = loadShardStateUnsplit(state.beginParse());
      expect(loaded.shard.workchainId).toBe(0);
      expect(hex(rebuilt(storeShardStateUnsplit(loaded)))).toBe(hex(state));
    });
  }

  it('ShardAccounts: what storeShardAccounts writes loads back, fork extras summing the balances', () => {
    const account = beginCell().storeBit(0).endCell(); // account_none
    const entries = [3n, 1n << 255n, 7n, (1n << 255n) + 1n].map((address, i) => ({
      address, account, lastTransHash: Buffer.alloc(32, i), lastTransLt: BigInt(i + 1), splitDepth: 0, balance: { coins: BigInt(100 * (i + 1)) },
    }));
    const { cell, total } = storeShardAccounts(entries);
    expect(total.coins).toBe(1000n);
    const back = loadShardAccounts(cell);
    expect(back.map((e) => e.address)).toEqual([3n, 7n, 1n << 255n, (1n << 255n) + 1n]);
    expect(back.map((e) => e.balance.coins)).toEqual([100n, 300n, 200n, 400n]);
    expect(hex(storeShardAccounts(back).cell)).toBe(hex(cell));
  });

  it('ShardAccounts with a cache: the same cell as a full build after changes, additions and removals', () => {
    const account = beginCell().storeBit(0).endCell();
    const entry = (address: bigint, coins: bigint) => ({ address, account, lastTransHash: Buffer.alloc(32), lastTransLt: coins, splitDepth: 0, balance: { coins } });
    const cache = new HashmapCache<DepthBalance>();
    let entries = Array.from({ length: 40 }, (_, i) => entry(BigInt(i) * 0x0123456789abcdefn << 180n, BigInt(i)));
    const rounds = [
      (e: typeof entries) => e.map((x, i) => (i === 7 ? entry(x.address, 1000n) : x)), // one changed
      (e: typeof entries) => [...e, entry(5n, 5n), entry((1n << 256n) - 1n, 9n)], // two added
      (e: typeof entries) => e.filter((_, i) => i !== 3), // one removed
      (e: typeof entries) => e, // nothing changed
    ];
    expect(hex(storeShardAccounts(entries, cache).cell)).toBe(hex(storeShardAccounts(entries).cell));
    for (const round of rounds) {
      entries = round(entries);
      expect(hex(storeShardAccounts(entries, cache).cell)).toBe(hex(storeShardAccounts(entries).cell));
    }
    // Unchanged subtrees are the very cells of the previous build.
    const before = storeShardAccounts(entries, cache).cell;
    expect(storeShardAccounts(entries, cache).cell.refs[0]!.refs[0]).toBe(before.refs[0]!.refs[0]);
  });

  it('a long-lived cache: 60 rounds of changes and additions give a full build’s cell, rebuild only what changed, stay bounded', () => {
    const account = beginCell().storeBit(0).endCell();
    const entry = (address: bigint, coins: bigint) => ({ address, account, lastTransHash: Buffer.alloc(32), lastTransLt: coins, splitDepth: 0, balance: { coins } });
    const address = (i: number) => BigInt(`0x${createHash('sha256').update(`cache/${i}`).digest('hex')}`);
    const cache = new HashmapCache<DepthBalance>();
    const entries = new Map(Array.from({ length: 200 }, (_, i) => [address(i), entry(address(i), BigInt(i))]));
    let previous = storeShardAccounts([...entries.values()], cache).cell;
    for (let round = 1; round <= 60; round++) {
      // three accounts change (spread over the map), and every third round one is added
      for (const k of [round * 7, round * 13 + 1, round * 29 + 2]) {
        const key = [...entries.keys()][k % entries.size]!;
        entries.set(key, entry(key, BigInt(round * 1000 + k)));
      }
      if (round % 3 === 0) entries.set(address(1000 + round), entry(address(1000 + round), 1n));
      const built = storeShardAccounts([...entries.values()], cache).cell;
      expect(hex(built)).toBe(hex(storeShardAccounts([...entries.values()]).cell));
      // cells new in this build: the paths to the changed accounts, not the whole map (≈ 2 cells per entry)
      const seen = new Set<Cell>();
      const fresh = (c: Cell): number => (seen.has(c) ? 0 : (seen.add(c), 1 + c.refs.reduce((n, r) => n + fresh(r), 0)));
      fresh(previous);
      expect(fresh(built)).toBeLessThan(4 * 12);
      previous = built;
    }
    expect((cache as unknown as { cells: Map<string, unknown> }).cells.size).toBeLessThanOrEqual(4 * entries.size + 64);
  });

  it('shardAccountEntryOf keeps the Account cell and reads its balance', () => {
    const addr = Address.parseRaw(`0:${'ab'.repeat(32)}`);
    const account = beginCell()
      .storeBit(1) // account$1
      .store(storeAccount({
        addr,
        storageStats: { used: { cells: 1n, bits: 8n }, storageExtra: null, lastPaid: 1, duePayment: null },
        storage: { lastTransLt: 7n, balance: { coins: 5873792469n }, state: { type: 'uninit' } },
      }))
      .endCell();
    const shardAccount = beginCell().storeRef(account).storeBuffer(Buffer.alloc(32, 1)).storeUint(6n, 64).endCell();
    const entry = shardAccountEntryOf(42n, shardAccount);
    expect(entry).toMatchObject({ address: 42n, lastTransLt: 6n, balance: { coins: 5873792469n } });
    expect(entry.account).toBe(shardAccount.refs[0]);
    const none = shardAccountEntryOf(43n, beginCell().storeRef(beginCell().storeBit(0)).storeBuffer(Buffer.alloc(32)).storeUint(0, 64).endCell());
    expect(none.balance.coins).toBe(0n);
  });

  it('OldMcBlocksInfo: built entries load back; the total marks key blocks and the max end lt', () => {
    const ref = (seqno: number) => ({ endLt: BigInt(seqno) * 10n, seqno, rootHash: Buffer.alloc(32, seqno), fileHash: Buffer.alloc(32, 255 - seqno) });
    const blocks = [1, 2, 3, 4, 5].map((n) => ({ key: n === 3, ref: ref(n) }));
    const info = buildOldMcBlocks(blocks);
    expect(info.total).toEqual({ key: true, maxEndLt: 50n });
    expect(loadOldMcBlocks(info)).toEqual(blocks);
  });
});
