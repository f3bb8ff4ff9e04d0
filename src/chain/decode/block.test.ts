// Full mainnet blocks (test/fixtures/mainnet, see its README): hashes and fields that other tools recorded.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beginCell, Cell } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { decodeBlock } from './block.js';
import { CellLayoutError } from './reader.js';

const dir = new URL('../../../test/fixtures/mainnet/blocks/', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, dir));

interface ExpectedTx {
  AccountAddr: string;
  Lt: number;
  PrevTransHash: string;
  PrevTransLt: number;
  Now: number;
  OutMsgCnt: number;
  OrigStatus: string;
  EndStatus: string;
}
const expected = JSON.parse(read('tongo-block-5.expected.json').toString()) as {
  Accounts: Record<string, { Transactions: Record<string, ExpectedTx> }>;
  TxHashes: string[];
};

const FIXTURES = [
  { file: 'tongo-block-4.boc', workchain: 0, shard: '0d83800000000000', seqno: 4168601 },
  { file: 'tongo-block-5.boc', workchain: -1, shard: '8000000000000000', seqno: 17734191, rootHash: '04c2c26fa7f6f84255d142ff2c4f98666db56879911fc2e83b3a284f20ca48ec' },
  { file: 'tongo-block-6.boc', workchain: 0, shard: 'a000000000000000', seqno: 54302208 },
  { file: 'tongo-block-7.boc', workchain: 0, shard: 'a000000000000000', seqno: 54302203 },
  { file: 'block_0_8000000000000000_34703989.boc', workchain: 0, shard: '8000000000000000', seqno: 34703989, rootHash: '84753a60efefc7169959fdf34ea21f3fa9f5a85c3a8690db77b1f141e0ff47ee', utime: 1682417974 },
];

describe('decodeBlock on mainnet blocks', () => {
  it('reproduces every transaction of tongo-block-5 (hashes, accounts, lt, prev hash, status)', () => {
    const block = decodeBlock(read('tongo-block-5.boc'));
    expect(block.transactions.map((t) => t.hash).sort()).toEqual([...expected.TxHashes].sort());
    const flat = Object.values(expected.Accounts).flatMap((a) => Object.values(a.Transactions));
    expect(block.transactions).toHaveLength(flat.length);
    for (const e of flat) {
      const tx = block.transactions.find((t) => t.account === `-1:${e.AccountAddr}` && t.lt === BigInt(e.Lt));
      expect(tx, `${e.AccountAddr}/${e.Lt}`).toBeDefined();
      expect(tx).toMatchObject({
        prevHash: e.PrevTransHash,
        prevLt: BigInt(e.PrevTransLt),
        utime: e.Now,
        origStatus: e.OrigStatus,
        endStatus: e.EndStatus,
        block: { workchain: -1, shard: '8000000000000000', seqno: 17734191 },
        mcSeqno: 17734191,
      });
      expect(tx!.outMessages).toHaveLength(e.OutMsgCnt);
    }
  });

  it('lists the shard blocks a masterchain block commits', () => {
    const block = decodeBlock(read('tongo-block-5.boc'));
    expect(block.shardBlocks!.length).toBeGreaterThan(0);
    for (const s of block.shardBlocks!) {
      expect(s.workchain).toBe(0);
      expect(s.shard).toMatch(/^[0-9a-f]{16}$/);
      expect(s.rootHash).toMatch(/^[0-9a-f]{64}$/);
      expect(s.regMcSeqno).toBeLessThanOrEqual(17734191);
      expect(s.endLt).toBeGreaterThan(s.startLt);
    }
    // Shards of one workchain partition the whole space: their sizes add up to 2^64.
    const total = block.shardBlocks!.reduce((sum, s) => {
      const id = BigInt(`0x${s.shard}`);
      return sum + (id & -id) * 2n;
    }, 0n);
    expect(total).toBe(2n ** 64n);
  });

  for (const f of FIXTURES) {
    it(`${f.file}: header, ordering, prev-hash chains and no unknown bodies`, () => {
      const bytes = read(f.file);
      const block = decodeBlock(bytes);
      const root = Cell.fromBoc(bytes)[0]!;
      expect(block.header).toMatchObject({ workchain: f.workchain, shard: f.shard, seqno: f.seqno, globalId: -239 });
      expect(block.header.rootHash).toBe(root.hash().toString('hex'));
      if (f.rootHash) expect(block.header.rootHash).toBe(f.rootHash);
      if (f.utime) expect(block.header.genUtime).toBe(f.utime);
      expect(block.header.fileHash).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(block.header.startLt).toBeLessThanOrEqual(block.header.endLt);
      expect(block.shardBlocks !== undefined).toBe(f.workchain === -1);

      const txs = block.transactions;
      for (let i = 1; i < txs.length; i++) {
        const [a, b] = [txs[i - 1]!, txs[i]!];
        expect(a.lt < b.lt || (a.lt === b.lt && a.account < b.account), `order at ${i}`).toBe(true);
      }
      // Within a block, an account's transactions chain by prev hash: none is missing in between.
      const byAccount = new Map<string, typeof txs>();
      for (const t of txs) byAccount.set(t.account, [...(byAccount.get(t.account) ?? []), t]);
      for (const list of byAccount.values()) {
        for (let i = 1; i < list.length; i++) {
          expect(list[i]!.prevHash).toBe(list[i - 1]!.hash);
          expect(list[i]!.prevLt).toBe(list[i - 1]!.lt);
        }
      }
      for (const t of txs) {
        expect(t.lt >= block.header.startLt && t.lt <= block.header.endLt).toBe(true);
        for (const m of [t.inMessage, ...t.outMessages]) {
          if (m) expect(m.decoded.kind, `${t.hash} ${m.hash}`).not.toBe('unknown');
        }
      }
    });
  }

  it('finds the body kinds real blocks carry (comments, jetton transfers, excesses)', () => {
    const kinds = new Map<string, number>();
    for (const f of FIXTURES) {
      for (const t of decodeBlock(read(f.file)).transactions) {
        for (const m of [t.inMessage, ...t.outMessages]) if (m) kinds.set(m.decoded.kind, (kinds.get(m.decoded.kind) ?? 0) + 1);
      }
    }
    // Printed so that a reader of the test log sees what real data exercised.
    console.log('decoded body kinds over all fixture blocks:', Object.fromEntries(kinds));
    for (const kind of ['text_comment', 'jetton_transfer', 'jetton_internal_transfer', 'excess', 'binary', 'empty']) {
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThan(0);
    }
    expect(kinds.get('unknown') ?? 0).toBe(0);
  });

  it('stamps the committing masterchain seqno given by the caller, and accepts a root cell', () => {
    const bytes = read('tongo-block-6.boc');
    const plain = decodeBlock(bytes);
    expect(plain.transactions[0]!.mcSeqno).toBe(plain.header.masterRef!.seqno);
    const stamped = decodeBlock(Cell.fromBoc(bytes)[0]!, { mcSeqno: 49444060, fileHash: plain.header.fileHash });
    expect(stamped.header).toEqual(plain.header);
    expect(stamped.transactions.every((t) => t.mcSeqno === 49444060)).toBe(true);
    expect(stamped.transactions.map((t) => t.hash)).toEqual(plain.transactions.map((t) => t.hash));
  });

  it('rejects what is not a block with a clear error', () => {
    expect(() => decodeBlock(beginCell().storeUint(0xdeadbeef, 32).endCell())).toThrow(/not a block: tag 0xdeadbeef/);
    expect(() => decodeBlock(beginCell().storeUint(0x11ef55aa, 32).endCell())).toThrow(CellLayoutError);
    expect(() => decodeBlock(Buffer.from('garbage'))).toThrow();
  });
});
