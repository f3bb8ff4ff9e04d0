// `tonwatch devnet serve` in-process: the standalone devnet answers its control API on PORT, serves its
// liteserver, and `tonwatch devnet global-config` prints a config ton-lite-client connects with; a block
// made through the control API becomes the liteserver's head. Restarted on the same data dir, the
// liteserver keeps its key and the chain its zero state, so the printed config stays valid.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { connectTheirClientByConfig } from '../../test/support/liteserver.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { run } from '../cli/commands/devnet.js';
import { PROGRAM } from '../cli/program.js';
import { parseGlobalConfig } from '../chain/liteserver/config.js';
import { loadConfig } from '../config.js';
import { startStandaloneDevnet, type StandaloneDevnet } from './devnet-serve.js';

let dir: string;
let devnet: StandaloneDevnet | undefined;
const engines: LiteSingleEngine[] = [];

const config = () => loadConfig({ TONWATCH_DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', TONWATCH_DEVNET_MANUAL_BLOCKS: 'true', LOG_LEVEL: 'warn' });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tonwatch-devnet-serve-'));
});
afterAll(async () => {
  for (const e of engines) e.close();
  await devnet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  try {
    return { code: await run(argv), out: out.join('\n'), err: err.join('\n') };
  } finally {
    vi.restoreAllMocks();
  }
}

async function connect(globalConfig: string): Promise<LiteClient> {
  const { client, engine } = await connectTheirClientByConfig(globalConfig);
  engines.push(engine);
  return client;
}

describe('tonwatch devnet serve', () => {
  it('serves the liteserver and the control API; global-config prints what a client connects with', async () => {
    devnet = await startStandaloneDevnet(config(), { logger: pino({ level: 'silent' }) });
    expect(devnet.banner.join('\n')).toMatch(/liteserver\s+127\.0\.0\.1:\d+\s+public key \S{44}/);
    const printed = await cli('global-config', '--url', devnet.url);
    expect(printed.code).toBe(0);
    expect(printed.out).toContain('"shard": -9223372036854775808');
    const client = await connect(printed.out);
    const head = await client.getMasterchainInfo();
    expect(head.last.seqno).toBe(devnet.chain.masterchainSeqno);
    expect((await cli('block', '--url', devnet.url)).code).toBe(0);
    expect((await client.getMasterchainInfo()).last.seqno).toBe(head.last.seqno + 1);

    await devnet.stop();
    devnet = await startStandaloneDevnet(config(), { logger: pino({ level: 'silent' }) });
    const again = await cli('global-config', '--url', devnet.url);
    const [a, b] = [printed.out, again.out].map((t) => parseGlobalConfig(JSON.parse(t), 'global-config'));
    expect(b!.liteservers[0]!.publicKey).toEqual(a!.liteservers[0]!.publicKey);
    expect(b!.anchor.zeroState).toEqual(a!.anchor.zeroState);
    expect((await (await connect(again.out)).getMasterchainInfo()).last.seqno).toBe(head.last.seqno + 1);
  });

  it('global-config against a server whose liteserver is off names the setting', async () => {
    const { openTestDevnet, serveControlApi } = await import('../../test/support/devnet.js');
    const plain = await openTestDevnet();
    const api = await serveControlApi(plain);
    try {
      const res = await cli('global-config', '--url', api.url);
      expect(res.code).toBe(1);
      expect(res.err).toMatch(/404 the devnet liteserver is off: set TONWATCH_DEVNET_LITESERVER_PORT/);
    } finally {
      await api.close();
      await plain.close();
    }
  });

  it('`tonwatch devnet serve --help` explains it; an extra argument is a usage error', async () => {
    const help = await cli('serve', '--help');
    expect(help.code).toBe(0);
    expect(help.out.startsWith(`usage: ${PROGRAM} devnet serve`)).toBe(true);
    expect(help.out).toContain('TONWATCH_DEVNET_LITESERVER_PORT');
    const extra = await cli('serve', 'now');
    expect(extra.code).toBe(2);
    expect(extra.err).toMatch(/unexpected argument 'now'/);
  });
});
