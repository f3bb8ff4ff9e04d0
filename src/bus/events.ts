// Events the follower appends to the log, in the order consumers see them.
// A position is derived from chain data, so it means the same on every node and after a restart:
//   position = masterchainSeqno * POSITION_STRIDE + index
// Within one masterchain seqno, indexes [0, MEMPOOL_BASE) hold that block's events (blocks, then
// transactions, then completed traces) and [MEMPOOL_BASE, POSITION_STRIDE) hold mempool events
// that arrived after that block was appended and before the next one.
import type { BlockHeader, PendingMessage, TraceModel, TransactionModel } from '../chain/model.js';

export type Position = number;

export const POSITION_STRIDE = 1_000_000;
export const MEMPOOL_BASE = 500_000;

export function makePosition(mcSeqno: number, index: number): Position {
  return mcSeqno * POSITION_STRIDE + index;
}

export function positionSeqno(position: Position): number {
  return Math.floor(position / POSITION_STRIDE);
}

interface EventBase {
  position: Position;
  /** Masterchain seqno the event belongs to. */
  mcSeqno: number;
}

export interface BlockEvent extends EventBase {
  type: 'block';
  block: BlockHeader;
}

export interface TransactionEvent extends EventBase {
  type: 'transaction';
  tx: TransactionModel;
}

export interface TraceEvent extends EventBase {
  type: 'trace';
  trace: TraceModel;
}

export interface MempoolEvent extends EventBase {
  type: 'mempool';
  message: PendingMessage;
}

export type ChainEvent = BlockEvent | TransactionEvent | TraceEvent | MempoolEvent;
export type ChainEventType = ChainEvent['type'];

/** An event before the follower gives it a position. */
export type UnplacedEvent = ChainEvent extends infer E ? (E extends ChainEvent ? Omit<E, 'position' | 'mcSeqno'> : never) : never;

/**
 * Events appended together: all events of one masterchain block (kind `block`), or one mempool
 * event (kind `mempool`). Positions are strictly increasing within and across batches.
 */
export interface EventBatch {
  kind: 'block' | 'mempool';
  mcSeqno: number;
  firstPosition: Position;
  lastPosition: Position;
  events: ChainEvent[];
}
