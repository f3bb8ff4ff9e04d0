// A durable consumer: applies each batch and moves its own cursor in one database transaction,
// so after any crash it continues with no gap and no duplicate in effect. In a cluster that
// transaction is fenced by the leader's term (EventLog.fence), so a deposed leader that still runs
// (paused, cut off) cannot apply a batch the new leader applies too.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Store } from '../store/db.js';
import { readCursor, writeCursor } from './cursors.js';
import type { EventBatch, Position } from './events.js';
import { StepFailures } from './leadership.js';
import { tail, type Tail } from './tail.js';
import type { EventLog } from './types.js';

export interface ConsumerOptions {
  /** Unique, stable name; the cursor is stored as `consumer:<name>`. */
  name: string;
  log: EventLog;
  store: Store;
  logger?: Logger;
  /** Where a consumer without a cursor starts: the current head (default) or the oldest retained event. */
  startAt?: 'head' | 'oldest';
  /** Applies one batch inside `trx`; throwing rolls back and retries the same batch. */
  handle(batch: EventBatch, trx: Kysely<any>): Promise<void>;
  /** Called (outside any transaction) after a batch committed. */
  afterCommit?(batch: EventBatch): void;
  /** Told when history it needed had expired (the events in between were never seen). */
  onGap?(requestedAfter: Position, firstAvailable: Position): void;
}

export interface Consumer {
  readonly name: string;
  /** Position of the last committed batch. */
  readonly position: Position;
  stop(): Promise<void>;
}

export async function startConsumer(options: ConsumerOptions): Promise<Consumer> {
  const cursorName = `consumer:${options.name}`;
  let start = await readCursor(options.store.db, cursorName);
  if (start === null) {
    start = options.startAt === 'oldest' ? ((await options.log.oldestPosition()) ?? 0) - 1 : (options.log.headPosition() ?? -1);
    await writeCursor(options.store.db, cursorName, start);
  }
  let committed = start;
  const failures = new StepFailures(options.logger, 'consumer step');
  const running: Tail = tail(
    options.log,
    start,
    async (batch) => {
      await options.store.db.transaction().execute(async (trx) => {
        // in a cluster only the leader's term may move the cursor: a deposed leader's step rolls back
        await options.log.fence?.(trx);
        // A retry after a commit whose answer was lost finds the batch applied already.
        if (((await readCursor(trx, cursorName)) ?? -1) >= batch.lastPosition) return;
        await options.handle(batch, trx);
        await writeCursor(trx, cursorName, batch.lastPosition);
      });
      committed = batch.lastPosition;
      failures.succeeded();
      options.afterCommit?.(batch);
    },
    {
      onGap: (gap) => {
        options.logger?.error({ consumer: options.name, after: gap.requestedAfter, firstAvailable: gap.firstAvailable }, 'consumer fell behind retained history');
        options.onGap?.(gap.requestedAfter, gap.firstAvailable);
      },
      onError: (err) => failures.failed(err, { consumer: options.name }, 'consumer batch failed; retrying'),
    },
  );
  return {
    name: options.name,
    get position() {
      return committed;
    },
    stop: () => running.stop(),
  };
}
