// Background backfill: walks each tracked contract's transaction chain back through prev links
// (`getTransactions`, 16 per call) from its state at tracking time down to its first transaction.
// Every step writes its transactions and the walk's next position in one database transaction, so
// a restart resumes where it stopped. Walks also fill holes: after live tracking missed events
// (`resync`), a walk from the current state stops where the processed chain is whole again.
// Walks are claimed jobs (claims.ts): with many workers on one database each entry is walked by one
// worker at a time, and a dead worker's entries are resumed by another once its claims expire.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { AccountId, TransactionModel } from '../chain/model.js';
import { MAX_TRANSACTIONS_PER_CALL, type ChainSource } from '../chain/source.js';
import type { Store } from '../store/db.js';
import { extract, type Extraction, type Role } from './extract.js';
import type { IndexerMetrics } from './metrics.js';
import { claimWalks, releaseAllClaims, releaseClaim, renewClaims } from './claims.js';
import { asDb, firstMissingBelow, processedLts, recordWalkError, updateWalk, writeExtractions, type EntryKey } from './store.js';
import type { TrackedRow } from './tables.js';

export interface BackfillOptions {
  store: Store;
  source: ChainSource;
  logger: Logger;
  metrics?: IndexerMetrics;
  /** Entries walked at the same time. */
  concurrency: number;
  /** Wait after a failed step before that entry is tried again. */
  retryDelayMs?: number;
  /** Safety-net poll for work when nothing woke the worker. */
  pollIntervalMs?: number;
  now: () => number;
  /** This worker's name in claims (default host:pid:random). */
  workerId?: string;
  /** How long a claim on an entry holds unrenewed (default 60 s): a dead worker's walks resume after it. */
  leaseMs?: number;
}

/** The entry's claim passed to another worker (this one stalled past the lease): the page is not written. */
class LostClaimError extends Error {
  override name = 'LostClaimError';
}

/** The chain returned something that does not continue the walk: never write it. */
export class BrokenChainError extends Error {
  override name = 'BrokenChainError';
}

export class Backfill {
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  /** Entries being walked here, by `asset|owner`. */
  private readonly inFlight = new Map<string, EntryKey>();
  readonly workerId: string;
  private readonly leaseMs: number;
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(private readonly opts: BackfillOptions) {
    this.workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.leaseMs = opts.leaseMs ?? 60_000;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.heartbeat = setInterval(() => void this.renew(), this.leaseMs / 4);
    this.heartbeat.unref();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    // Walks stopped between pages: other workers may resume them at once.
    await releaseAllClaims(asDb(this.opts.store.db), this.workerId).catch((err) => this.opts.logger.warn({ err }, 'backfill: releasing claims failed; they expire on their own'));
  }

  /** Keeps the claims of the entries being walked (a slow chain source may take long for a page). */
  private async renew(): Promise<void> {
    if (this.inFlight.size === 0) return;
    try {
      const lost = await renewClaims(asDb(this.opts.store.db), this.workerId, this.leaseMs, [...this.inFlight.values()]);
      if (lost.length > 0) this.opts.logger.warn({ lost }, 'backfill: claims taken over by another worker; their pages here will not be written');
    } catch (err) {
      this.opts.logger.warn({ err }, 'backfill: renewing claims failed');
    }
  }

  /** New work was queued (a new entry, a resync request). */
  wake(): void {
    this.wakeUp?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        done();
      };
    });
  }

  private async run(): Promise<void> {
    const workers = new Set<Promise<void>>();
    while (this.running) {
      let started = 0;
      try {
        const free = this.opts.concurrency - this.inFlight.size;
        if (free > 0) {
          const rows = await claimWalks(asDb(this.opts.store.db), this.workerId, this.leaseMs, free);
          for (const row of rows) {
            const id = `${row.asset}|${row.owner}`;
            if (this.inFlight.has(id)) continue;
            this.inFlight.set(id, { asset: row.asset, owner: row.owner });
            started++;
            const work = this.step(row).finally(() => {
              this.inFlight.delete(id);
              workers.delete(work);
              this.wakeUp?.();
            });
            workers.add(work);
          }
        }
      } catch (err) {
        this.opts.logger.error({ err }, 'backfill: reading pending walks failed');
      }
      if (started === 0) await this.sleep(this.inFlight.size > 0 ? 60_000 : (this.opts.pollIntervalMs ?? 5_000));
    }
    await Promise.allSettled([...workers]);
  }

  /** One page of one entry's walk. Failures are recorded on the entry and retried later. */
  private async step(row: TrackedRow): Promise<void> {
    const key = { asset: row.asset, owner: row.owner };
    const db = asDb(this.opts.store.db);
    try {
      if (row.walk_lt === null || row.walk_hash === null) {
        await this.startResync(row);
      } else {
        await this.walkPage(row, { lt: BigInt(row.walk_lt), hash: row.walk_hash });
      }
    } catch (err) {
      if (err instanceof LostClaimError) {
        this.opts.logger.warn({ asset: row.asset, owner: row.owner }, err.message);
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      this.opts.logger.warn({ err, asset: row.asset, owner: row.owner, contract: row.contract }, 'backfill step failed; will retry');
      this.opts.metrics?.backfillErrors.inc();
      await recordWalkError(db, key, message, this.opts.now()).catch(() => {});
      // Claimable again (by any worker) once the retry delay has passed.
      await releaseClaim(db, this.workerId, key, this.opts.retryDelayMs ?? 5_000).catch(() => {});
    }
  }

  /** A resync walks from the contract's current state down to what is already processed. */
  private async startResync(row: TrackedRow): Promise<void> {
    const state = await this.opts.source.getAccountState(row.contract);
    const walk = state.lastTxLt > 0n ? { lt: state.lastTxLt, hash: state.lastTxHash } : null;
    if (!(await updateWalk(asDb(this.opts.store.db), row, { walk, resync: false, error: null, now: this.opts.now(), claimedBy: this.workerId }))) {
      throw new LostClaimError('backfill: the claim passed to another worker before the resync started here');
    }
  }

  private async walkPage(row: TrackedRow, from: { lt: bigint; hash: string }): Promise<void> {
    const txs = await this.opts.source.getTransactions(row.contract, from.lt, from.hash, MAX_TRANSACTIONS_PER_CALL);
    verifyLinks(row.contract, from, txs);
    const role: Role = { asset: row.asset, owner: row.owner };
    await this.opts.store.db.transaction().execute(async (trx) => {
      const db = asDb(trx);
      const known = await processedLts(db, role, txs.map((t) => t.lt));
      const fresh: Extraction[] = [];
      let met: TransactionModel | null = null;
      for (const tx of txs) {
        if (known.has(tx.lt)) {
          met = tx;
          break;
        }
        fresh.push(extract(tx, role));
      }
      await writeExtractions(db, fresh);
      const last = txs[txs.length - 1]!;
      // Met a processed transaction: continue below the part of the chain that is already whole.
      const next = met ? await firstMissingBelow(db, role, met.lt, met.hash) : last.prevLt === 0n ? null : { lt: last.prevLt, hash: last.prevHash };
      // Fenced: a worker whose claim passed to another (it stalled past the lease) writes nothing.
      if (!(await updateWalk(db, role, { walk: next, backfillDone: next === null, error: null, now: this.opts.now(), claimedBy: this.workerId }))) {
        throw new LostClaimError('backfill: the claim passed to another worker during the page; rolled back');
      }
      this.opts.metrics?.backfillTransactions.inc(fresh.length);
    });
  }
}

/** The page must start at the requested transaction and follow prev links, all on this contract. */
export function verifyLinks(contract: AccountId, from: { lt: bigint; hash: string }, txs: TransactionModel[]): void {
  if (txs.length === 0) throw new BrokenChainError(`getTransactions(${contract}, ${from.lt}) returned nothing`);
  let expect = from;
  for (const tx of txs) {
    if (tx.account !== contract) throw new BrokenChainError(`getTransactions(${contract}) returned a transaction of ${tx.account}`);
    if (tx.lt !== expect.lt || tx.hash !== expect.hash) {
      throw new BrokenChainError(`transaction chain of ${contract} broken: expected ${expect.lt}:${expect.hash}, got ${tx.lt}:${tx.hash}`);
    }
    expect = { lt: tx.prevLt, hash: tx.prevHash };
  }
}
