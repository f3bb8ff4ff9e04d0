// The indexer's read API behind the routes: history pages, one transaction's transfers, balances
// and the audit. Every answer is about one tracked entry; an untracked one is a 404.
import type { AccountId, HashHex } from '../chain/model.js';
import type { ChainSource } from '../chain/source.js';
import { notFound } from '../errors.js';
import type { Store } from '../store/db.js';
import { chainCall, jettonBalance } from './chain.js';
import { TON } from './extract.js';
import { cursorToken, transferJson, type TransferJson } from './json.js';
import { audit } from './audit.js';
import { asDb, getTracked, historyRows, ledgerBounds, rowsByHash, trackedJettonWallets, type EntryKey, type HistoryCursor } from './store.js';
import type { TrackedRow } from './tables.js';

export interface BackfillJson {
  done: boolean;
  /** Lowest lt processed so far (the walk's progress toward the contract's creation). */
  oldest_lt: number | null;
}

export class IndexerQueries {
  constructor(
    private readonly store: Store,
    private readonly source: ChainSource,
    private readonly now: () => number = Date.now,
  ) {}

  private get db() {
    return asDb(this.store.db);
  }

  /** The tracked entry, or a 404 naming what is not tracked. */
  async entry(key: EntryKey): Promise<TrackedRow> {
    const row = await getTracked(this.db, key);
    if (!row) throw notFound(key.asset === TON ? `${key.owner} is not tracked` : `jetton ${key.asset} of ${key.owner} is not tracked`);
    return row;
  }

  /** For a jetton history: notifications from these wallets are genuine, all others are rejected claims. */
  private async claimsExcept(key: EntryKey): Promise<AccountId[] | undefined> {
    return key.asset === TON ? undefined : trackedJettonWallets(this.db, key.owner);
  }

  async history(key: EntryKey, limit: number, before?: HistoryCursor): Promise<{ transfers: TransferJson[]; next_from: string | null }> {
    await this.entry(key);
    const rows = await historyRows(this.db, { ...key, claimsExcept: await this.claimsExcept(key), before, limit });
    const page = rows.slice(0, limit);
    return { transfers: page.map(transferJson), next_from: rows.length > limit ? cursorToken(page[page.length - 1]!) : null };
  }

  async byHash(key: EntryKey, hash: HashHex): Promise<{ hash: HashHex; transfers: TransferJson[] }> {
    await this.entry(key);
    const rows = await rowsByHash(this.db, { ...key, hash, claimsExcept: await this.claimsExcept(key) });
    if (rows.length === 0) throw notFound(`no transfer with transaction hash ${hash} in this history`);
    return { hash, transfers: rows.map(transferJson) };
  }

  async backfill(row: TrackedRow): Promise<BackfillJson> {
    const bounds = await ledgerBounds(this.db, row);
    let done = row.backfill_done === 1n;
    if (row.asset !== TON) {
      // a jetton history also needs the owner's notifications, which the owner's walk finds
      const owner = await getTracked(this.db, { asset: TON, owner: row.owner });
      done &&= owner?.backfill_done === 1n;
    }
    return { done, oldest_lt: bounds.oldestLt === null ? null : Number(bounds.oldestLt) };
  }

  /** Balance as of the chain source's head, and how far the history goes. */
  async balance(key: EntryKey) {
    const row = await this.entry(key);
    const state = await chainCall('reading the account state', () => this.source.getAccountState(row.contract));
    const balance = key.asset === TON ? state.balance : state.status === 'active' ? await jettonBalance(this.source, row.contract) : 0n;
    const bounds = await ledgerBounds(this.db, key);
    return {
      address: key.owner,
      ...(key.asset === TON ? {} : { jetton: key.asset, jetton_wallet: row.contract }),
      balance: balance.toString(),
      mc_seqno: state.mcSeqno,
      last_lt: Number(state.lastTxLt),
      last_processed_lt: bounds.newestLt === null ? null : Number(bounds.newestLt),
      backfill: await this.backfill(row),
    };
  }

  /** The audit from the contract's creation, or from the checkpoint an earlier audit left at `since`. */
  async audit(key: EntryKey, since?: number) {
    const row = await this.entry(key);
    return audit(this.db, this.source, row, since, this.now());
  }
}

