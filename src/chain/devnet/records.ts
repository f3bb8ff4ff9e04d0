// Conversions at the devnet's edges: submitted bytes to a queued message, executed transactions
// to storage rows and back to the chain model, the persisted counters, get-method ids.
import { Cell } from '@ton/core';
import { decodeTransaction } from '../decode/transaction.js';
import type { SourcedTransaction } from '../model.js';
import { singleRootBoc } from '../message-boc.js';
import { ChainRejectedError } from '../source.js';
import { toQueuedMessage, type QueuedMessage } from './execute.js';
import { FULL_SHARD, type ChainCounters, type ProducedTick } from './producer.js';
import type { StoredTransaction } from './storage.js';

export { methodId } from '../method-id.js';

export function parseExternal(boc: Buffer): QueuedMessage {
  const cell = singleRootBoc(boc);
  let message: QueuedMessage;
  try {
    message = toQueuedMessage(cell);
  } catch (err) {
    throw new ChainRejectedError(`not a Message cell: ${err instanceof Error ? err.message : String(err)}`, 'invalid_message');
  }
  if (!message.external) throw new ChainRejectedError('only external inbound messages can be sent', 'not_external');
  return message;
}

export function toStored(tx: ProducedTick['transactions'][number]): StoredTransaction {
  return {
    hash: tx.hash,
    account: tx.account,
    lt: tx.lt,
    prevLt: tx.prevLt,
    prevHash: tx.prevHash,
    workchain: tx.workchain,
    blockSeqno: tx.block.seqno,
    mcSeqno: tx.mcSeqno,
    inMessageHash: tx.inMessageHash,
    boc: tx.cell.toBoc(),
  };
}

export function decodeStored(row: StoredTransaction): SourcedTransaction {
  const boc = row.boc.toString('base64');
  return decodeTransaction(Cell.fromBoc(row.boc)[0]!, {
    block: { workchain: row.workchain, shard: FULL_SHARD, seqno: row.blockSeqno },
    mcSeqno: row.mcSeqno,
    boc,
  });
}

export function formatCounters(c: ChainCounters): string {
  return JSON.stringify({ ...c, nextLt: c.nextLt.toString() });
}

export function parseCounters(json: string): ChainCounters {
  const v = JSON.parse(json) as { masterchainSeqno: number; shardSeqno: number; nextLt: string; utime: number };
  return { masterchainSeqno: v.masterchainSeqno, shardSeqno: v.shardSeqno, nextLt: BigInt(v.nextLt), utime: v.utime };
}
