// A real tonwatch for tests: in-process (`startTestService`) or as a child process running the
// CLI (`spawnService`, for kill -9 and restart tests). Both use a fresh data dir, a free port and a
// known admin key, on the embedded devnet unless told otherwise. `spawnStandaloneDevnet` runs
// `tonwatch devnet serve` the same way.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { componentFactories } from '../../src/components.js';
import { startService, type RunningService, type StartServiceOptions } from '../../src/service/service.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface TestService extends RunningService {
  adminKeySecret: string;
  dataDir: string;
  /** Creates an API key with these scopes through the admin API. */
  key(...scopes: string[]): Promise<string>;
  /** fetch() against the service with the admin key unless `auth` is given (null: no key). */
  api(pathname: string, init?: RequestInit & { json?: unknown; auth?: string | null }): Promise<Response>;
  /** Produces one devnet block now (manual mode) and waits until the follower appended it. */
  produceBlock(): Promise<number>;
  /** Produces blocks until the follower has appended everything the devnet has in flight. */
  settle(maxBlocks?: number): Promise<void>;
  /** Stops and deletes the data dir (unless keepData). */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

export interface TestServiceOptions extends Omit<StartServiceOptions, 'components'> {
  /** Default: every component (src/components.ts). */
  components?: StartServiceOptions['components'];
  /** Extra environment-style settings (TONWATCH_*, DATABASE_URL…). */
  env?: Record<string, string>;
  /** Reuse a data dir (restart tests); default a fresh temp dir. */
  dataDir?: string;
  /** Devnet blocks only on demand (default true: deterministic tests). */
  manualBlocks?: boolean;
}

export async function startTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = opts.dataDir ?? mkdtempSync(path.join(tmpdir(), 'tonwatch-test-'));
  const adminKeySecret = `tw_test_admin_${randomBytes(12).toString('hex')}`;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    TONWATCH_DATA_DIR: dataDir,
    TONWATCH_ADMIN_KEY: adminKeySecret,
    TONWATCH_DEVNET_MANUAL_BLOCKS: opts.manualBlocks === false ? 'false' : 'true',
    LOG_LEVEL: 'silent',
    ...opts.env,
  });
  const service = await startService(config, { logger: opts.logger ?? pino({ level: 'silent' }), ...opts, components: opts.components ?? componentFactories });
  const api: TestService['api'] = (pathname, init = {}) => {
    const headers = new Headers(init.headers);
    const auth = init.auth === undefined ? adminKeySecret : init.auth;
    if (auth) headers.set('authorization', `Bearer ${auth}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return fetch(`${service.url}${pathname}`, { ...init, headers, body });
  };
  const produceBlock = async () => {
    const res = await api('/devnet/blocks', { method: 'POST' });
    if (!res.ok) throw new Error(`POST /devnet/blocks: ${res.status} ${await res.text()}`);
    const { seqno } = (await res.json()) as { seqno: number };
    await service.follower!.waitForSeqno(seqno);
    return seqno;
  };
  return {
    ...service,
    // the follower changes with the lead (a cluster member): read it from the service, not a copy
    get follower() {
      return service.follower;
    },
    adminKeySecret,
    dataDir,
    api,
    produceBlock,
    async settle(maxBlocks = 20) {
      for (let i = 0; i < maxBlocks; i++) {
        const info = (await (await api('/devnet/info')).json()) as { mempool_size: number; inflight_messages: number };
        if (info.mempool_size === 0 && info.inflight_messages === 0) return;
        await produceBlock();
      }
      throw new Error(`devnet still busy after ${maxBlocks} blocks`);
    },
    async key(...scopes) {
      const res = await api('/admin/keys', { method: 'POST', json: { name: `test ${scopes.join('+')}`, scopes } });
      if (res.status !== 201) throw new Error(`POST /admin/keys: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { key: string }).key;
    },
    async close(closeOpts = {}) {
      await service.stop();
      if (!closeOpts.keepData && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface SpawnedService {
  child: ChildProcess;
  url: string;
  dataDir: string;
  adminKey: string;
  /** Everything the process wrote to stdout/stderr so far. */
  output(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
}

/** Runs `tonwatch serve` from source in a child process and waits until it listens. */
export async function spawnService(opts: {
  dataDir: string;
  env?: Record<string, string>;
  adminKey?: string;
  timeoutMs?: number;
  /** Node arguments; default: the CLI from source through tsx. */
  command?: string[];
}): Promise<SpawnedService> {
  const adminKey = opts.adminKey ?? `tw_test_admin_${randomBytes(12).toString('hex')}`;
  const spawned = await spawnTonwatch({
    ...opts,
    command: opts.command ?? ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve'],
    env: { TONWATCH_ADMIN_KEY: adminKey, LOG_LEVEL: 'info', ...opts.env },
    what: 'tonwatch',
    // the JSON log line that says where it listens
    listening: (output) => (/"url":"(http:\/\/[^"]+)"[^\n]*"msg":"tonwatch listening"/.exec(output) ?? /"msg":"tonwatch listening"[^\n]*"url":"(http:\/\/[^"]+)"/.exec(output))?.[1],
  });
  return { ...spawned, adminKey };
}

export type SpawnedDevnet = Omit<SpawnedService, 'adminKey'>;

/** Runs `tonwatch devnet serve` from source in a child process and waits for its banner; `url` is its control API. */
export function spawnStandaloneDevnet(opts: { dataDir: string; env?: Record<string, string>; timeoutMs?: number }): Promise<SpawnedDevnet> {
  return spawnTonwatch({
    ...opts,
    command: ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'devnet', 'serve'],
    what: 'tonwatch devnet serve',
    listening: (output) => /devnet control\s+(http:\/\/\S+)\/devnet\/wallets/.exec(output)?.[1],
  });
}

/** A tonwatch command in a child process on a free port, resolved once `listening` finds its URL in the output. */
async function spawnTonwatch(opts: {
  dataDir: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  command: string[];
  what: string;
  listening: (output: string) => string | undefined;
}): Promise<SpawnedDevnet> {
  const child = spawn(process.execPath, opts.command, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      TONWATCH_DATA_DIR: opts.dataDir,
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${opts.what} did not start in time:\n${output}`)), opts.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = opts.listening(output);
      if (found) {
        clearTimeout(timer);
        resolve(found);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${opts.what} exited (${code}) before listening:\n${output}`));
    });
  });
  return { child, url, dataDir: opts.dataDir, output: () => output, exited };
}
