// A synthetic incoming transfer as a real Transaction cell (@ton/core storeTransaction): the receiver's
// ordinary transaction for one internal message, and the receiver's Account before and after it.
import {
  Address, beginCell, Dictionary, loadMessage, storeAccount, storeMessage, storeTransaction,
  type Cell, type DictionaryValue, type Message, type StateInit, type Transaction,
} from '@ton/core';
import type { ShardAccountEntry } from '../../tlb/shard-state.js';

export interface Transfer {
  from: Address;
  to: Address;
  amount: bigint;
  /** Message body; an empty cell when absent (a text comment is `0x00000000` + text). */
  body?: Cell;
  /** When a synthetic sender sent it (`SyntheticChain.send`): the credit carries the very message sent. */
  sent?: { createdLt: bigint; createdAt: number };
}

/** An account as the synthetic chain keeps it between blocks. */
export interface SyntheticAccount {
  address: Address;
  balance: bigint;
  lastTransHash: Buffer;
  lastTransLt: bigint;
  /** Account cell (`account_none$0` before the first transaction). */
  cell: Cell;
}

/** Code and data of every receiving account: an active contract, so transfers are ordinary successful ones. */
const RECEIVER_STATE: StateInit = { code: beginCell().storeUint(0, 8).endCell(), data: beginCell().endCell() };
// out_msgs:(HashmapE 15 ^(Message Any))
const OUT_MESSAGE: DictionaryValue<Message> = {
  serialize: (m, b) => void b.storeRef(beginCell().store(storeMessage(m))),
  parse: (s) => loadMessage(s.loadRef().beginParse()),
};
const ACCOUNT_NONE = beginCell().storeBit(0).endCell();

export function newAccount(address: Address): SyntheticAccount {
  return { address, balance: 0n, lastTransHash: Buffer.alloc(32), lastTransLt: 0n, cell: ACCOUNT_NONE };
}

function accountCell(address: Address, balance: bigint, lt: bigint, now: number): Cell {
  return beginCell()
    .storeBit(1) // account$1 (@ton/core's storeAccount writes the fields only)
    .store(
      storeAccount({
        addr: address,
        storageStats: { used: { cells: 2n, bits: 8n }, storageExtra: null, lastPaid: now, duePayment: null },
        storage: { lastTransLt: lt + 1n, balance: { coins: balance }, state: { type: 'active', state: RECEIVER_STATE } },
      }),
    )
    .endCell();
}

/** The internal message of `transfer`, created at `createdLt`. */
function transferMessage(transfer: Transfer, createdLt: bigint, createdAt: number, init: StateInit | null): Message {
  return {
    info: {
      type: 'internal', ihrDisabled: true, bounce: false, bounced: false, src: transfer.from, dest: transfer.to,
      value: { coins: transfer.amount }, ihrFee: 0n, forwardFee: 0n, createdLt, createdAt,
    },
    init,
    body: transfer.body ?? beginCell().endCell(),
  };
}

/**
 * An ordinary transaction of `account` at `lt` whose VM run succeeds, fees zero, leaving `balance`: the
 * parts every synthetic transaction shares; `parts` says how it was started and what it sent.
 */
function ordinaryTransaction(
  account: SyntheticAccount,
  balance: bigint,
  lt: bigint,
  now: number,
  parts: Pick<Transaction, 'inMessage'> & { outMessages: Message[]; credit: bigint | null },
): { cell: Cell; account: SyntheticAccount } {
  const after = accountCell(account.address, balance, lt, now);
  const outMessages = Dictionary.empty(Dictionary.Keys.Uint(15), OUT_MESSAGE);
  parts.outMessages.forEach((m, i) => outMessages.set(i, m));
  const sent = parts.outMessages.length;
  const tx: Transaction = {
    address: BigInt(`0x${account.address.hash.toString('hex')}`),
    lt,
    prevTransactionHash: BigInt(`0x${account.lastTransHash.toString('hex')}`),
    prevTransactionLt: account.lastTransLt,
    now,
    outMessagesCount: sent,
    oldStatus: account.lastTransLt === 0n ? 'non-existing' : 'active',
    endStatus: 'active',
    inMessage: parts.inMessage,
    outMessages,
    totalFees: { coins: 0n },
    stateUpdate: { oldHash: account.cell.hash(), newHash: after.hash() },
    description: {
      type: 'generic',
      creditFirst: parts.credit !== null,
      storagePhase: null,
      creditPhase: parts.credit === null ? null : { credit: { coins: parts.credit } },
      computePhase: {
        type: 'vm', success: true, messageStateUsed: false, accountActivated: account.lastTransLt === 0n,
        gasFees: 0n, gasUsed: 0n, gasLimit: 0n, gasCredit: null, mode: 0, exitCode: 0, exitArg: null, vmSteps: 1,
        vmInitStateHash: 0n, vmFinalStateHash: 0n,
      },
      actionPhase: sent === 0 ? null : {
        success: true, valid: true, noFunds: false, statusChange: 'unchanged', totalFwdFees: null, totalActionFees: null,
        resultCode: 0, resultArg: null, totalActions: sent, specActions: 0, skippedActions: 0, messagesCreated: sent,
        actionListHash: 0n, totalMessageSize: { cells: BigInt(sent), bits: 0n },
      },
      bouncePhase: null,
      aborted: false,
      destroyed: false,
    },
    raw: beginCell().endCell(),
    hash: () => Buffer.alloc(32),
  };
  const cell = beginCell().store(storeTransaction(tx)).endCell();
  return { cell, account: { address: account.address, balance, lastTransHash: cell.hash(), lastTransLt: lt, cell: after } };
}

/** The receiver's transaction at `lt` and its account afterwards. */
export function transferTransaction(account: SyntheticAccount, transfer: Transfer, lt: bigint, now: number): { cell: Cell; account: SyntheticAccount } {
  // A first message carries the receiver's code and data, as a real deployment would.
  const init = account.lastTransLt === 0n ? RECEIVER_STATE : null;
  const inMessage = transferMessage(transfer, transfer.sent?.createdLt ?? lt - 1n, transfer.sent?.createdAt ?? now, init);
  return ordinaryTransaction(account, account.balance + transfer.amount, lt, now, { inMessage, outMessages: [], credit: transfer.amount });
}

/**
 * The sender's transaction at `lt`: an external message makes its wallet send `transfer` as one internal
 * message (fees zero, as everywhere in the synthetic chain), and its account afterwards.
 */
export function sendTransaction(account: SyntheticAccount, transfer: Transfer, lt: bigint, now: number): { cell: Cell; account: SyntheticAccount } {
  const inMessage: Message = { info: { type: 'external-in', dest: account.address, importFee: 0n }, init: null, body: beginCell().endCell() };
  const out = transferMessage(transfer, lt + 1n, now, null);
  return ordinaryTransaction(account, account.balance - transfer.amount, lt, now, { inMessage, outMessages: [out], credit: null });
}

export function shardAccountEntry(account: SyntheticAccount): ShardAccountEntry {
  return {
    address: BigInt(`0x${account.address.hash.toString('hex')}`),
    account: account.cell,
    lastTransHash: account.lastTransHash,
    lastTransLt: account.lastTransLt,
    splitDepth: 0,
    balance: { coins: account.balance },
  };
}
