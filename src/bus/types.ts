// The event log seen by consumers (`EventLog`) and by the follower (`EventLogWriter`). The
// follower appends; consumers read from a position and then follow live. Implementations: over
// the store (store-log.ts, the embedded default); another (a distributed log for several
// processes) plugs in by passing test/support/event-log.ts, the conformance suite.
import type { Kysely } from 'kysely';
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
  /**
   * The singletons' fence (a cluster's leader runs them): checks inside `trx` that this process still
   * writes under the newest term of the log's writer, and throws FencedError otherwise, so a deposed
   * leader's consumer step rolls back. Nothing to check for a process alone (no term).
   */
  fence?(trx: Kysely<any>): Promise<void>;
}

/**
 * The writing side of the log: the follower's only way in. Positions strictly increase; a batch
 * commits in one store transaction with the writer's own state (cursor, trace state), and is
 * published to readers and live listeners only after that commit, by the log itself.
 */
export interface EventLogWriter {
  /** Newest appended position, or null while the log is empty. */
  headPosition(): Position | null;
  /**
   * Appends `batch` in one store transaction together with what `alsoInTransaction` writes, then
   * publishes it. Rejects a batch that does not start after the head; when anything fails, nothing
   * is written and nothing published.
   */
  appendBatch(batch: EventBatch, alsoInTransaction?: (trx: Kysely<any>) => Promise<void>): Promise<void>;
  /** Deletes batches older than the retention, always keeping the newest; returns how many went. */
  prune(): Promise<number>;
  /** Reads the head back from the store after an append whose outcome is unknown (its commit's answer was lost). */
  resync(): Promise<void>;
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
