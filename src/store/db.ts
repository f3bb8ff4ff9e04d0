// One store for every component: SQLite (better-sqlite3, the embedded default) or PostgreSQL
// (DATABASE_URL). Same Kysely queries on both. Convention: every integer column is `bigint`
// (int8) and comes back as a JS bigint on both dialects; booleans are stored as 0/1 bigint;
// JSON is stored as text; binary as blob/bytea (Buffer).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql, type CompiledQuery, type Driver } from 'kysely';
import { Checkpointer, type CheckpointerOptions, type CheckpointStats } from './checkpointer.js';
import { withStatementCache } from './statements.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Store {
  readonly dialect: DialectName;
  /** Untyped handle; components narrow it with `tables<T>(store)`. */
  readonly db: Kysely<any>;
  /** Human-readable target, with no credentials. */
  readonly description: string;
  /** SQLite on a file: the background WAL checkpointer's counters. */
  readonly checkpoints?: CheckpointStats;
  /**
   * PostgreSQL only: a connection outside the pool, with the pool's settings (schema, types), for
   * what lives as long as a session does (advisory locks, LISTEN). The caller ends it.
   */
  connect?(applicationName: string): Promise<pg.Client>;
  /**
   * SQLite only: a number that changes whenever another connection — another process, such as the
   * `keys` command — commits to the file (`PRAGMA data_version`); cheap enough to read per request.
   */
  dataVersion?(): number;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** `postgres://…` selects PostgreSQL; otherwise SQLite at `sqlitePath`. */
  databaseUrl?: string;
  /** SQLite file (`:memory:` for tests). */
  sqlitePath?: string;
  /** PostgreSQL schema to use (created when missing); isolates parallel test runs. */
  pgSchema?: string;
  /** Largest PostgreSQL pool. */
  pgPoolSize?: number;
  /** SQLite on a file: when the WAL checkpointer runs (tests; its defaults otherwise). */
  checkpoints?: Pick<CheckpointerOptions, 'intervalMs' | 'afterWriteMs'>;
}

/** Narrows the store's handle to a component's own tables. */
export function tables<T>(store: Store): Kysely<T> {
  return store.db as unknown as Kysely<T>;
}

/** PostgreSQL could not be reached at start; the message names DATABASE_URL (without its password). */
export class StoreUnreachableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreUnreachableError';
  }
}

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl && /^postgres(ql)?:\/\//.test(options.databaseUrl)) {
    const url = options.databaseUrl;
    return openPostgres(url, options.pgSchema, options.pgPoolSize ?? 10).catch((err: unknown) => {
      throw connectError(url, err);
    });
  }
  return openSqlite(options.sqlitePath ?? ':memory:', options.checkpoints);
}

function openSqlite(file: string, checkpoints?: StoreOptions['checkpoints']): Store {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const database = new Database(file);
  database.defaultSafeIntegers(true);
  database.pragma('journal_mode = WAL');
  // WAL + NORMAL survives a process kill (only an OS crash can lose the last commits).
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  const checkpointer = file === ':memory:' ? null : startCheckpointer(database, file, checkpoints);
  const db = new Kysely<any>({ dialect: new StoreSqliteDialect(database, () => checkpointer?.written()) });
  return {
    dialect: 'sqlite',
    db,
    description: `sqlite:${file}`,
    checkpoints: checkpointer?.stats,
    dataVersion: () => Number(database.pragma('data_version', { simple: true })),
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/**
 * SQLite ends a transaction by itself on some errors (SQLITE_FULL, SQLITE_IOERR); Kysely's rollback
 * after that would fail and hide the error that matters ("database or disk is full").
 */
class StoreSqliteDialect extends SqliteDialect {
  /**
   * `written` is called after each committed write (a write outside a transaction, a commit): the
   * checkpointer's cue. Kysely's SQLite driver has one connection, made once.
   */
  constructor(
    private readonly database: Database.Database,
    written: () => void,
  ) {
    super({
      database: withStatementCache(database),
      onCreateConnection: async (connection) => {
        const execute = connection.executeQuery.bind(connection);
        connection.executeQuery = async <R>(query: CompiledQuery) => {
          const result = await execute<R>(query);
          // reads carry no affected-row count; inside a transaction nothing is committed yet
          if (result.numAffectedRows !== undefined && !database.inTransaction) written();
          return result;
        };
      },
    });
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const rollback = driver.rollbackTransaction.bind(driver);
    driver.rollbackTransaction = async (connection) => {
      if (this.database.inTransaction) await rollback(connection);
    };
    return driver;
  }
}

/** Moves WAL checkpoints to a worker thread; on its failure SQLite's own automatic checkpoints resume. */
function startCheckpointer(database: Database.Database, file: string, timing?: StoreOptions['checkpoints']): Checkpointer {
  // Bounds the WAL file's size on disk after each checkpoint resets it.
  database.pragma('journal_size_limit = 67108864');
  database.pragma('wal_autocheckpoint = 0');
  return new Checkpointer(path.resolve(file), {
    ...timing,
    onFailure: (err) => {
      process.emitWarning(`SQLite checkpoint worker failed (${err.message}); checkpoints run on commits again`);
      if (database.open) database.pragma('wal_autocheckpoint = 1000');
    },
  });
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** A failure of the first connection (or of the server's first answer) as DATABASE_URL's; other errors unchanged. */
function connectError(url: string, err: unknown): unknown {
  // pg reports a refused localhost (IPv4 and IPv6) as an AggregateError with an empty message
  const e = err as NodeJS.ErrnoException & { errors?: NodeJS.ErrnoException[]; severity?: string };
  const code = e.code ?? e.errors?.[0]?.code;
  if (!code) return err;
  const at = `DATABASE_URL: ${redactUrl(url)}`;
  // the server answered, and refused (a password, a database that does not exist, a permission)
  if (e.severity) return new StoreUnreachableError(`${at}: PostgreSQL says: ${e.message}`, { cause: err });
  const reason = code === 'ECONNREFUSED' ? 'the connection was refused (is PostgreSQL running there?)' : code === 'ENOTFOUND' ? 'its host name does not resolve' : e.message || code;
  return new StoreUnreachableError(`${at}: cannot connect to PostgreSQL: ${reason}`, { cause: err });
}

const redactUrl = (url: string) => url.replace(/\/\/[^@/]*@/, '//***@');

async function openPostgres(url: string, schema: string | undefined, max: number): Promise<Store> {
  if (schema && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid PostgreSQL schema name: ${schema}`);
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } finally {
      await admin.end();
    }
  }
  const settings = {
    connectionString: url,
    // While the database is unreachable, queries fail in seconds instead of waiting for the OS.
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    options: schema ? `-c search_path=${schema}` : undefined,
    types: {
      getTypeParser: ((oid: number, format?: string) => {
        if (oid === INT8_OID) return (v: string) => BigInt(v);
        if (oid === NUMERIC_OID) return (v: string) => v;
        return pg.types.getTypeParser(oid, format as any);
      }) as any,
    },
  };
  const pool = new pg.Pool({ ...settings, max });
  // A connection that dies (a database restart, a network cut) fails its query, idle or checked out, and
  // the pool opens a new one for the next; unhandled, its 'error' event would end the process.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  await sql`select 1`.execute(db);
  const safe = redactUrl(url);
  return {
    dialect: 'postgres',
    db,
    description: schema ? `${safe} (schema ${schema})` : safe,
    connect: async (applicationName) => {
      // PostgreSQL keeps application names to 63 bytes
      const client = new pg.Client({ ...settings, application_name: applicationName.slice(0, 63) });
      // a lost connection fails its next query; its owner watches 'end' (unhandled 'error' would end the process)
      client.on('error', () => {});
      await client.connect();
      return client;
    },
    close: () => db.destroy(),
  };
}

/** Reads a 0/1 (or boolean) column as a boolean on both dialects. */
export function toBool(value: unknown): boolean {
  return value === true || value === 1 || value === 1n || value === '1';
}

/** Reads an integer column (bigint on both dialects) as a number; for ids, counts and seconds. */
export function toNum(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return typeof value === 'bigint' ? Number(value) : Number(value);
}
