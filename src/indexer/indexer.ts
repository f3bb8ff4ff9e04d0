// The deposit indexer's engine: tracking entries, live tracking of finalized blocks through a durable
// consumer of the event log, and the backfill worker. Backfill and live meet without gap or
// duplicate: a contract joins the live set before its state is read for the walk's start, and both
// paths write idempotent rows from the same deterministic extraction.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ChangeFeed } from '../bus/changes.js';
import { startConsumer, type Consumer } from '../bus/consumer.js';
import { positionSeqno, type EventBatch } from '../bus/events.js';
import type { EventLog } from '../bus/types.js';
import type { AccountId } from '../chain/model.js';
import type { ChainSource } from '../chain/source.js';
import { conflict } from '../errors.js';
import type { Store } from '../store/db.js';
import { Backfill } from './backfill.js';
import { chainCall, jettonWalletAddress } from './chain.js';
import { extract, TON, type Asset, type Extraction, type Role } from './extract.js';
import type { IndexerMetrics } from './metrics.js';
import { allTracked, asDb, getTracked, insertTracked, requestResync, requestResyncAll, writeExtractions, type EntryKey } from './store.js';
import { forEachRole, TrackedSet } from './tracked.js';

export interface IndexerOptions {
  store: Store;
  source: ChainSource;
  events: EventLog;
  logger: Logger;
  metrics?: IndexerMetrics;
  backfillConcurrency: number;
  /** How long a backfill worker's claim on an entry holds unrenewed (default 60 s). */
  backfillLeaseMs?: number;
  now: () => number;
  /** Name of the durable consumer (its cursor is `consumer:<name>`). */
  consumerName?: string;
  /** Tells the other processes of a cluster (the leader's live tracking) about new entries. */
  changes?: ChangeFeed;
}

/** The topic of announced new entries (key: `<asset>|<owner>`). */
export const CHANGES_TOPIC = 'indexer';

export interface TrackResult {
  asset: Asset;
  owner: AccountId;
  contract: AccountId;
  /** The owner's TON entry was created too (jetton tracking). */
  ownerTracked: boolean;
}

/** The last block live tracking applied. */
export interface AppliedBlock {
  mcSeqno: number;
  /** Generation time of that block; null when only the consumer's cursor is known (after a start). */
  genUtime: number | null;
}

export class Indexer {
  readonly tracked = new TrackedSet();
  private consumer: Consumer | null = null;
  private readonly backfill: Backfill;
  private applied: AppliedBlock | null = null;
  /** Tracking requests in progress, so two concurrent POSTs of one entry cannot both win. */
  private readonly tracking = new Set<string>();

  constructor(private readonly opts: IndexerOptions) {
    this.backfill = new Backfill({
      store: opts.store,
      source: opts.source,
      logger: opts.logger,
      metrics: opts.metrics,
      concurrency: opts.backfillConcurrency,
      leaseMs: opts.backfillLeaseMs,
      now: opts.now,
    });
  }

  get lastApplied(): AppliedBlock | null {
    return this.applied;
  }

  get consumerPosition(): number | null {
    return this.consumer?.position ?? null;
  }

  /** Live tracking and backfills together (one process with every role). */
  async start(): Promise<void> {
    await this.startLive();
    this.startBackfill();
  }

  async stop(): Promise<void> {
    await this.stopLive();
    await this.stopBackfill();
  }

  /** Live tracking: the durable consumer of the log (a singleton: the follower role's leader runs it). */
  async startLive(): Promise<void> {
    for await (const page of allTracked(asDb(this.opts.store.db))) {
      for (const row of page) this.tracked.add(row.contract, { asset: row.asset, owner: row.owner });
    }
    this.opts.metrics?.trackedEntries.set(this.tracked.size);
    this.consumer = await startConsumer({
      name: this.opts.consumerName ?? 'indexer',
      log: this.opts.events,
      store: this.opts.store,
      logger: this.opts.logger,
      // history before the first start is reached by backfill walks, not by the log
      startAt: 'head',
      handle: (batch, trx) => this.applyBatch(batch, trx),
      afterCommit: (batch) => this.committed(batch),
      onGap: () => void this.onGap(),
    });
    // until the next block arrives, the consumer's cursor says where live tracking stands
    if (this.consumer.position >= 0) this.applied = { mcSeqno: positionSeqno(this.consumer.position), genUtime: null };
  }

  async stopLive(): Promise<void> {
    await this.consumer?.stop();
    this.consumer = null;
  }

  /** Backfill walks (the worker role). */
  startBackfill(): void {
    this.backfill.start();
  }

  async stopBackfill(): Promise<void> {
    await this.backfill.stop();
  }

  /** Live tracking: the block's transactions of tracked contracts, one map lookup each. */
  async applyBatch(batch: EventBatch, trx: Kysely<any>): Promise<void> {
    if (batch.kind !== 'block') return;
    const started = performance.now();
    const items = this.extractBatch(batch);
    await writeExtractions(asDb(trx), items);
    if (this.opts.metrics) {
      for (const e of items) for (const t of e.transfers) this.opts.metrics.transfers.inc({ kind: t.kind, status: t.status });
      this.opts.metrics.blockSeconds.observe((performance.now() - started) / 1000);
    }
  }

  /** The extraction step of live tracking alone (benchmarks measure it without a store). */
  extractBatch(batch: EventBatch): Extraction[] {
    const items: Extraction[] = [];
    for (const ev of batch.events) {
      if (ev.type !== 'transaction') continue;
      const roles = this.tracked.get(ev.tx.account);
      if (roles) forEachRole(roles, (role) => items.push(extract(ev.tx, role)));
    }
    return items;
  }

  private committed(batch: EventBatch): void {
    if (batch.kind !== 'block') return;
    const mc = batch.events.find((e) => e.type === 'block' && e.block.workchain === -1);
    const genUtime = mc?.type === 'block' ? mc.block.genUtime : null;
    this.applied = { mcSeqno: batch.mcSeqno, genUtime };
    this.opts.metrics?.lastSeqno.set(batch.mcSeqno);
    if (genUtime !== null) this.opts.metrics?.latencySeconds.set(Math.max(0, this.opts.now() / 1000 - genUtime));
  }

  /** Live tracking missed events that expired from the log: every entry re-walks from its state. */
  private async onGap(): Promise<void> {
    this.opts.metrics?.gaps.inc();
    try {
      const n = await this.resyncAll();
      this.opts.logger.warn({ entries: n }, 'indexer missed events; every tracked entry resyncs from its chain state');
    } catch (err) {
      this.opts.logger.error({ err }, 'indexer could not request a resync after a gap');
    }
  }

  /**
   * An entry another process created (announced): joins live tracking here, then asks for a resync,
   * whose walk reads the chain state after the join, so what came between the other process's state
   * read and this join is walked and nothing is missed. `key` null (announcements may have been
   * missed): every entry is loaded again and resyncs.
   */
  async joinAnnounced(key: string | null): Promise<void> {
    if (key === null) {
      for await (const page of allTracked(asDb(this.opts.store.db))) {
        for (const row of page) this.tracked.add(row.contract, { asset: row.asset, owner: row.owner });
      }
      await this.resyncAll();
      return;
    }
    const [asset, owner] = key.split('|') as [Asset, AccountId];
    const row = await getTracked(asDb(this.opts.store.db), { asset, owner });
    if (!row) return;
    this.tracked.add(row.contract, { asset, owner });
    this.opts.metrics?.trackedEntries.set(this.tracked.size);
    await requestResync(asDb(this.opts.store.db), { asset, owner }, this.opts.now());
    this.backfill.wake();
  }

  /**
   * Every entry walks again from its current chain state down to where its processed history is
   * whole: fills whatever live tracking did not see. Returns how many entries were asked.
   */
  async resyncAll(): Promise<number> {
    const n = await requestResyncAll(asDb(this.opts.store.db), this.opts.now());
    this.backfill.wake();
    return n;
  }

  /**
   * Tracks `(asset, owner)`: for a jetton, derives the owner's jetton wallet on chain and tracks the
   * owner's TON too. 409 when the entry is tracked already; 400 for a master that is no jetton
   * master; 503 when the chain source fails.
   */
  async track(asset: Asset, owner: AccountId): Promise<TrackResult> {
    const id = `${asset}|${owner}`;
    if (this.tracking.has(id) || (await getTracked(asDb(this.opts.store.db), { asset, owner }))) {
      throw conflict(asset === TON ? `${owner} is already tracked` : `jetton ${asset} of ${owner} is already tracked`);
    }
    this.tracking.add(id);
    try {
      const contract = asset === TON ? owner : await jettonWalletAddress(this.opts.source, asset, owner);
      let ownerTracked = false;
      if (asset !== TON && !(await getTracked(asDb(this.opts.store.db), { asset: TON, owner }))) {
        ownerTracked = await this.trackContract({ asset: TON, owner }, owner);
      }
      if (!(await this.trackContract({ asset, owner }, contract))) {
        throw conflict(asset === TON ? `${owner} is already tracked` : `jetton ${asset} of ${owner} is already tracked`);
      }
      return { asset, owner, contract, ownerTracked };
    } finally {
      this.tracking.delete(id);
    }
  }

  /** Joins the live set first, then reads the state the backfill walk starts from; false if it existed. */
  private async trackContract(key: EntryKey, contract: AccountId): Promise<boolean> {
    const role: Role = { asset: key.asset, owner: key.owner };
    const added = this.tracked.add(contract, role);
    try {
      const state = await chainCall('reading the account state', () => this.opts.source.getAccountState(contract));
      const inserted = await insertTracked(asDb(this.opts.store.db), {
        ...key,
        contract,
        walkFrom: state.lastTxLt > 0n ? { lt: state.lastTxLt, hash: state.lastTxHash } : null,
        now: this.opts.now(),
      });
      if (!inserted) {
        if (added) this.tracked.remove(contract, role);
        return false;
      }
      this.opts.metrics?.trackedEntries.set(this.tracked.size);
      this.backfill.wake();
      await this.opts.changes?.announce(CHANGES_TOPIC, `${key.asset}|${key.owner}`);
      return true;
    } catch (err) {
      if (added) this.tracked.remove(contract, role);
      throw err;
    }
  }
}
