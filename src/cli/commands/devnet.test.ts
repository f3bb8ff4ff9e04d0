// `tonwatch devnet …` against a real control API (Fastify on port 0 over a real devnet).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openTestDevnet, serveControlApi, transactionsAfter, type TestDevnet } from '../../../test/support/devnet.js';
import { runCli } from '../../../test/support/cli.js';
import { PROGRAM } from '../program.js';
import { run } from './devnet.js';

let devnet: TestDevnet;
let api: { url: string; close: () => Promise<void> };
let url: string;

beforeAll(async () => {
  devnet = await openTestDevnet();
  api = await serveControlApi(devnet);
  url = api.url;
});
afterAll(async () => {
  await api?.close();
  await devnet?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const cli = (...argv: string[]) => runCli(run, argv);

describe('tonwatch devnet', () => {
  it('lists wallets in words and as JSON', async () => {
    const human = await cli('wallets', '--url', url);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/^alice\s+v4\s+UQ\S+\s+[0-9.]+ TON\s+10000 USDT, 1000 GRAM$/m);
    expect(human.out).toMatch(/^mallory .*USDT \(look-alike\)/m);
    expect(human.out).toMatch(/^highload\s+highload-v2 UQ\S+\s+[0-9.]+ TON$/m);
    const json = await cli('wallets', '--json', `--url=${url}`);
    expect(JSON.parse(json.out).map((w: { name: string }) => w.name)).toContain('merchant');
  });

  it('sends TON with a comment and produces the block', async () => {
    const before = devnet.chain.masterchainSeqno;
    const sent = await cli('send', '--url', url, '--from', 'alice', '--to', 'bob', '--ton', '1.25', '--comment', 'from the cli');
    expect(sent.code).toBe(0);
    const hash = /submitted external message ([0-9a-f]{64})/.exec(sent.out)![1]!;
    const block = await cli('block', '--url', url);
    expect(block.out).toContain(`produced masterchain block ${before + 1}`);
    await cli('block', '--url', url);
    const txs = await transactionsAfter(devnet.chain, before);
    expect(txs[0]!.inMessage!.hash).toBe(hash);
    expect(txs[1]!.inMessage!.value).toBe(1_250_000_000n);
    expect(txs[1]!.inMessage!.decoded).toEqual({ kind: 'text_comment', text: 'from the cli' });
  });

  it('runs jetton sends, payments and scenarios', async () => {
    const jetton = await cli('jetton-send', '--url', url, '--from', 'bob', '--jetton', 'usdt', '--to', 'merchant', '--amount', '1000', '--comment', 'x', '--comment-in-ref');
    expect(jetton.code).toBe(0);
    const deploy = await cli('deploy', '--url', url, '--from', 'carol', '--ton', '0.2');
    expect(deploy.out).toMatch(/deployed at 0:[0-9a-f]{64}/);
    const info = await cli('info', '--url', url);
    expect(info.out).toContain('mempool 2');
    expect(info.out).toContain('alice.ton');
  });

  it('shows the validator set and rotates it', async () => {
    const shown = await cli('validators', '--url', url);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^validator set 0, catchain session 0, set hash \d+$/m);
    expect(shown.out.match(/^ {2}\d: [0-9a-f]{64}$/gm)).toHaveLength(4);
    const rotated = await cli('rotate-validators', '--url', url);
    expect(rotated.code).toBe(0);
    expect(rotated.out).toContain(`key block ${devnet.chain.masterchainSeqno} names the new set`);
    expect(rotated.out).toMatch(/^validator set 1, catchain session 1,/m);
  });

  it('prints the server’s error with its field and exits 1', async () => {
    const bad = await cli('send', '--url', url, '--from', 'alice', '--to', 'bob', '--amount', '12abc');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/amount.*\(field: amount\)/);
    const unknownWallet = await cli('pay', '--url', url, '--from', 'zed', '--link', 'ton://transfer/bob?amount=1');
    expect(unknownWallet.err).toContain('(field: from)');
  });

  it('explains usage mistakes and an unreachable server', async () => {
    expect((await cli('fly', '--url', url)).err).toContain("unknown devnet command 'fly'");
    expect((await cli('send', '--from')).err).toContain('--from needs a value');
    expect((await cli('send', '--ton', 'lots')).err).toContain('--ton must be a TON amount');
    const down = await cli('wallets', '--url', 'http://127.0.0.1:1');
    expect(down.code).toBe(1);
    expect(down.err).toContain('cannot reach tonwatch at http://127.0.0.1:1');
    expect((await cli('--help')).out).toContain(`usage: ${PROGRAM} devnet`);
  });

  it('finds the server on the port the server chose: TONWATCH_URL, else PORT (environment or TONWATCH_CONFIG)', async () => {
    const port = new URL(url).port;
    vi.stubEnv('TONWATCH_URL', '');
    vi.stubEnv('TONWATCH_CONFIG', '');
    vi.stubEnv('PORT', port);
    try {
      const byPort = await cli('wallets', '--json');
      expect(byPort.err).toBe('');
      expect(JSON.parse(byPort.out).map((w: { name: string }) => w.name)).toContain('alice');
      // The server's config file names the port when the environment does not.
      const dir = mkdtempSync(path.join(tmpdir(), 'tw-cli-'));
      writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ PORT: Number(port) }));
      vi.stubEnv('PORT', '');
      vi.stubEnv('TONWATCH_CONFIG', path.join(dir, 'config.json'));
      expect((await cli('wallets')).code).toBe(0);
      rmSync(dir, { recursive: true });
      // TONWATCH_URL wins over PORT.
      vi.stubEnv('TONWATCH_URL', 'http://127.0.0.1:1');
      expect((await cli('wallets')).err).toContain('cannot reach tonwatch at http://127.0.0.1:1');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
