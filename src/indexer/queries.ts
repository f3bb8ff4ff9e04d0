// The indexer's read API behind the routes: history pages, one transaction's transfers, balances
// and the audit. Every answer is about one tracked entry; an untracked one is a 404.
import type { AccountId, HashHex } from '../chain/model.js';
import type { ChainSource } from '../chain/source.js';
import { notFound } from '../http/errors.js';
import type { Store } from '../store/db.js';
import { chainCall, jettonBalance } from './chain.js';
import { TON, type Asset } from './extract.js';
import { cursorToken, transferJson, type TransferJson } from './json.js';
import {
  asDb,
  getTracked,
  historyRows,
  ledgerBounds,
  ledgerLines,
  rowsByHash,
  trackedJettonWallets,
  transfersUpTo,
  type EntryKey,
  type HistoryCursor,
} from './store.js';
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

  /**
   * Reconciles the entry's history with the chain, from the contract's creation (balance 0) to the
   * chain source's head: opening balance + transfers in − transfers out − fees must equal the
   * balance on chain. The prev-link chain of processed transactions must also be whole.
   */
  async audit(key: EntryKey) {
    const row = await this.entry(key);
    const state = await chainCall('reading the account state', () => this.source.getAccountState(row.contract));
    const closing = key.asset === TON ? state.balance : state.status === 'active' ? await jettonBalance(this.source, row.contract) : 0n;
    const lines = state.lastTxLt > 0n ? await ledgerLines(this.db, key, state.lastTxLt) : [];
    const transfers = state.lastTxLt > 0n ? await transfersUpTo(this.db, key, state.lastTxLt) : [];

    let incoming = 0n;
    let outgoing = 0n;
    for (const t of transfers) {
      // TON: every recorded movement happened on chain (a bounced deposit arrived, then left as a
      // refund record). Jettons: only movements the wallet executed changed its balance.
      if (key.asset !== TON && t.status !== 'ok') continue;
      if (t.direction === 'in') incoming += BigInt(t.amount);
      else outgoing += BigInt(t.amount);
    }
    const fees = key.asset === TON ? lines.reduce((sum, l) => sum + BigInt(l.fee), 0n) : 0n;
    const expected = incoming - outgoing - fees;
    const breaks = chainBreaks(lines, state.lastTxLt, state.lastTxHash);
    return {
      address: key.owner,
      ...(key.asset === TON ? {} : { jetton: key.asset, jetton_wallet: row.contract }),
      from: { point: 'creation', balance: '0' },
      to: { point: 'head', mc_seqno: state.mcSeqno, last_lt: Number(state.lastTxLt), balance: closing.toString() },
      transactions: lines.length,
      transfers_in: incoming.toString(),
      transfers_out: outgoing.toString(),
      fees: fees.toString(),
      expected_change: expected.toString(),
      actual_change: closing.toString(),
      difference: (closing - expected).toString(),
      missing_transactions: breaks,
      reconciled: closing === expected && breaks.length === 0,
    };
  }
}

/**
 * Where the processed chain from the state's last transaction down to the first one is broken:
 * each item names a transaction that should be there (by its successor's prev link) and is not.
 */
export function chainBreaks(lines: { lt: bigint; hash: string; prev_lt: bigint; prev_hash: string }[], lastLt: bigint, lastHash: string) {
  const breaks: { lt: number; hash: string }[] = [];
  if (lastLt === 0n) return breaks;
  let expect = { lt: lastLt, hash: lastHash };
  for (const line of lines) {
    if (expect.lt === 0n) break;
    if (BigInt(line.lt) > expect.lt) continue;
    if (BigInt(line.lt) !== expect.lt || line.hash !== expect.hash) {
      breaks.push({ lt: Number(expect.lt), hash: expect.hash });
      if (breaks.length >= 20) return breaks;
      // resynchronise on this line: everything between is missing as far as we know
    }
    expect = { lt: BigInt(line.prev_lt), hash: line.prev_hash };
  }
  if (expect.lt !== 0n && breaks.length < 20) breaks.push({ lt: Number(expect.lt), hash: expect.hash });
  return breaks;
}

export type { Asset };
