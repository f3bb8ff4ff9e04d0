// Background backfill: walks each tracked contract's transaction chain back through prev links
// (`getTransactions`, 16 per call) from its state at tracking time down to its first transaction.
// Every step writes its transactions and the walk's next position in one database transaction, so
// a restart resumes where it stopped. Walks also fill holes: after live tracking missed events
// (`resync`), a walk from the current state stops where the processed chain is whole again.
import type { Logger } from 'pino';
import type { AccountId, TransactionModel } from '../chain/model.js';
import { MAX_TRANSACTIONS_PER_CALL, type ChainSource } from '../chain/source.js';
import type { Store } from '../store/db.js';
import { extract, type Extraction, type Role } from './extract.js';
import type { IndexerMetrics } from './metrics.js';
import { asDb, firstMissingBelow, pendingWalks, processedLts, recordWalkError, updateWalk, writeExtractions } from './store.js';
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
}

/** The chain returned something that does not continue the walk: never write it. */
export class BrokenChainError extends Error {
  override name = 'BrokenChainError';
}

export class Backfill {
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private readonly inFlight = new Set<string>();
  /** Entries whose last step failed, with when they may be retried. */
  private readonly retryAt = new Map<string, number>();

  constructor(private readonly opts: BackfillOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
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
          const rows = await pendingWalks(asDb(this.opts.store.db), this.opts.concurrency * 2 + this.retryAt.size);
          const now = Date.now();
          for (const row of rows) {
            const id = `${row.asset}|${row.owner}`;
            if (this.inFlight.has(id) || (this.retryAt.get(id) ?? 0) > now) continue;
            if (this.inFlight.size >= this.opts.concurrency) break;
            this.inFlight.add(id);
            started++;
            const work = this.step(row, id).finally(() => {
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
  private async step(row: TrackedRow, id: string): Promise<void> {
    const key = { asset: row.asset, owner: row.owner };
    const db = asDb(this.opts.store.db);
    try {
      if (row.walk_lt === null || row.walk_hash === null) {
        await this.startResync(row);
      } else {
        await this.walkPage(row, { lt: BigInt(row.walk_lt), hash: row.walk_hash });
      }
      this.retryAt.delete(id);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.opts.logger.warn({ err, asset: row.asset, owner: row.owner, contract: row.contract }, 'backfill step failed; will retry');
      this.opts.metrics?.backfillErrors.inc();
      this.retryAt.set(id, Date.now() + (this.opts.retryDelayMs ?? 5_000));
      await recordWalkError(db, key, message, this.opts.now()).catch(() => {});
    }
  }

  /** A resync walks from the contract's current state down to what is already processed. */
  private async startResync(row: TrackedRow): Promise<void> {
    const state = await this.opts.source.getAccountState(row.contract);
    const walk = state.lastTxLt > 0n ? { lt: state.lastTxLt, hash: state.lastTxHash } : null;
    await updateWalk(asDb(this.opts.store.db), row, { walk, resync: false, error: null, now: this.opts.now() });
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
      await updateWalk(db, role, { walk: next, backfillDone: next === null, error: null, now: this.opts.now() });
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
