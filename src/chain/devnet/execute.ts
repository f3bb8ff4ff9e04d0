// Executes one message on one account and reads what the chain needs from the resulting
// Transaction cell. Out-messages are kept as the exact cells inside the transaction, so the
// hash of an out-message equals the in-message hash of the transaction that consumes it.
import { Cell, Dictionary, loadCommonMessageInfo } from '@ton/core';
import type { AccountId, HashHex } from '../model.js';
import type { Emulator } from './emulator.js';
import { addressToRaw } from '../address.js';
import type { StateOverlay } from './state.js';

/** A message waiting to be executed: an accepted external or an internal created by a transaction. */
export interface QueuedMessage {
  hash: HashHex;
  cell: Cell;
  destination: AccountId;
  external: boolean;
}

export interface ExecutedTransaction {
  account: AccountId;
  workchain: number;
  cell: Cell;
  hash: HashHex;
  lt: bigint;
  /** End lt: lt + 1 + number of out-messages; the next lt free after this transaction. */
  endLt: bigint;
  prevLt: bigint;
  prevHash: HashHex;
  now: number;
  inMessageHash: HashHex;
  /** Internal out-messages, delivered in the next hop. */
  outMessages: QueuedMessage[];
}

/** Reads a Message cell as a queue entry; throws on anything that is not a valid message. */
export function toQueuedMessage(cell: Cell): QueuedMessage {
  const info = loadCommonMessageInfo(cell.beginParse());
  if (info.type === 'external-out') throw new Error('an external-out message cannot be delivered');
  return {
    hash: cell.hash().toString('hex'),
    cell,
    destination: addressToRaw(info.dest),
    external: info.type === 'external-in',
  };
}

/** Runs `message` on its destination in `state` (updated in place). Throws EmulationRefused. */
export async function executeMessage(
  emulator: Emulator,
  state: StateOverlay,
  message: QueuedMessage,
  at: { now: number; lt: bigint; randomSeed: Buffer },
): Promise<ExecutedTransaction> {
  const run = await emulator.runTransaction({
    shardAccount: state.get(message.destination),
    message: message.cell,
    now: at.now,
    lt: at.lt,
    randomSeed: at.randomSeed,
  });
  state.set(message.destination, run.shardAccount);
  return readTransaction(run.transaction, message.destination, message.hash);
}

function readTransaction(cell: Cell, account: AccountId, inMessageHash: HashHex): ExecutedTransaction {
  // transaction$0111 account_addr:bits256 lt:uint64 prev_trans_hash:bits256 prev_trans_lt:uint64
  //   now:uint32 outmsg_cnt:uint15 ... ^[ in_msg:(Maybe ^Message) out_msgs:(HashmapE 15 ^Message) ] ...
  const s = cell.beginParse();
  s.skip(4 + 256);
  const lt = s.loadUintBig(64);
  const prevHash = s.loadBuffer(32).toString('hex');
  const prevLt = s.loadUintBig(64);
  const now = s.loadUint(32);
  const outCount = s.loadUint(15);
  const messages = cell.refs[0]!.beginParse();
  messages.loadMaybeRef();
  const outDict = messages.loadDict(Dictionary.Keys.Uint(15), Dictionary.Values.Cell());
  const outMessages: QueuedMessage[] = [];
  for (let i = 0; i < outCount; i++) {
    const out = outDict.get(i);
    if (!out) continue;
    const info = loadCommonMessageInfo(out.beginParse());
    if (info.type !== 'internal') continue;
    outMessages.push({ hash: out.hash().toString('hex'), cell: out, destination: addressToRaw(info.dest), external: false });
  }
  return {
    account,
    workchain: Number(account.slice(0, account.indexOf(':'))),
    cell,
    hash: cell.hash().toString('hex'),
    lt,
    endLt: lt + BigInt(outCount) + 1n,
    prevLt,
    prevHash,
    now,
    inMessageHash,
    outMessages,
  };
}
