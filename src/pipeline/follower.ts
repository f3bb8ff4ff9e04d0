// Walks finalized masterchain blocks in order and appends their events to the log. Each block's
// events, the follower's cursor and the in-flight trace state commit in one transaction, so a
// follower killed at any moment continues with no gap and no duplicate.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { FinalizedBlock, PendingMessage, TransactionModel } from '../chain/model.js';
import type { ChainSource } from '../chain/source.js';
import { readCursor, writeCursor } from '../bus/cursors.js';
import { MEMPOOL_BASE, makePosition, type ChainEvent, type EventBatch, type UnplacedEvent } from '../bus/events.js';
import type { EventLogWriter } from '../bus/types.js';
import type { Store } from '../store/db.js';
import { toNum } from '../store/db.js';
import { FollowerMetrics } from './metrics.js';
import type { FollowerStatus } from './status.js';

export type { FollowerStatus } from './status.js';
import { TraceTracker, type TraceState } from './traces.js';

const CURSOR = 'follower';
/** Rows per upsert of in-flight traces (3 parameters each, far below both dialects' limits). */
const TRACE_UPSERT_CHUNK = 500;

export interface FollowerOptions {
  source: ChainSource;
  store: Store;
  log: EventLogWriter;
  logger: Logger;
  metrics?: FollowerMetrics;
  /** First block when there is no cursor yet: the oldest the source has (devnet) or its head. */
  startAt?: 'oldest' | 'head' | number;
  /** Safety-net poll for new heads, for sources whose notifications may be missed. */
  pollIntervalMs?: number;
  /** How often old events are pruned from the log. */
  pruneIntervalMs?: number;
  maxTraceAgeBlocks?: number;
  now?: () => number;
  /** Told of each block once its events have committed (the finality tracker's `finalized`); never changes what is appended. */
  onFinalized?: (block: FinalizedBlock) => void;
}

/** Retries after a failed step back off from this to FAILURE_BACKOFF_MAX_MS, so a store outage is not a busy loop. */
const FAILURE_BACKOFF_MIN_MS = 100;
const FAILURE_BACKOFF_MAX_MS = 5000;
/** Mempool events held for a store outage; beyond this the oldest waiting are kept and new ones dropped (counted). */
const MAX_UNAPPENDED_MEMPOOL = 10_000;

interface TraceTables {
  traces_in_flight: { root_hash: string; start_mc_seqno: bigint; state: Uint8Array };
}

export class Follower {
  private readonly traces: TraceTracker;
  private readonly now: () => number;
  private lastSeqno: number | null = null;
  private lastGenUtime: number | null = null;
  private headSeqno: number | null = null;
  private failures = 0;
  private lastError: string | null = null;
  /** Pending messages whose events could not be written (store outage), written first when it returns. */
  private unappendedMempool: PendingMessage[] = [];
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** Serialises every append (blocks and mempool events): the log has one writer. */
  private writing: Promise<void> = Promise.resolve();
  private unsubscribe: Array<() => void> = [];
  private pruneTimer: NodeJS.Timeout | null = null;
  private readonly seqnoWaiters = new Set<{ seqno: number; resolve: () => void }>();

  constructor(private readonly options: FollowerOptions) {
    this.traces = new TraceTracker(options.maxTraceAgeBlocks);
    this.now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    if (this.running) return;
    const { source, store } = this.options;
    this.lastSeqno = await readCursor(store.db, CURSOR);
    if (this.lastSeqno === null) {
      // A source that cannot name its head yet (every liteserver down) does not stop the start: the loop asks again.
      await this.placeCursor().catch((err) => {
        this.lastError = (err as Error).message;
        // expected while every server is down: the reason, not a stack
        this.options.logger.warn({ waiting: this.lastError }, 'the follower waits for the chain source to name where to start');
      });
    }
    await this.loadTraces();
    this.running = true;
    this.unsubscribe.push(
      source.onMasterchainHead((seqno) => {
        this.headSeqno = Math.max(this.headSeqno ?? 0, seqno);
        this.wake?.();
      }),
      source.onPendingMessage((message) => {
        // Behind events held back by a store failure, a new one waits its turn.
        if (this.unappendedMempool.length > 0) return this.keepUnappended(message, null);
        this.enqueue(() => this.appendMempool(message)).catch((err) => this.keepUnappended(message, err));
      }),
    );
    const pruneEvery = this.options.pruneIntervalMs ?? 60_000;
    this.pruneTimer = setInterval(() => void this.prune(), pruneEvery);
    this.pruneTimer.unref();
    this.loop = this.run();
  }

  /** Stops after the block in progress commits. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const u of this.unsubscribe.splice(0)) u();
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    this.wake?.();
    await this.loop;
    await this.writing.catch(() => {});
  }

  status(): FollowerStatus {
    const lag = this.headSeqno !== null && this.lastSeqno !== null ? Math.max(0, this.headSeqno - this.lastSeqno) : null;
    return {
      running: this.running,
      lastSeqno: this.lastSeqno,
      headSeqno: this.headSeqno,
      lagBlocks: lag,
      lagSeconds: this.lastGenUtime === null ? null : Math.max(0, Math.round(this.now() / 1000 - this.lastGenUtime)),
      tracesInFlight: this.traces.inFlight,
      error: this.lastError,
    };
  }

  /** Resolves once the block `seqno` has been appended (for tests and start-up ordering). */
  waitForSeqno(seqno: number, timeoutMs = 30_000): Promise<void> {
    if (this.lastSeqno !== null && this.lastSeqno >= seqno) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = { seqno, resolve: () => (clearTimeout(timer), resolve()) };
      const timer = setTimeout(() => {
        this.seqnoWaiters.delete(waiter);
        reject(new Error(`follower did not reach masterchain seqno ${seqno} within ${timeoutMs} ms (at ${this.lastSeqno})`));
      }, timeoutMs);
      this.seqnoWaiters.add(waiter);
    });
  }

  /** The cursor of a store that has followed nothing yet: one before the first block to append. */
  private async placeCursor(): Promise<void> {
    const first = await this.initialSeqno();
    await writeCursor(this.options.store.db, CURSOR, first - 1);
    this.lastSeqno = first - 1;
  }

  private async initialSeqno(): Promise<number> {
    const { source, startAt = 'head' } = this.options;
    if (typeof startAt === 'number') return startAt;
    if (startAt === 'oldest') return source.getOldestAvailableSeqno();
    return (await source.getMasterchainHead()).seqno;
  }

  private async loadTraces(): Promise<void> {
    const rows = await (this.options.store.db as Kysely<TraceTables>).selectFrom('traces_in_flight').selectAll().execute();
    this.traces.load(rows.map((r) => ({ root: r.root_hash, startMcSeqno: toNum(r.start_mc_seqno), state: r.state })));
  }

  private async run(): Promise<void> {
    const pollMs = this.options.pollIntervalMs ?? 1000;
    while (this.running) {
      try {
        if (this.lastSeqno === null) await this.placeCursor();
        await this.appendUnappendedMempool();
        const head = await this.options.source.getMasterchainHead();
        this.headSeqno = Math.max(this.headSeqno ?? 0, head.seqno);
        while (this.running && this.lastSeqno! < this.headSeqno) {
          const block = await this.options.source.getFinalizedBlock(this.lastSeqno! + 1);
          if (!block) break;
          await this.enqueue(() => this.appendBlock(block));
        }
        this.failures = 0;
        this.lastError = null;
      } catch (err) {
        this.failures++;
        this.lastError = (err as Error).message;
        this.options.logger.error({ err, after: this.lastSeqno, failures: this.failures }, 'follower step failed; retrying');
        this.options.metrics?.errors.inc();
        await this.enqueue(() => this.resync()).catch(() => {});
      }
      if (!this.running) break;
      if (this.failures === 0 && this.headSeqno !== null && this.lastSeqno! < this.headSeqno) continue;
      const waitMs = this.failures > 0 ? Math.min(FAILURE_BACKOFF_MAX_MS, FAILURE_BACKOFF_MIN_MS * 2 ** (this.failures - 1)) : pollMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, waitMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.wake = () => {
          this.wake = null;
          done();
        };
      });
    }
  }

  /**
   * After a failed step memory may disagree with the store both ways: a failed commit left memory
   * ahead, a commit whose answer was lost left it behind. Continue from what the store holds.
   */
  private async resync(): Promise<void> {
    await this.loadTraces();
    const stored = await readCursor(this.options.store.db, CURSOR);
    if (stored !== null && stored !== this.lastSeqno) {
      this.options.logger.warn({ memory: this.lastSeqno, stored }, 'follower cursor reloaded from the store after a lost commit answer');
      this.lastSeqno = stored;
    }
    await this.options.log.resync();
  }

  private keepUnappended(message: PendingMessage, err: unknown): void {
    if (this.unappendedMempool.length >= MAX_UNAPPENDED_MEMPOOL) {
      this.options.metrics?.mempoolDropped.inc();
      this.options.logger.error({ err, message: message.hash }, 'mempool event dropped: too many waiting for the store');
      return;
    }
    this.unappendedMempool.push(message);
  }

  /** Writes, in arrival order, the mempool events a store failure held back; stops at the first failure. */
  private async appendUnappendedMempool(): Promise<void> {
    while (this.unappendedMempool.length > 0) {
      await this.enqueue(() => this.appendMempool(this.unappendedMempool[0]!));
      this.unappendedMempool.shift();
    }
  }

  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.writing.then(work);
    this.writing = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  private async appendBlock(block: FinalizedBlock): Promise<void> {
    const seqno = block.masterchain.seqno;
    if (seqno !== this.lastSeqno! + 1) throw new Error(`follower expected block ${this.lastSeqno! + 1}, got ${seqno}`);
    const started = performance.now();
    const events: ChainEvent[] = [];
    const add = (event: UnplacedEvent) => {
      if (events.length >= MEMPOOL_BASE) throw new Error(`masterchain block ${seqno} has more than ${MEMPOOL_BASE} events`);
      events.push({ ...event, position: makePosition(seqno, events.length), mcSeqno: seqno } as ChainEvent);
    };
    add({ type: 'block', block: block.masterchain });
    for (const shard of block.shards) add({ type: 'block', block: shard });
    for (const tx of block.transactions) add({ type: 'transaction', tx: withoutBoc(tx) });
    const traced = this.traces.applyBlock(seqno, block.transactions);
    for (const trace of traced.completed) add({ type: 'trace', trace });

    const batch: EventBatch = {
      kind: 'block',
      mcSeqno: seqno,
      firstPosition: events[0]!.position,
      lastPosition: events[events.length - 1]!.position,
      events,
    };
    // the log publishes the batch once the batch, the cursor and the trace state have committed
    await this.options.log.appendBatch(batch, async (trx) => {
      await writeCursor(trx, CURSOR, seqno, this.now());
      await this.persistTraces(trx, traced.changed, traced.removed);
    });
    this.lastSeqno = seqno;
    this.lastGenUtime = block.masterchain.genUtime;
    this.options.metrics?.appended(batch, performance.now() - started, this.status());
    try {
      this.options.onFinalized?.(block);
    } catch (err) {
      this.options.logger.warn({ err, seqno }, 'a finalized-block listener threw');
    }
    for (const waiter of this.seqnoWaiters) {
      if (seqno >= waiter.seqno) {
        this.seqnoWaiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  private async persistTraces(trx: Kysely<any>, changed: TraceState[], removed: string[]): Promise<void> {
    const db = trx as Kysely<TraceTables>;
    for (let i = 0; i < removed.length; i += 500) {
      await db.deleteFrom('traces_in_flight').where('root_hash', 'in', removed.slice(i, i + 500)).execute();
    }
    // one multi-row upsert per chunk: a busy block changes hundreds of traces, and a statement per
    // trace was the follower's largest cost (bench/follower.ts)
    for (let i = 0; i < changed.length; i += TRACE_UPSERT_CHUNK) {
      const rows = changed.slice(i, i + TRACE_UPSERT_CHUNK).map((trace) => ({
        root_hash: trace.root,
        start_mc_seqno: BigInt(trace.startMcSeqno),
        state: TraceTracker.serialize(trace),
      }));
      await db
        .insertInto('traces_in_flight')
        .values(rows)
        .onConflict((oc) => oc.column('root_hash').doUpdateSet((eb) => ({ state: eb.ref('excluded.state') })))
        .execute();
    }
  }

  /** A mempool event takes the next free position after the last appended block. */
  private async appendMempool(message: PendingMessage): Promise<void> {
    // Held (keepUnappended) until the cursor is placed: positions follow the last block.
    if (this.lastSeqno === null) throw new Error('the follower has not placed its cursor yet');
    const seqno = this.lastSeqno;
    const head = this.options.log.headPosition();
    const base = makePosition(seqno, MEMPOOL_BASE);
    const position = head !== null && head >= base ? head + 1 : base;
    if (position >= makePosition(seqno + 1, 0)) {
      this.options.metrics?.mempoolDropped.inc();
      throw new Error(`mempool position range of block ${seqno} is full`);
    }
    const batch: EventBatch = {
      kind: 'mempool',
      mcSeqno: seqno,
      firstPosition: position,
      lastPosition: position,
      // the emulated trace is for in-process listeners; the log keeps the message alone
      events: [{ type: 'mempool', message: withoutEmulation(message), position, mcSeqno: seqno }],
    };
    await this.options.log.appendBatch(batch);
    this.options.metrics?.appended(batch, 0, this.status());
  }

  private async prune(): Promise<void> {
    try {
      const deleted = await this.enqueue(() => this.options.log.prune());
      if (deleted > 0) this.options.logger.debug({ deleted }, 'pruned event batches past retention');
    } catch (err) {
      this.options.logger.warn({ err }, 'event log prune failed');
    }
  }
}

/** The transaction as events carry it: without its raw BoC (see TransactionModel.boc). */
function withoutBoc(tx: TransactionModel): TransactionModel {
  if (tx.boc === undefined) return tx;
  const { boc: _boc, ...rest } = tx;
  return rest;
}

function withoutEmulation(message: PendingMessage): PendingMessage {
  if (message.emulated === undefined) return message;
  const { emulated: _, ...rest } = message;
  return rest;
}
