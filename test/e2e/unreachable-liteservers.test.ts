// A real network whose liteservers cannot be reached (#30): the operator gets the generated admin key at once,
// /readyz and `chain info` say why the chain is not ready once, the log gives the reason without a stack, and a
// config that cannot be fetched names the network tried and the settings to change. The liteservers are a
// signed test network's, stopped before tonwatch starts: their ports refuse every connection.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignedChain } from '../../src/chain/liteserver/testing/signed-chain.js';
import { run as chainCommand } from '../../src/cli/commands/chain.js';
import { runCli } from '../support/cli.js';
import { startLiteserverNetwork } from '../support/liteserver-network.js';
import { freePort } from '../support/ports.js';
import { spawnService } from '../support/service.js';

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Runs `chain info` in-process with these settings in the environment (restored after). */
async function chainInfo(argv: string[], env: Record<string, string | undefined>) {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(env)) v === undefined ? delete process.env[k] : (process.env[k] = v);
  try {
    return await runCli(chainCommand, argv);
  } finally {
    for (const [k, v] of Object.entries(saved)) v === undefined ? delete process.env[k] : (process.env[k] = v);
  }
}

const count = (text: string, phrase: string) => text.split(phrase).length - 1;

describe('tonwatch serve on a network whose liteservers are all down', () => {
  let configFile = '';
  beforeAll(async () => {
    const dir = tempDir('tonwatch-unreachable-');
    const signed = new SignedChain({ label: 'unreachable', chain: { startUtime: Math.floor(Date.now() / 1000) - 300 } });
    signed.blocks(1);
    signed.keyBlock();
    signed.blocks(2);
    const network = await startLiteserverNetwork({ dir, signed });
    configFile = network.configFile;
    await network.close();
  }, 60_000);

  it('prints the generated admin key before it waits for the chain; says "no liteserver is ready" once; logs the wait without a stack', async () => {
    const service = await spawnService({
      dataDir: tempDir('tonwatch-unreachable-data-'),
      // no TONWATCH_ADMIN_KEY: the first start generates one
      env: { TONWATCH_ADMIN_KEY: '', TONWATCH_CHAIN: 'liteserver', TONWATCH_LITESERVER_CONFIG: configFile },
      timeoutMs: 120_000,
    });
    try {
      const output = service.output();
      // the key came out before the start went on to the chain (on today's code, only in the banner after "listening")
      const key = output.indexOf('admin key (shown once, store it now): tw_');
      expect(key).toBeGreaterThanOrEqual(0);
      expect(key).toBeLessThan(output.indexOf('"msg":"the follower waits for the chain source to name where to start"'));
      expect(key).toBeLessThan(output.indexOf('"msg":"tonwatch listening"'));
      expect(count(output, 'store it now')).toBe(1);

      // an expected wait: its reason, no stack trace
      const wait = output.split('\n').find((l) => l.includes('the follower waits for the chain source'))!;
      const entry = JSON.parse(wait) as { level: number; waiting?: string; err?: unknown };
      expect(entry).toMatchObject({ level: 40, waiting: expect.stringContaining('no liteserver is ready') });
      expect(entry.err).toBeUndefined();
      expect(wait).not.toContain('"stack"');

      const readyz = (await (await fetch(`${service.url}/readyz`)).json()) as { checks: { chain: { ok: boolean; problem: string } } };
      expect(readyz.checks.chain.ok).toBe(false);
      expect(count(readyz.checks.chain.problem, 'no liteserver is ready')).toBe(1);

      const info = await chainInfo(['info', '--url', service.url], {});
      expect(info.code).toBe(3);
      expect(info.out).toMatch(/^ready +no: no liteserver is ready/m);
      expect(count(info.out, 'no liteserver is ready')).toBe(1);
      expect(info.out).toMatch(/^follower +at - of -; waits for the chain source \(see ready\)$/m);
    } finally {
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
    }
  }, 180_000);

  it('chain info --direct says "no liteserver is ready" once', async () => {
    const info = await chainInfo(['info', '--direct', '--timeout', '2'], {
      TONWATCH_LITESERVER_CONFIG: configFile,
      TONWATCH_DATA_DIR: tempDir('tonwatch-unreachable-direct-'),
    });
    expect(info.code).toBe(3);
    expect(count(info.out, 'no liteserver is ready')).toBe(1);
  }, 60_000);
});

describe('chain info --direct with a config that cannot be fetched', () => {
  it('names the URL, the connection error and what to set, and does not call it an invalid configuration', async () => {
    const closed = await freePort();
    const url = `http://127.0.0.1:${closed}/global.config.json`;
    const info = await chainInfo(['info', '--direct'], { TONWATCH_LITESERVER_CONFIG: url, TONWATCH_DATA_DIR: tempDir('tonwatch-unfetchable-') });
    expect(info.code).toBe(1);
    expect(info.err).not.toContain('invalid configuration');
    expect(info.err).toMatch(
      new RegExp(`^tonwatch chain: TONWATCH_LITESERVER_CONFIG: cannot fetch ${url.replace(/[.?]/g, '\\$&')} \\(fetch failed: ECONNREFUSED\\) and there is no cached copy at .*: check that this machine reaches it, or give TONWATCH_LITESERVER_CONFIG a global\\.config\\.json file instead$`),
    );
  }, 60_000);
});
