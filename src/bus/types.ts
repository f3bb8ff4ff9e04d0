// The event log seen by consumers. The follower appends; consumers read from a position and then
// follow live. Implementations: in-process over the store (embedded default); a distributed one
// (NATS JetStream) can replace it without consumers noticing.
import type { EventBatch, Position } from './events.js';

export interface EventLog {
  /** Newest appended position, or null while the log is empty. */
  headPosition(): Position | null;
  /** Oldest position still retained (older events were pruned), or null while empty. */
  oldestPosition(): Promise<Position | null>;
  /**
   * Batches that hold any event with position > `after`, oldest first, at most `maxBatches`.
   * The first batch may hold events at or before `after`: callers skip them.
   */
  readAfter(after: Position, maxBatches: number): Promise<EventBatch[]>;
  /** Called with every batch once it is durable, in order. Returns an unsubscribe function. */
  subscribe(listener: (batch: EventBatch) => void): () => void;
}

/** Thrown (or reported) when a reader asks for history older than what is retained. */
export class HistoryGapError extends Error {
  constructor(
    readonly requestedAfter: Position,
    readonly firstAvailable: Position,
  ) {
    super(`events after ${requestedAfter} are no longer retained; the first available is ${firstAvailable}`);
    this.name = 'HistoryGapError';
  }
}
