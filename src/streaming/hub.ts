// The streaming hub: follows the event log live, matches every batch against one subscription
// index and writes it to the matching connections; replays history to connections that resume
// from an event id; sends heartbeats and pings after silence; drops slow and dead peers.
//
// Resume without gap or duplicate: a resuming connection sits in its own private index and reads
// batches from the log; once its cursor reaches the log's head it moves into the live index in the
// same tick as that check. The log calls live listeners synchronously when a batch is published,
// so every batch is seen either by the replay (already in the log) or live (published later).
import type { Logger } from 'pino';
import { positionSeqno, type ChainEventType, type EventBatch, type Position } from '../bus/events.js';
import { trimBatch } from '../bus/tail.js';
import type { EventLog } from '../bus/types.js';
import type { ConnectionHost, StreamConnection } from './connection.js';
import type { StreamMetrics } from './metrics.js';
import { QuietCollector } from './quiet-gc.js';
import { SubscriptionIndex, type Subscriber } from './subscriptions.js';

export const HEARTBEAT_INTERVAL_MS = 5000;
/** After a fan-out, its readers get this long before a quiet young-generation collection (quiet-gc.ts). */
export const QUIET_COLLECTION_MS = 100;

export interface StreamHubOptions {
  log: EventLog;
  metrics: StreamMetrics;
  logger: Logger;
  /** Bytes a connection may have waiting to be sent before it is closed as a slow consumer. */
  bufferBytes: number;
  /** How long a connection may make no write progress (or leave a ping unanswered) before it is dropped. */
  writeTimeoutMs: number;
  /** Silence before a heartbeat or ping (5 s, compat.md §2, §3; shorter in tests). */
  heartbeatMs?: number;
  /** Sweeper period (heartbeats, dead peers). */
  sweepMs?: number;
  /** Batches read per step while replaying history. */
  replayPageSize?: number;
  /**
   * After a fan-out, ms its readers get before the young generation is collected when the next block
   * would fill it (quiet-gc.ts); null leaves every collection to V8.
   */
  quietCollectionMs?: number | null;
}

export class StreamHub implements ConnectionHost {
  readonly index: SubscriptionIndex;
  readonly connections = new Set<StreamConnection>();
  readonly bufferBytes: number;
  readonly heartbeatMs: number;
  readonly writeTimeoutMs: number;
  private readonly log: EventLog;
  private readonly metrics: StreamMetrics;
  private unsubscribe: (() => void) | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private readonly quiet: QuietCollector | null;
  private stopped = false;

  constructor(private readonly options: StreamHubOptions) {
    this.log = options.log;
    this.metrics = options.metrics;
    this.bufferBytes = options.bufferBytes;
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
    this.writeTimeoutMs = options.writeTimeoutMs;
    this.index = new SubscriptionIndex();
    const quietMs = options.quietCollectionMs === undefined ? QUIET_COLLECTION_MS : options.quietCollectionMs;
    this.quiet = quietMs === null ? null : new QuietCollector({ delayMs: quietMs, onCollect: () => this.metrics.quietCollections.inc() });
  }

  start(): void {
    if (this.unsubscribe) return;
    this.stopped = false;
    this.unsubscribe = this.log.subscribe((batch) => this.publishLive(batch));
    const sweepMs = this.options.sweepMs ?? Math.min(500, this.heartbeatMs);
    this.sweeper = setInterval(() => this.sweep(), sweepMs);
    this.sweeper.unref();
  }

  /** Stops following the log and closes every connection. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    this.quiet?.stop();
    for (const connection of [...this.connections]) connection.terminate('shutdown');
  }

  /** Position of the last batch published live (-1 while the log is empty). */
  livePosition(): Position {
    return this.log.headPosition() ?? -1;
  }

  /**
   * Registers a connection whose routes are set up. With `resumeAfter`, history after that position
   * is replayed first; otherwise it starts live. `claimed` is the id as the client sent it.
   */
  open(connection: StreamConnection, resumeAfter: Position | null, claimed?: string): void {
    if (this.stopped) {
      connection.terminate('shutdown');
      return;
    }
    this.connections.add(connection);
    this.metrics.opened(connection.transport);
    if (resumeAfter === null) connection.moveTo(this.index);
    else this.resume(connection, resumeAfter, claimed);
  }

  /**
   * Replays history after `after` to the connection, then live. Routes already live keep their
   * place: events up to now were already considered for them. Callers check `after >= lastSent`.
   */
  resume(connection: StreamConnection, after: Position, claimed = String(after)): void {
    this.metrics.resumes.inc({ transport: connection.transport });
    if (connection.replay) {
      // Rewind a running replay: routes it served have seen everything up to its cursor.
      connection.markConsidered(connection.replay.cursor);
      connection.replay.cursor = Math.min(connection.replay.cursor, after);
      connection.replay.generation++;
      return;
    }
    if (connection.index === this.index) connection.markConsidered(this.livePosition());
    connection.moveTo(new SubscriptionIndex());
    connection.replay = { cursor: after, generation: 0, claimed };
    void this.runReplay(connection).catch((err) => {
      this.options.logger.error({ err, connection: connection.id }, 'stream replay failed; closing the connection');
      connection.terminate('dead');
    });
  }

  private async runReplay(connection: StreamConnection): Promise<void> {
    const pageSize = this.options.replayPageSize ?? 32;
    for (;;) {
      const replay = connection.replay;
      if (!replay || connection.closed || this.stopped) return;
      const oldest = await this.log.oldestPosition();
      if (connection.replay !== replay || connection.closed) return;
      if (oldest !== null && replay.cursor < oldest - 1) {
        // Never a silent hole: say which ids are gone, then continue from the first retained one.
        this.metrics.gaps.inc({ transport: connection.transport });
        connection.writeGap(replay.cursor, oldest);
        connection.markConsidered(oldest - 1);
        replay.cursor = oldest - 1;
      }
      const head = this.log.headPosition();
      if (notOurs(replay.cursor, head)) {
        // An id this log never issued (another server's, or far ahead of it): say so, then go live.
        this.metrics.gaps.inc({ transport: connection.transport });
        const live = head ?? -1;
        connection.writeGap(replay.claimed, live + 1);
        connection.restartAt(live);
        replay.cursor = live;
      }
      if (head === null || replay.cursor >= head) {
        // Caught up: join the live index in this same tick (no batch can be published in between).
        connection.replay = null;
        connection.moveTo(this.index);
        return;
      }
      const generation = replay.generation;
      const batches = await this.log.readAfter(replay.cursor, pageSize);
      if (connection.replay !== replay || connection.closed) return;
      if (replay.generation !== generation) continue;
      const index = connection.index!;
      for (const batch of batches) {
        const fresh = trimBatch(batch, replay.cursor);
        if (!fresh) continue;
        const touched: Subscriber[] = [];
        index.dispatch(fresh.events, touched);
        connection.flush(true);
        replay.cursor = fresh.lastPosition;
      }
      this.metrics.flushSent();
      if (connection.bufferedBytes() > this.bufferBytes / 2) await this.drained(connection);
    }
  }

  /** Resolves once the connection's buffer is below a quarter of the limit (or it closed). */
  private drained(connection: StreamConnection): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (connection.closed || this.stopped || connection.bufferedBytes() <= this.bufferBytes / 4) {
          clearInterval(timer);
          resolve();
        }
      };
      const timer = setInterval(check, 5);
      timer.unref();
    });
  }

  /** Live fan-out of one batch: runs inside the log's publish call. */
  private publishLive(batch: EventBatch): void {
    const started = performance.now();
    const touched: Subscriber[] = [];
    try {
      this.index.dispatch(batch.events, touched);
    } catch (err) {
      this.options.logger.error({ err, firstPosition: batch.firstPosition }, 'stream fan-out failed');
    }
    const now = Date.now();
    for (const subscriber of touched) (subscriber as StreamConnection).flush(false, now);
    this.metrics.flushSent();
    this.metrics.fanoutSeconds.observe((performance.now() - started) / 1000);
    // the garbage of this block is collected once its readers have read, not in their way
    if (touched.length > 0) this.quiet?.afterFanout();
  }

  countSent(type: ChainEventType): void {
    this.metrics.countSent(type);
  }

  slowConsumer(connection: StreamConnection): void {
    this.metrics.slowConsumers.inc({ transport: connection.transport });
    connection.moveTo(null);
    connection.closeSlow();
  }

  closed(connection: StreamConnection): void {
    if (this.connections.delete(connection)) this.metrics.closed(connection.transport);
  }

  /** Heartbeats after silence; drops peers that stopped reading or answering. */
  private sweep(): void {
    const now = Date.now();
    const timeout = this.writeTimeoutMs;
    for (const connection of this.connections) {
      const buffered = connection.bufferedBytes();
      if (buffered === 0 || buffered < connection.lastBuffered) connection.lastProgressAt = now;
      connection.lastBuffered = buffered;
      if ((buffered > 0 && now - connection.lastProgressAt > timeout) || connection.unresponsive(now)) {
        this.metrics.deadPeers.inc({ transport: connection.transport });
        connection.terminate('dead');
        continue;
      }
      if (buffered === 0 && !connection.closing && now - connection.lastWriteAt >= this.heartbeatMs) {
        connection.heartbeat();
        connection.lastWriteAt = now;
        this.metrics.heartbeats.inc({ transport: connection.transport });
      }
    }
  }

  /** Facts for /readyz. */
  stats(): { connections: number; sse: number; ws: number; replaying: number } {
    let sse = 0;
    let replaying = 0;
    for (const c of this.connections) {
      if (c.transport === 'sse') sse++;
      if (c.replay) replaying++;
    }
    return { connections: this.connections.size, sse, ws: this.connections.size - sse, replaying };
  }
}

/**
 * An id past the head is ours only when it is at most one masterchain block ahead (a node that is a
 * block behind another one); anything further was never issued by this log.
 */
export function notOurs(after: Position, head: Position | null): boolean {
  if (head === null) return after >= 0;
  return after > head && positionSeqno(after) > positionSeqno(head) + 1;
}
