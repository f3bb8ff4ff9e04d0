// The devnet chain's own SQLite file (separate from the service store): blocks (their BoCs, and the
// validators' signatures of masterchain blocks), the zero states, transactions, account states,
// in-flight messages, the mempool and the counters. Each block is written in
// one SQLite transaction, so a restart — even after SIGKILL — resumes exactly after the last
// committed block.
import Database from 'better-sqlite3';
import { tlRead, tlWrite } from '../liteserver/tl/codec.js';
import { signatureSet, type SignatureSet } from '../liteserver/tl/lite-types.js';
import type { BlockHeader, HashHex, PendingMessage } from '../model.js';
import type { StoredZeroState } from './ledger.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blocks (
  workchain INTEGER NOT NULL, seqno INTEGER NOT NULL, shard TEXT NOT NULL,
  root_hash TEXT NOT NULL, file_hash TEXT NOT NULL, gen_utime INTEGER NOT NULL,
  start_lt INTEGER NOT NULL, end_lt INTEGER NOT NULL, mc_seqno INTEGER NOT NULL,
  key_block INTEGER NOT NULL, boc BLOB NOT NULL,
  -- masterchain blocks: the validators' liteServer.SignatureSet (TL)
  signatures BLOB,
  PRIMARY KEY (workchain, seqno));
CREATE INDEX IF NOT EXISTS blocks_by_mc ON blocks (mc_seqno);
CREATE UNIQUE INDEX IF NOT EXISTS blocks_by_root ON blocks (root_hash);
CREATE TABLE IF NOT EXISTS zero_states (
  workchain INTEGER PRIMARY KEY, root_hash TEXT NOT NULL, file_hash TEXT NOT NULL, boc BLOB NOT NULL);
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

/** One block as stored: its header, its BoC and (masterchain) the validators' signatures. */
export interface StoredBlock {
  header: BlockHeader;
  boc: Buffer;
  keyBlock: boolean;
  signatures: SignatureSet | null;
}

/** Everything one block changes, written atomically. */
export interface BlockWrite {
  blocks: StoredBlock[];
  /** With the first block: the zero states it starts from. */
  zeroStates?: StoredZeroState[];
  transactions: StoredTransaction[];
  accounts: Iterable<[string, string]>;
  newInflight: Array<{ hash: HashHex; destination: string; boc: Buffer }>;
  /** The newest mempool row the block executed; later rows (arrived while it waited) stay. All when absent. */
  consumedMempoolThrough?: number;
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
  key_block: bigint;
  boc: Buffer;
  signatures: Buffer | null;
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
    refuseSyntheticBlocks(this.db, file);
    this.db.exec(SCHEMA);
    const p = (sql: string) => this.db.prepare(sql).safeIntegers(true);
    this.stmt = {
      getMeta: p('SELECT value FROM meta WHERE key = ?').pluck(),
      setMeta: p('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      insertBlock: p(`INSERT INTO blocks (workchain, seqno, shard, root_hash, file_hash, gen_utime, start_lt, end_lt, mc_seqno, key_block, boc, signatures)
        VALUES (@workchain, @seqno, @shard, @rootHash, @fileHash, @genUtime, @startLt, @endLt, @mcSeqno, @keyBlock, @boc, @signatures)`),
      block: p('SELECT * FROM blocks WHERE workchain = ? AND seqno = ?'),
      blockByRoot: p('SELECT * FROM blocks WHERE root_hash = ?'),
      masterchainBefore: p('SELECT seqno, end_lt, root_hash, file_hash, key_block FROM blocks WHERE workchain = -1 AND seqno < ? ORDER BY seqno'),
      lastKeyBlock: p('SELECT seqno FROM blocks WHERE workchain = -1 AND key_block = 1 AND seqno <= ? ORDER BY seqno DESC LIMIT 1').pluck(),
      insertZeroState: p('INSERT INTO zero_states (workchain, root_hash, file_hash, boc) VALUES (@workchain, @rootHash, @fileHash, @boc)'),
      zeroStates: p('SELECT * FROM zero_states ORDER BY workchain'),
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
      clearPending: p("DELETE FROM pending WHERE kind = 'inflight' OR seq <= ?"),
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
      for (const z of block.zeroStates ?? []) this.stmt.insertZeroState.run(z);
      for (const b of block.blocks) {
        this.stmt.insertBlock.run({
          ...b.header,
          keyBlock: b.keyBlock ? 1 : 0,
          boc: b.boc,
          signatures: b.signatures ? tlWrite((w) => signatureSet.write(w, b.signatures!)) : null,
        });
      }
      for (const tx of block.transactions) this.stmt.insertTx.run(tx);
      for (const [id, shardAccount] of block.accounts) this.stmt.upsertAccount.run(id, shardAccount);
      // a block executes every in-flight internal and the mempool messages it was produced with
      this.stmt.clearPending.run(block.consumedMempoolThrough ?? Number.MAX_SAFE_INTEGER);
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

  /** A stored block by chain and seqno (the devnet has one shard per chain). */
  block(workchain: number, seqno: number): StoredBlock | null {
    const row = this.stmt.block.get(workchain, seqno) as BlockRow | undefined;
    return row ? toStoredBlock(row) : null;
  }

  /** A stored block by its root hash (hex). */
  blockByRootHash(rootHash: HashHex): StoredBlock | null {
    const row = this.stmt.blockByRoot.get(rootHash.toLowerCase()) as BlockRow | undefined;
    return row ? toStoredBlock(row) : null;
  }

  /** Masterchain blocks before `seqno`, oldest first (what the masterchain state lists). */
  masterchainBefore(seqno: number): Array<{ seqno: number; endLt: bigint; rootHash: string; fileHash: string; keyBlock: boolean }> {
    return (this.stmt.masterchainBefore.all(seqno) as BlockRow[]).map((r) => ({
      seqno: Number(r.seqno),
      endLt: r.end_lt,
      rootHash: r.root_hash,
      fileHash: r.file_hash,
      keyBlock: r.key_block === 1n,
    }));
  }

  /** Seqno of the newest key block at or before `seqno` (0: the zero state). */
  lastKeyBlockSeqno(seqno: number): number {
    const v = this.stmt.lastKeyBlock.get(seqno) as bigint | undefined;
    return v === undefined ? 0 : Number(v);
  }

  zeroStates(): StoredZeroState[] {
    return (this.stmt.zeroStates.all() as Array<{ workchain: bigint; root_hash: string; file_hash: string; boc: Buffer }>).map((r) => ({
      workchain: Number(r.workchain),
      rootHash: r.root_hash,
      fileHash: r.file_hash,
      boc: r.boc,
    }));
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

function toStoredBlock(r: BlockRow): StoredBlock {
  return {
    header: toHeader(r),
    boc: r.boc,
    keyBlock: r.key_block === 1n,
    signatures: r.signatures ? tlRead(r.signatures, (rd) => signatureSet.read(rd), 'stored signatures') : null,
  };
}

/**
 * A devnet file from before real blocks holds blocks with synthetic hashes that no real block can follow:
 * it is refused with what to do rather than continued as another chain.
 */
function refuseSyntheticBlocks(db: Database.Database, file: string): void {
  const columns = db.prepare("SELECT name FROM pragma_table_info('blocks')").pluck().all() as string[];
  if (columns.length > 0 && !columns.includes('boc')) {
    db.close();
    throw new Error(
      `${file} holds a devnet from a tonwatch version whose blocks were not real TON blocks; it cannot be continued. ` +
        'Remove its directory (the devnet/ folder under TONWATCH_DATA_DIR) to start a new devnet.',
    );
  }
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
