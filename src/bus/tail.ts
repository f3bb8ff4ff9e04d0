// Reads the log from a position and then follows it live, with no gap and no duplicate:
// live notifications only wake the loop; every batch is read through readAfter, so a batch
// appended while catching up cannot be missed or seen twice.
import type { EventBatch, Position } from './events.js';
import { HistoryGapError, type EventLog } from './types.js';

export interface TailOptions {
  /** Batches read per round trip while catching up. */
  pageSize?: number;
  /**
   * Called when `after` is older than the retained history, with the first available position.
   * Reading continues from there. Without it, the gap is an error passed to `onError`.
   */
  onGap?: (gap: HistoryGapError) => void | Promise<void>;
  onError?: (err: unknown) => void;
  /** Wait before retrying after a failed handler or read. */
  retryDelayMs?: number;
}

export interface Tail {
  /** Position of the last event handed to the handler. */
  readonly position: Position;
  stop(): Promise<void>;
}

/**
 * Hands every event with position > `after` to `handle`, batch by batch (events at or before
 * `after` are removed from the first batch), then keeps following. A handler that throws is
 * retried with the same batch until it succeeds or the tail stops.
 */
export function tail(
  log: EventLog,
  after: Position,
  handle: (batch: EventBatch) => void | Promise<void>,
  options: TailOptions = {},
): Tail {
  const pageSize = options.pageSize ?? 64;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  let position = after;
  let stopped = false;
  let wake: (() => void) | null = null;
  const unsubscribe = log.subscribe(() => wake?.());

  const sleepUntilWoken = (ms?: number) =>
    new Promise<void>((resolve) => {
      const timer = ms === undefined ? null : setTimeout(() => done(), ms);
      const done = () => {
        if (timer) clearTimeout(timer);
        wake = null;
        resolve();
      };
      wake = done;
    });

  const checkGap = async (): Promise<void> => {
    const oldest = await log.oldestPosition();
    if (oldest === null || position >= oldest - 1) return;
    const gap = new HistoryGapError(position, oldest);
    if (!options.onGap) throw gap;
    await options.onGap(gap);
    position = oldest - 1;
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        await checkGap();
        const head = log.headPosition();
        if (head === null || position >= head) {
          if (log.headPosition() === head) await sleepUntilWoken();
          continue;
        }
        const batches = await log.readAfter(position, pageSize);
        for (const batch of batches) {
          if (stopped) return;
          const fresh = trimBatch(batch, position);
          if (!fresh) continue;
          await handle(fresh);
          position = fresh.lastPosition;
        }
      } catch (err) {
        if (stopped) return;
        options.onError?.(err);
        await sleepUntilWoken(retryDelayMs);
      }
    }
  })();

  return {
    get position() {
      return position;
    },
    async stop() {
      stopped = true;
      unsubscribe();
      wake?.();
      await loop;
    },
  };
}

/** The part of `batch` after `position`, or null when nothing is left. */
export function trimBatch(batch: EventBatch, position: Position): EventBatch | null {
  if (batch.lastPosition <= position) return null;
  if (batch.firstPosition > position) return batch;
  const events = batch.events.filter((e) => e.position > position);
  return { ...batch, firstPosition: events[0]!.position, events };
}
