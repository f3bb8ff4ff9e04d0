// The audit: between two points of an entry's life, the transfers and fees the indexer recorded must
// explain the change of the balance on chain, and the processed transactions must form an unbroken
// prev-link chain. The end point is always the chain source's head; the start is the contract's
// creation (balance 0) or a checkpoint — the balance on chain an earlier audit saw, stored by it.
import type { AccountId, HashHex } from '../chain/model.js';
import type { ChainSource } from '../chain/source.js';
import { badRequest } from '../errors.js';
import { chainCall, jettonBalance } from './chain.js';
import { TON } from './extract.js';
import { asDb, type EntryKey } from './store.js';
import type { TrackedRow } from './tables.js';

type Db = ReturnType<typeof asDb>;

interface Point {
  mcSeqno: number | null;
  lastLt: bigint;
  lastHash: HashHex;
  balance: bigint;
}

export interface AuditJson {
  address: AccountId;
  jetton?: AccountId;
  jetton_wallet?: AccountId;
  from: { point: 'creation' | 'checkpoint'; mc_seqno: number | null; last_lt: number; balance: string };
  to: { point: 'head'; mc_seqno: number; last_lt: number; balance: string };
  transactions: number;
  transfers_in: string;
  transfers_out: string;
  fees: string;
  expected_change: string;
  actual_change: string;
  difference: string;
  missing_transactions: Array<{ lt: number; hash: string }>;
  reconciled: boolean;
}

/** The entry's balance on chain now: TON of the account, or jettons of the jetton wallet. */
async function headPoint(source: ChainSource, row: TrackedRow): Promise<Point & { mcSeqno: number }> {
  const state = await chainCall('reading the account state', () => source.getAccountState(row.contract));
  const balance = row.asset === TON ? state.balance : state.status === 'active' ? await jettonBalance(source, row.contract) : 0n;
  return { mcSeqno: state.mcSeqno, lastLt: state.lastTxLt, lastHash: state.lastTxHash, balance };
}

async function checkpoint(db: Db, key: EntryKey, mcSeqno: number): Promise<Point> {
  const row = await db
    .selectFrom('indexer_checkpoints')
    .selectAll()
    .where('asset', '=', key.asset)
    .where('owner', '=', key.owner)
    .where('mc_seqno', '=', BigInt(mcSeqno))
    .executeTakeFirst();
  if (!row) {
    const known = await db.selectFrom('indexer_checkpoints').select('mc_seqno').where('asset', '=', key.asset).where('owner', '=', key.owner).orderBy('mc_seqno', 'desc').limit(10).execute();
    const list = known.length ? `; checkpoints: ${known.map((k) => k.mc_seqno).join(', ')}` : '; run an audit first: each one leaves a checkpoint';
    throw badRequest(`since: no audit checkpoint at masterchain seqno ${mcSeqno} for this entry${list}`, 'since');
  }
  return { mcSeqno, lastLt: BigInt(row.last_lt), lastHash: row.last_hash, balance: BigInt(row.balance) };
}

export async function audit(db: Db, source: ChainSource, row: TrackedRow, since: number | undefined, now: number): Promise<AuditJson> {
  const key = { asset: row.asset, owner: row.owner };
  const from: Point = since === undefined ? { mcSeqno: null, lastLt: 0n, lastHash: '', balance: 0n } : await checkpoint(db, key, since);
  const to = await headPoint(source, row);
  const lines = await db
    .selectFrom('indexer_transactions')
    .select(['lt', 'hash', 'prev_lt', 'prev_hash', 'fee'])
    .where('asset', '=', key.asset)
    .where('owner', '=', key.owner)
    .where('lt', '>', from.lastLt)
    .where('lt', '<=', to.lastLt)
    .orderBy('lt', 'desc')
    .execute();
  const transfers = await db
    .selectFrom('indexer_transfers')
    .select(['direction', 'status', 'amount'])
    .where('asset', '=', key.asset)
    .where('owner', '=', key.owner)
    .where('lt', '>', from.lastLt)
    .where('lt', '<=', to.lastLt)
    .execute();

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
  const actual = to.balance - from.balance;
  const breaks = chainBreaks(lines, { lt: to.lastLt, hash: to.lastHash }, { lt: from.lastLt, hash: from.lastHash });

  // the head's balance is a chain fact: later audits may start from it
  await db
    .insertInto('indexer_checkpoints')
    .values({ ...key, mc_seqno: BigInt(to.mcSeqno), last_lt: to.lastLt, last_hash: to.lastHash, balance: to.balance.toString(), created_at: BigInt(now) })
    .onConflict((oc) => oc.columns(['asset', 'owner', 'mc_seqno']).doNothing())
    .execute();

  return {
    address: key.owner,
    ...(key.asset === TON ? {} : { jetton: key.asset, jetton_wallet: row.contract }),
    from: { point: since === undefined ? 'creation' : 'checkpoint', mc_seqno: from.mcSeqno, last_lt: Number(from.lastLt), balance: from.balance.toString() },
    to: { point: 'head', mc_seqno: to.mcSeqno, last_lt: Number(to.lastLt), balance: to.balance.toString() },
    transactions: lines.length,
    transfers_in: incoming.toString(),
    transfers_out: outgoing.toString(),
    fees: fees.toString(),
    expected_change: expected.toString(),
    actual_change: actual.toString(),
    difference: (actual - expected).toString(),
    missing_transactions: breaks,
    reconciled: actual === expected && breaks.length === 0,
  };
}

/**
 * Where the processed chain from `top` down to `bottom` (exclusive; lt 0 = creation) is broken: each
 * item names a transaction a successor's prev link points to that was not processed.
 */
export function chainBreaks(
  lines: Array<{ lt: bigint; hash: string; prev_lt: bigint; prev_hash: string }>,
  top: { lt: bigint; hash: string },
  bottom: { lt: bigint; hash: string },
): Array<{ lt: number; hash: string }> {
  const breaks: Array<{ lt: number; hash: string }> = [];
  let expect = top;
  const reachedBottom = () => expect.lt <= bottom.lt;
  for (const line of lines) {
    if (reachedBottom() || breaks.length >= 20) break;
    const lt = BigInt(line.lt);
    if (lt > expect.lt) continue;
    // anything between the expected transaction and this line is missing as far as we know
    if (lt !== expect.lt || line.hash !== expect.hash) breaks.push({ lt: Number(expect.lt), hash: expect.hash });
    expect = { lt: BigInt(line.prev_lt), hash: line.prev_hash };
  }
  if (breaks.length >= 20) return breaks;
  // the chain must land exactly on the starting point (lt 0: the contract's creation)
  const landed = bottom.lt === 0n ? expect.lt === 0n : expect.lt === bottom.lt && expect.hash === bottom.hash;
  if (!landed) breaks.push({ lt: Number(expect.lt), hash: expect.hash });
  return breaks;
}
