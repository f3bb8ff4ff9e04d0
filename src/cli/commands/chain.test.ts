// `tonwatch chain info` against a real service on the liteserver source, and --direct against the
// liteservers themselves: two fake liteservers over real ADNL on loopback serving a synthetic chain (unsigned,
// at fast trust), and --direct at secure trust on a signed one.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SignedChain } from '../../chain/liteserver/testing/signed-chain.js';
import { startLiteserverNetwork, type LiteserverNetwork } from '../../../test/support/liteserver-network.js';
import { startTestService, type TestService } from '../../../test/support/service.js';
import { runCli } from '../../../test/support/cli.js';
import { run } from './chain.js';

let dir: string;
let network: LiteserverNetwork;
let service: TestService;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'tonwatch-chain-cli-'));
  network = await startLiteserverNetwork({ dir, servers: 2, blocks: 3 });
  service = await startTestService({
    env: { TONWATCH_CHAIN: 'liteserver', TONWATCH_LITESERVER_CONFIG: network.configFile, TONWATCH_NETWORK: 'testnet', TONWATCH_TRUST: 'fast' },
    components: [],
  });
  await service.follower!.waitForSeqno(3);
}, 60_000);

afterAll(async () => {
  await service?.close();
  await network?.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  // The synthetic chain here is unsigned: `fast` trust (the secure level's report is tested in liteserver-secure.test.ts).
  vi.stubEnv('TONWATCH_TRUST', 'fast');
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

const cli = (...argv: string[]) => runCli(run, argv);

const serverLine = (name: string, head: number) => new RegExp(`^  ${name.replace(/\./g, '\\.')}\\s+up\\s+head ${head}\\s+\\d+ ms\\s+queries \\d+, failures 0, timeouts 0, disproven 0, withheld 0$`, 'm');

describe('tonwatch chain info', () => {
  it('asks a running server: network, trust level and head, follower lag, each liteserver with head and latency', async () => {
    const { code, out, err } = await cli('info', '--url', service.url);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain(`source     ${service.url}`);
    expect(out).toMatch(/^network    testnet \(zero state [0-9a-f]{8}…\)$/m);
    expect(out).toMatch(/^trust      fast: head 3 \(root [0-9a-f]{8}…\)/m);
    expect(out).toMatch(/^follower   at 3 of 3, lag 0 blocks/m);
    expect(out).toContain('servers    2');
    for (const s of network.servers) expect(out).toMatch(serverLine(s.name, 3));
    expect(out).toMatch(/^ready      yes$/m);
    // no TONWATCH_OVERLAY_ADDRESS: the overlay is off, and the report says what that means
    expect(out).toMatch(/^overlay    off: TONWATCH_OVERLAY_ADDRESS is not set, so the mempool stream and mempool webhooks carry only the messages this process sends/m);
    const json = JSON.parse((await cli('info', '--json', `--url=${service.url}`)).out);
    expect(json.chain).toMatchObject({ ok: true, network: 'testnet', trust: { level: 'fast', head: { seqno: 3 } } });
  });

  it('connects directly with the serve settings (--direct), without a server, recording the session when asked', async () => {
    const recording = path.join(dir, 'session.jsonl');
    vi.stubEnv('TONWATCH_LITESERVER_CONFIG', network.configFile);
    vi.stubEnv('TONWATCH_NETWORK', 'testnet');
    vi.stubEnv('TONWATCH_DATA_DIR', dir);
    vi.stubEnv('TONWATCH_LITESERVER_RECORD', recording);
    const { code, out } = await cli('info', '--direct');
    expect(code).toBe(0);
    // TONWATCH_LITESERVER_RECORD: every query and answer as a JSON line, flushed when the source stops.
    const lines = readFileSync(recording, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { server: string; method: string; answer?: string; error?: string });
    expect(lines.map((l) => l.method)).toContain('getBlockHeader');
    expect(new Set(lines.map((l) => l.server))).toEqual(new Set(network.servers.map((s) => s.name)));
    // Head long-polls still open at the stop end with the connection's error instead of an answer.
    expect(lines.every((l) => typeof (l.answer ?? l.error) === 'string')).toBe(true);
    expect(lines.find((l) => l.method === 'getBlockHeader')!.answer).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(out).toContain(`source     ${network.configFile}`);
    expect(out).toMatch(/^trust      fast: head 3 /m);
    for (const s of network.servers) expect(out).toMatch(serverLine(s.name, 3));
    expect(out).not.toContain('follower');
    // these servers do not serve liteServer.nonfinal.*: said once, and not counted as their failures
    expect(out).toMatch(/^non-final  the liteservers refuse liteServer\.nonfinal\.getPendingShardBlocks \(.*query is not allowed\): finalized blocks only$/m);
  });

  it('says why it is not ready when one of two servers is down (exit 3), and names an unreachable server', async () => {
    const solo = await startLiteserverNetwork({ dir: mkdtempSync(path.join(dir, 'solo-')), servers: 2 });
    await solo.servers[1]!.server.close();
    vi.stubEnv('TONWATCH_LITESERVER_CONFIG', solo.configFile);
    vi.stubEnv('TONWATCH_DATA_DIR', dir);
    try {
      const { code, out } = await cli('info', '--direct', '--timeout', '2');
      expect(code).toBe(3);
      expect(out).toMatch(/^trust      fast: no head believed yet; /m);
      expect(out).toMatch(/^ready      no: /m);
      expect(out).toContain(solo.servers[1]!.name);
    } finally {
      await solo.close();
    }
    const gone = await cli('info', '--url', 'http://127.0.0.1:9');
    expect(gone.code).toBe(1);
    expect(gone.err).toMatch(/^tonwatch chain: cannot reach tonwatch at http:\/\/127\.0\.0\.1:9: /);
  });

  it('--direct with secure trust walks from the init block and prints the trusted key block and each server\'s proofs', async () => {
    const signed = new SignedChain({ label: 'cli-direct' });
    for (let k = 0; k < 3; k++) {
      signed.blocks(1);
      signed.keyBlock();
    }
    signed.blocks(2);
    const net = await startLiteserverNetwork({ dir: mkdtempSync(path.join(dir, 'signed-')), servers: 2, signed });
    vi.stubEnv('TONWATCH_TRUST', 'secure');
    vi.stubEnv('TONWATCH_LITESERVER_CONFIG', net.configFile);
    vi.stubEnv('TONWATCH_DATA_DIR', dir);
    try {
      const { code, out } = await cli('info', '--direct');
      expect(code).toBe(0);
      expect(out).toMatch(new RegExp(`^trust      secure: head ${signed.head.seqno} \\(root [0-9a-f]{8}…\\)$`, 'm'));
      expect(out).toMatch(new RegExp(`^key block  ${signed.head.seqno - 2} \\(root [0-9a-f]{8}…\\): its validators sign the blocks after it$`, 'm'));
      for (const s of net.servers) expect(out).toMatch(new RegExp(`^  ${s.name.replace(/\./g, '\\.')}\\s+up\\s+head ${signed.head.seqno} .*disproven 0, withheld 0, failed proofs 0, lagging 0$`, 'm'));
      expect(out).toMatch(/^ready      yes$/m);
    } finally {
      await net.close();
    }
  });

  it('names the setting when the liteserver config is wrong, and refuses unknown commands', async () => {
    vi.stubEnv('TONWATCH_LITESERVER_CONFIG', path.join(dir, 'nope.json'));
    const wrong = await cli('info', '--direct');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('TONWATCH_LITESERVER_CONFIG: cannot read');
    const unknown = await cli('status');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("tonwatch chain: unknown command 'status'");
  });
});
