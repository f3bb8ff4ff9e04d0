// Real `tonwatch serve` processes in a cluster on one PostgreSQL schema, following the replay chain
// (or a standalone `tonwatch devnet serve` over the liteserver protocol), and SSE clients that follow
// a node and move to another when theirs goes away.
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll } from 'vitest';
import { run as devnetCli } from '../../src/cli/commands/devnet.js';
import { runCli } from '../support/cli.js';
import { ROOT, spawnService, type SpawnedService } from '../support/service.js';
import { openRawStream, type RawStream } from '../support/streaming.js';
import { PG_URL, uniqueSchema } from '../support/stores.js';

export interface ClusterDb {
  schema: string;
  /** When the replay chain of every node on this database starts (TONWATCH_REPLAY_START). */
  replayStart: number;
  /** DATABASE_URL for processes: the test database with the schema as search path. */
  url: string;
  query<T extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

export async function clusterDb(): Promise<ClusterDb> {
  const schema = uniqueSchema('cluster');
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.query(`set search_path = ${schema}`);
  return {
    schema,
    replayStart: Date.now(),
    url: `${PG_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    query: async (text, values) => (await client.query(text, values as any[])).rows,
    async drop() {
      await client.query(`drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

/** The chain every node follows: the replay source at 5 blocks/s, 10 transactions each. */
export const REPLAY = { TONWATCH_CHAIN: 'replay', TONWATCH_WEBHOOK_ALLOW_LOOPBACK: 'true', TONWATCH_BLOCK_INTERVAL_MS: '200', TONWATCH_REPLAY_RATE: '50', TONWATCH_REPLAY_ACCOUNTS: '100' };

export interface Node extends SpawnedService {
  name: string;
}

/** Starts `tonwatch serve` with the cluster settings; `env` adds or overrides. */
export async function startNode(db: ClusterDb, name: string, adminKey: string, env: Record<string, string> = {}): Promise<Node> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `tonwatch-${name}-`));
  const spawned = await spawnService({
    dataDir,
    adminKey,
    env: {
      DATABASE_URL: db.url,
      TONWATCH_CLUSTER: 'true',
      ...REPLAY,
      // nodes started later follow the same chain at the same height
      TONWATCH_REPLAY_START: String(db.replayStart),
      ...env,
    },
  });
  void spawned.exited.then(() => rmSync(dataDir, { recursive: true, force: true }));
  return { ...spawned, name };
}

export interface DevnetServe extends SpawnedService {
  /** A global.config.json for its liteserver, written by `tonwatch devnet global-config`. */
  globalConfig: string;
}

/** Runs `tonwatch devnet serve` in a child process (its liteserver on a free loopback port) and writes its global config. */
export async function startDevnetServe(env: Record<string, string> = {}): Promise<DevnetServe> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-devnet-serve-'));
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'devnet', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', TONWATCH_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  void exited.then(() => rmSync(dataDir, { recursive: true, force: true }));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tonwatch devnet serve did not start in time:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /devnet control\s+(http:\/\/\S+)\/devnet\/wallets/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`tonwatch devnet serve exited (${code}) before it ran:\n${output}`));
    });
  });
  const printed = await runCli(devnetCli, ['global-config', '--url', url]);
  if (printed.code !== 0) throw new Error(`tonwatch devnet global-config: ${printed.err}`);
  const globalConfig = path.join(dataDir, 'devnet.global.config.json');
  writeFileSync(globalConfig, printed.out);
  return { child, url, dataDir, adminKey: '', output: () => output, exited, globalConfig };
}

/** SIGTERM once the process has its signal handlers (the banner follows them); resolves with the exit code. */
export async function stopGracefully(node: SpawnedService): Promise<number | string> {
  await until(async () => node.output().includes('tonwatch is running on the'), 'the start banner', 30_000);
  node.child.kill('SIGTERM');
  return node.exited;
}

/** The node's /readyz follower facts. */
export async function followerFacts(node: Node): Promise<{ ok: boolean; leader: boolean; term?: number; running: boolean; lastSeqno?: number }> {
  const res = await fetch(`${node.url}/readyz`);
  return ((await res.json()) as any).checks.follower;
}

export async function until<T>(probe: () => Promise<T | undefined | null | false>, what: string, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * An SSE client of every account's transactions: follows one node, and when that stream ends moves
 * to the next node with the last id it saw (Last-Event-ID), as a browser behind a balancer would.
 */
export class FollowingClient {
  readonly ids: number[] = [];
  readonly reconnects: string[] = [];
  private stream: RawStream | null = null;
  private parsed = 0;
  private closed = false;
  private done: Promise<void>;

  constructor(
    private readonly nodes: () => Node[],
    first: Node,
    private readonly adminKey: string,
    after: number,
  ) {
    this.done = this.run(first, after);
  }

  get last(): number | undefined {
    return this.ids.at(-1);
  }

  private async run(node: Node, after: number): Promise<void> {
    let lastId = after;
    let current = node;
    while (!this.closed) {
      try {
        const stream = await openRawStream(`${current.url}/v2/sse/accounts/transactions?accounts=ALL`, {
          headers: { authorization: `Bearer ${this.adminKey}`, 'last-event-id': String(lastId) },
        });
        this.stream = stream;
        this.parsed = 0;
        const drain = () => {
          const text = stream.text();
          for (;;) {
            const end = text.indexOf('\n\n', this.parsed);
            if (end < 0) break;
            const frame = text.slice(this.parsed, end);
            this.parsed = end + 2;
            const id = /^id: (\d+)$/m.exec(frame);
            const event = /^event: (\S+)$/m.exec(frame)?.[1] ?? 'message';
            if (id && event === 'message' && /^data: /m.test(frame)) {
              this.ids.push(Number(id[1]));
              lastId = Number(id[1]);
            }
          }
        };
        const timer = setInterval(drain, 20);
        await stream.ended;
        clearInterval(timer);
        drain();
      } catch {
        // the node is gone: try another
      }
      if (this.closed) break;
      const others = this.nodes().filter((n) => n !== current && n.child.exitCode === null && n.child.signalCode === null);
      current = others[0] ?? current;
      this.reconnects.push(current.name);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stream?.close();
    await this.done;
  }
}

/** A cluster test's processes (the devnet and the nodes following it) and database, SIGKILLed and dropped after the suite. */
export interface DevnetCluster {
  adminKey: string;
  nodes: Node[];
  devnet?: DevnetServe;
  db?: ClusterDb;
}

/** Call in a `describe`: the returned holder is filled by the test, and whatever it holds is cleaned up afterwards. */
export function devnetCluster(): DevnetCluster {
  const c: DevnetCluster = { adminKey: `tw_test_admin_${randomBytes(12).toString('hex')}`, nodes: [] };
  afterAll(async () => {
    const all = [...c.nodes, ...(c.devnet ? [c.devnet] : [])];
    for (const p of all) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(all.map((p) => p.exited));
    await c.db?.drop();
  });
  return c;
}
