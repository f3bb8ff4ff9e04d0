import { Cell, convertToMerkleProof } from '@ton/core';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { proveOnly } from '../../../../test/support/merkle.js';
import { mainnetFixture, proofFailure } from '../../../../test/support/proofs.js';
import { readTransactionCells } from '../../decode/block.js';
import { checkTransactionHistory, checkTransactionInBlock } from './transactions.js';

// Mainnet masterchain block 17734191; tongo's expected.json (independent of our decoders) lists its
// transactions per account with their prev_trans_hash, and all six transaction hashes.
const bytes = mainnetFixture('blocks/tongo-block-5.boc');
const expected = JSON.parse(readFileSync(new URL('../../../../test/fixtures/mainnet/blocks/tongo-block-5.expected.json', import.meta.url), 'utf8')) as {
  Accounts: Record<string, { Transactions: Record<string, { Lt: number; PrevTransHash: string; PrevTransLt: number }> }>;
  TxHashes: string[];
};
const block = Cell.fromBoc(bytes)[0]!;
const MC = { workchain: -1, shard: '8000000000000000', seqno: 17734191, rootHash: '04c2c26fa7f6f84255d142ff2c4f98666db56879911fc2e83b3a284f20ca48ec' };
const ELECTOR = '3333333333333333333333333333333333333333333333333333333333333333';
const CONFIG = '5555555555555555555555555555555555555555555555555555555555555555';
const OTHER = '34517c7bdf5187c55af4f8b61fdc321588c7ab768dee24b006df29106458d7cf';
const txCells = readTransactionCells(block.refs[3]!.refs[2]!);
const hashOf = (c: Cell) => c.hash(0).toString('hex');
/** The transaction cell of `account` at `lt`, found by the bits tongo's file names (account_addr, lt). */
const txAt = (account: string, lt: bigint) => txCells.find((c) => c.beginParse().skip(4).loadBuffer(32).toString('hex') === account && c.beginParse().skip(4 + 256).loadUintBig(64) === lt)!;

describe('(d) transaction history by the prev_trans_hash chain (mainnet block 17734191)', () => {
  const newest = txAt(ELECTOR, 24836995000002n);
  const oldest = txAt(ELECTOR, 24836995000001n);

  it("follows the elector's two transactions and ends at the prev hash tongo lists", () => {
    expect(expected.TxHashes).toContain(hashOf(newest));
    const history = checkTransactionHistory([newest, oldest], { hash: hashOf(newest), lt: 24836995000002n }, ELECTOR);
    expect(history.map((t) => t.lt)).toEqual([24836995000002n, 24836995000001n]);
    const first = expected.Accounts[ELECTOR]!.Transactions['24836995000001']!;
    expect(history[1]!.prevHash).toBe(first.PrevTransHash);
    expect(history[1]!.prevLt).toBe(BigInt(first.PrevTransLt));
    expect(checkTransactionHistory([], { hash: hashOf(newest), lt: 24836995000002n }, ELECTOR)).toEqual([]);
  });

  it('fails naming the link: a wrong last_trans_hash, a truncated history, a foreign transaction, a wrong lt', () => {
    const from = { hash: hashOf(newest), lt: 24836995000002n };
    expect(proofFailure(() => checkTransactionHistory([newest, oldest], { ...from, hash: hashOf(oldest) }, ELECTOR))).toMatchObject({ check: 'history.prev_trans_hash', failure: 'mismatch' });
    expect(proofFailure(() => checkTransactionHistory([oldest], from, ELECTOR))).toMatchObject({ check: 'history.prev_trans_hash' });
    // The other account's two transactions with the first one left out: the chain breaks at index 0.
    const other3 = txAt(OTHER, 24836995000003n);
    const other1 = txAt(OTHER, 24836995000001n);
    expect(checkTransactionHistory([other3, other1], { hash: hashOf(other3), lt: 24836995000003n }, OTHER)).toHaveLength(2);
    expect(proofFailure(() => checkTransactionHistory([other1], { hash: hashOf(other3), lt: 24836995000003n }, OTHER))).toMatchObject({ check: 'history.prev_trans_hash' });
    const config = txAt(CONFIG, 24836995000003n);
    expect(proofFailure(() => checkTransactionHistory([config], { hash: hashOf(config), lt: 24836995000003n }, ELECTOR))).toMatchObject({ check: 'history.account' });
    expect(proofFailure(() => checkTransactionHistory([newest], { hash: hashOf(newest), lt: 24836995000001n }, ELECTOR))).toMatchObject({ check: 'history.lt' });
  });
});

describe('(d) transaction inclusion: account_blocks → acc_trans → the transaction', () => {
  const tx = txAt(ELECTOR, 24836995000002n);
  const proof = proveOnly(block, (c) => c === tx);

  it('proves a transaction through a block proof that keeps only its path', () => {
    const cell = checkTransactionInBlock(proof, MC, ELECTOR, 24836995000002n, hashOf(tx));
    expect(hashOf(cell)).toBe(hashOf(tx));
    // The whole block as a proof proves every transaction tongo lists.
    const whole = convertToMerkleProof(block);
    for (const [account, { Transactions }] of Object.entries(expected.Accounts)) {
      for (const lt of Object.keys(Transactions)) {
        const found = checkTransactionInBlock(whole, MC, account, BigInt(lt), hashOf(txAt(account, BigInt(lt))));
        expect(expected.TxHashes).toContain(hashOf(found));
      }
    }
  });

  it('fails naming the link: another hash, an lt or account the proof does not reach, one the block lacks', () => {
    expect(proofFailure(() => checkTransactionInBlock(proof, MC, ELECTOR, 24836995000002n, hashOf(txAt(ELECTOR, 24836995000001n))))).toMatchObject({ check: 'transaction.hash', failure: 'mismatch' });
    expect(proofFailure(() => checkTransactionInBlock(proof, MC, ELECTOR, 24836995000001n, hashOf(tx)))).toMatchObject({ check: 'transaction.acc_trans', failure: 'not-proven' });
    expect(proofFailure(() => checkTransactionInBlock(proof, MC, CONFIG, 24836995000003n, hashOf(tx)))).toMatchObject({ check: 'transaction.account_blocks', failure: 'not-proven' });
    const whole = convertToMerkleProof(block);
    expect(proofFailure(() => checkTransactionInBlock(whole, MC, ELECTOR, 24836995000007n, hashOf(tx)))).toMatchObject({ check: 'transaction.acc_trans', failure: 'mismatch' });
    expect(proofFailure(() => checkTransactionInBlock(whole, MC, '00'.repeat(32), 1n, hashOf(tx)))).toMatchObject({ check: 'transaction.account_blocks', failure: 'mismatch' });
    expect(proofFailure(() => checkTransactionInBlock(proof, { ...MC, rootHash: hashOf(tx) }, ELECTOR, 24836995000002n, hashOf(tx)))).toMatchObject({ check: 'transaction.block.root_hash' });
  });
});
