// The devnet chain's own SQLite file (separate from the service store): blocks, transactions,
// account states, in-flight messages, the mempool and the counters. Each block is written in
// one SQLite transaction, so a restart — even after SIGKILL — resumes exactly after the last
// committed block.
import Database from 'better-sqlite3';
import type { BlockHeader, HashHex, PendingMessage } from '../model.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blocks (
  workchain INTEGER NOT NULL, seqno INTEGER NOT NULL, shard TEXT NOT NULL,
  root_hash TEXT NOT NULL, file_hash TEXT NOT NULL, gen_utime INTEGER NOT NULL,
  start_lt INTEGER NOT NULL, end_lt INTEGER NOT NULL, mc_seqno INTEGER NOT NULL,
  PRIMARY KEY (workchain, seqno));
CREATE INDEX IF NOT EXISTS blocks_by_mc ON blocks (mc_seqno);
CREATE TABLE IF NOT EXISTS transactions (
  hash TEXT PRIMARY KEY, account TEXT NOT NULL, lt INTEGER NOT NULL,
  prev_lt INTEGER NOT NULL, prev_hash TEXT NOT NULL,
  workchain INTEGER NOT NULL, block_seqno INTEGER NOT NULL, mc_seqno INTEGER NOT NULL,
  in_msg_hash TEXT NOT NULL, boc BLOB NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS transactions_by_account ON transactions (account, lt);
CREATE INDEX IF NOT EXISTS transactions_by_mc ON transactions (mc_seqno);
CREATE INDEX IF NOT EXISTS transactions_by_in_msg ON transactions (in_msg_hash);
CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, shard_account TEXT NOT NULL);
-- messages not executed yet: 'inflight' internals for the next block, and the 'mempool' externals
CREATE TABLE IF NOT EXISTS pending (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, hash TEXT NOT NULL,
  destination TEXT NOT NULL, boc BLOB NOT NULL, received_at INTEGER NOT NULL, involved TEXT);
`;

export interface StoredTransaction {
  hash: HashHex;
  account: string;
  lt: bigint;
  prevLt: bigint;
  prevHash: HashHex;
  workchain: number;
  blockSeqno: number;
  mcSeqno: number;
  inMessageHash: HashHex;
  boc: Buffer;
}

export interface StoredPending {
  seq: number;
  kind: 'inflight' | 'mempool';
  hash: HashHex;
  destination: string;
  boc: Buffer;
  receivedAt: number;
  involved: string[] | null;
}

/** Everything one block changes, written atomically. */
export interface BlockWrite {
  headers: BlockHeader[];
  transactions: StoredTransaction[];
  accounts: Iterable<[string, string]>;
  newInflight: Array<{ hash: HashHex; destination: string; boc: Buffer }>;
  meta: Record<string, string>;
}

interface BlockRow {
  workchain: bigint;
  seqno: bigint;
  shard: string;
  root_hash: string;
  file_hash: string;
  gen_utime: bigint;
  start_lt: bigint;
  end_lt: bigint;
  mc_seqno: bigint;
}

interface TransactionRow {
  hash: string;
  account: string;
  lt: bigint;
  prev_lt: bigint;
  prev_hash: string;
  workchain: bigint;
  block_seqno: bigint;
  mc_seqno: bigint;
  in_msg_hash: string;
  boc: Buffer;
}

export class DevnetStorage {
  private readonly db: Database.Database;
  private readonly stmt;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    const p = (sql: string) => this.db.prepare(sql).safeIntegers(true);
    this.stmt = {
      getMeta: p('SELECT value FROM meta WHERE key = ?').pluck(),
      setMeta: p('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      insertBlock: p(`INSERT INTO blocks (workchain, seqno, shard, root_hash, file_hash, gen_utime, start_lt, end_lt, mc_seqno)
        VALUES (@workchain, @seqno, @shard, @rootHash, @fileHash, @genUtime, @startLt, @endLt, @mcSeqno)`),
      blocksOfMc: p('SELECT * FROM blocks WHERE mc_seqno = ? ORDER BY workchain = -1 DESC, workchain, seqno'),
      firstMc: p('SELECT MIN(seqno) FROM blocks WHERE workchain = -1').pluck(),
      insertTx: p(`INSERT INTO transactions (hash, account, lt, prev_lt, prev_hash, workchain, block_seqno, mc_seqno, in_msg_hash, boc)
        VALUES (@hash, @account, @lt, @prevLt, @prevHash, @workchain, @blockSeqno, @mcSeqno, @inMessageHash, @boc)`),
      txsOfMc: p(`SELECT * FROM transactions WHERE mc_seqno = ?
        ORDER BY workchain = -1 DESC, workchain, block_seqno, lt, account`),
      txsOfAccount: p('SELECT * FROM transactions WHERE account = ? AND lt <= ? ORDER BY lt DESC LIMIT ?'),
      txByInMessage: p('SELECT hash FROM transactions WHERE in_msg_hash = ? LIMIT 1').pluck(),
      upsertAccount: p(`INSERT INTO accounts (id, shard_account) VALUES (?, ?)
        ON CONFLICT (id) DO UPDATE SET shard_account = excluded.shard_account`),
      allAccounts: p('SELECT id, shard_account FROM accounts'),
      insertPending: p(`INSERT INTO pending (kind, hash, destination, boc, received_at, involved)
        VALUES (@kind, @hash, @destination, @boc, @receivedAt, @involved)`),
      allPending: p('SELECT * FROM pending ORDER BY seq'),
      clearPending: p('DELETE FROM pending'),
    };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  getMeta(key: string): string | null {
    return (this.stmt.getMeta.get(key) as string | undefined) ?? null;
  }

  setMeta(key: string, value: string): void {
    this.stmt.setMeta.run(key, value);
  }

  loadAccounts(): Array<[string, string]> {
    return (this.stmt.allAccounts.all() as Array<{ id: string; shard_account: string }>).map((r) => [
      r.id,
      r.shard_account,
    ]);
  }

  loadPending(): StoredPending[] {
    return (this.stmt.allPending.all() as Array<Record<string, unknown>>).map((r) => ({
      seq: Number(r.seq),
      kind: r.kind as StoredPending['kind'],
      hash: r.hash as string,
      destination: r.destination as string,
      boc: r.boc as Buffer,
      receivedAt: Number(r.received_at),
      involved: r.involved ? (JSON.parse(r.involved as string) as string[]) : null,
    }));
  }

  /** Persists a message accepted into the mempool; returns its queue position. */
  addToMempool(message: PendingMessage, boc: Buffer): number {
    const res = this.stmt.insertPending.run({
      kind: 'mempool',
      hash: message.hash,
      destination: message.destination,
      boc,
      receivedAt: message.receivedAt,
      involved: message.involvedAccounts ? JSON.stringify(message.involvedAccounts) : null,
    });
    return Number(res.lastInsertRowid);
  }

  /** Writes one produced block and everything it changed, atomically. */
  writeBlock(block: BlockWrite): void {
    this.db.transaction(() => {
      for (const h of block.headers) this.stmt.insertBlock.run(h);
      for (const tx of block.transactions) this.stmt.insertTx.run(tx);
      for (const [id, shardAccount] of block.accounts) this.stmt.upsertAccount.run(id, shardAccount);
      // a block executes every pending message: in-flight internals and the whole mempool
      this.stmt.clearPending.run();
      for (const m of block.newInflight) {
        this.stmt.insertPending.run({ kind: 'inflight', ...m, receivedAt: 0, involved: null });
      }
      for (const [key, value] of Object.entries(block.meta)) this.stmt.setMeta.run(key, value);
    })();
  }

  /** Writes accounts of the zero state (before the first block), with the counters. */
  writeZeroState(accounts: Iterable<[string, string]>, meta: Record<string, string>): void {
    this.db.transaction(() => {
      for (const [id, shardAccount] of accounts) this.stmt.upsertAccount.run(id, shardAccount);
      for (const [key, value] of Object.entries(meta)) this.stmt.setMeta.run(key, value);
    })();
  }

  blocksOfMasterchainSeqno(mcSeqno: number): BlockHeader[] {
    return (this.stmt.blocksOfMc.all(mcSeqno) as BlockRow[]).map(toHeader);
  }

  oldestMasterchainSeqno(): number | null {
    const v = this.stmt.firstMc.get() as bigint | null;
    return v === null ? null : Number(v);
  }

  transactionsOfMasterchainSeqno(mcSeqno: number): StoredTransaction[] {
    return (this.stmt.txsOfMc.all(mcSeqno) as TransactionRow[]).map(toStoredTransaction);
  }

  /** An account's transactions with lt ≤ `lt`, newest first. */
  accountTransactions(account: string, lt: bigint, limit: number): StoredTransaction[] {
    return (this.stmt.txsOfAccount.all(account, lt, limit) as TransactionRow[]).map(toStoredTransaction);
  }

  /** Hash of the transaction that consumed the message, if it is on chain. */
  transactionOfInMessage(messageHash: HashHex): HashHex | null {
    return (this.stmt.txByInMessage.get(messageHash) as string | undefined) ?? null;
  }
}

function toHeader(r: BlockRow): BlockHeader {
  return {
    workchain: Number(r.workchain),
    shard: r.shard,
    seqno: Number(r.seqno),
    rootHash: r.root_hash,
    fileHash: r.file_hash,
    genUtime: Number(r.gen_utime),
    startLt: r.start_lt,
    endLt: r.end_lt,
    mcSeqno: Number(r.mc_seqno),
  };
}

function toStoredTransaction(r: TransactionRow): StoredTransaction {
  return {
    hash: r.hash,
    account: r.account,
    lt: r.lt,
    prevLt: r.prev_lt,
    prevHash: r.prev_hash,
    workchain: Number(r.workchain),
    blockSeqno: Number(r.block_seqno),
    mcSeqno: Number(r.mc_seqno),
    inMessageHash: r.in_msg_hash,
    boc: r.boc,
  };
}
