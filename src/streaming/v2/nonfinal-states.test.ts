// The non-final states book on real mainnet blocks: an account's state after its last transaction of a
// block, none after an earlier one; blocks without a BoC, or whose BoC is not their id, give none; the byte
// bound drops the oldest block. The state reader takes a confirmed state from the book even when the book
// hears the block after the reader was asked (the same source call feeds both).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeBlock } from '../../chain/decode/block.js';
import type { NonFinalBlock } from '../../chain/source.js';
import { NonFinalStates } from './nonfinal-states.js';
import { V2StateReader } from './states.js';

const dir = new URL('../../../test/fixtures/mainnet/blocks/', import.meta.url);
const shown = (file: string): NonFinalBlock => {
  const boc = readFileSync(new URL(file, dir));
  const { header, transactions } = decodeBlock(boc);
  const { workchain, shard, seqno, rootHash, fileHash } = header;
  return { id: { workchain, shard, seqno, rootHash, fileHash }, genUtime: header.genUtime, signed: true, transactions, boc };
};

describe('NonFinalStates', () => {
  const block = shown('block_0_8000000000000000_34703989.boc');
  // an account with more than one transaction in the block: its last one, and one before it
  const busy = block.transactions.find((t) => block.transactions.filter((u) => u.account === t.account).length > 1)!;
  const ofBusy = block.transactions.filter((t) => t.account === busy.account);
  const last = ofBusy[ofBusy.length - 1]!;

  it("an account's state after its last transaction of the block, none after an earlier one", () => {
    const book = new NonFinalStates();
    book.add(block);
    const state = book.stateAfter(last)!;
    expect(state).toMatchObject({ address: last.account, lastTxLt: last.lt, lastTxHash: last.hash, status: last.endStatus });
    expect(book.stateAfter(ofBusy[0]!)).toBeNull();
    expect(book.unreadable).toBe(0);
  });

  it('a block without a BoC, or whose BoC is another block, gives no state', () => {
    const book = new NonFinalStates();
    book.add({ ...block, boc: undefined });
    expect(book.size).toBe(0);
    expect(book.stateAfter(last)).toBeNull();
    book.add({ ...block, boc: shown('tongo-block-6.boc').boc });
    expect(book.stateAfter(last)).toBeNull();
    expect(book.unreadable).toBe(1);
  });

  it('the byte bound drops the oldest block first', () => {
    const other = shown('tongo-block-6.boc');
    const book = new NonFinalStates(block.boc!.length + other.boc!.length - 1);
    book.add(block);
    book.add(other);
    expect(book.size).toBe(1);
    expect(book.stateAfter(last)).toBeNull();
    const tx = other.transactions[other.transactions.length - 1]!;
    expect(book.stateAfter(tx)?.lastTxLt).toBe(tx.lt);
  });

  it('the state reader finds a confirmed state the book hears of right after the reader is asked', async () => {
    const book = new NonFinalStates();
    const unread = () => Promise.reject(new Error('the source is not read when the block holds the state'));
    const reader = new V2StateReader({ getAccountState: unread, getTransactions: unread, runGetMethod: unread }, 5_000, book);
    const notice = reader.accountState(last, 'confirmed');
    book.add(block);
    const payload = JSON.parse((await notice)!.payload);
    expect(payload).toMatchObject({ type: 'account_state_change', finality: 'confirmed', state: { balance: book.stateAfter(last)!.balance.toString() } });
  });
});
