import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreEventLog } from '../bus/store-log.js';
import type { ChainEvent } from '../bus/events.js';
import { createDevnetChain } from '../chain/devnet/index.js';
import { openStore } from '../store/db.js';
import { ROOT, spawnService, startTestService, type TestService } from '../../test/support/service.js';

describe('tonwatch service on the devnet (in process)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => service?.close());

  it('turns a devnet transfer into block, transaction, trace and mempool events in the log', async () => {
    const before = service.events.headPosition()!;
    const sent = await service.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: 'bob', amount: '1000000', comment: 'tour' } });
    expect(sent.status).toBe(200);
    const { message_hash } = (await sent.json()) as { message_hash: string };
    await service.settle();
    const events: ChainEvent[] = (await service.events.readAfter(before, 100)).flatMap((b) => b.events).filter((e) => e.position > before);
    const mempool = events.filter((e) => e.type === 'mempool');
    expect(mempool.map((e) => e.type === 'mempool' && e.message.hash)).toEqual([message_hash]);
    const txs = events.flatMap((e) => (e.type === 'transaction' ? [e.tx] : []));
    const credit = txs.find((t) => t.inMessage?.decoded.kind === 'text_comment');
    expect(credit).toMatchObject({ inbound: 'credited', inMessage: { value: 1_000_000n, decoded: { kind: 'text_comment', text: 'tour' } } });
    const traces = events.flatMap((e) => (e.type === 'trace' ? [e.trace] : []));
    const trace = traces.find((t) => t.transactions.includes(credit!.hash))!;
    expect(trace.transactions).toHaveLength(2);
    expect(trace.endMcSeqno).toBeGreaterThan(trace.startMcSeqno);
    // Positions strictly increase across everything appended.
    const positions = events.map((e) => e.position);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('reports follower lag and HTTP request counts', async () => {
    const ready = await service.api('/readyz', { auth: null });
    expect(ready.status).toBe(200);
    const checks = ((await ready.json()) as any).checks;
    expect(checks.follower).toMatchObject({ ok: true, running: true, lagBlocks: 0 });
    expect(checks.delivery).toMatchObject({ ok: true, running: true, max_lag_seconds: 30, lag_seconds: { online: 0, slow: 0, offline: 0, suspended: 0 } });
    const metrics = await (await service.api('/metrics', { auth: null })).text();
    expect(metrics).toMatch(/^tonwatch_follower_lag_blocks 0$/m);
    expect(metrics).toMatch(/^tonwatch_webhook_delivery_lag_seconds\{state="online"\} 0$/m);
    expect(metrics).toMatch(/^tonwatch_http_requests_total\{[^}]*route="\/readyz"[^}]*\} \d+$/m);
  });
});

describe('tonwatch serve as a process', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'tonwatch-serve-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('killed with SIGKILL while blocks are produced, restarts and has every event position exactly once', async () => {
    const dataDir = tempDir();
    const env = { TONWATCH_BLOCK_INTERVAL_MS: '100' };
    const first = await spawnService({ dataDir, env });
    const send = (url: string, i: number) =>
      fetch(`${url}/devnet/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ from: i % 2 ? 'alice' : 'bob', to: i % 2 ? 'bob' : 'alice', amount: String(1000 + i), comment: `kill ${i}` }),
      });
    for (let i = 0; i < 6; i++) {
      expect((await send(first.url, i)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 150));
    }
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');

    const second = await spawnService({ dataDir, env, adminKey: first.adminKey });
    for (let i = 6; i < 10; i++) expect((await send(second.url, i)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    // Compare the log with the devnet's own blocks: each block once, every transaction once, in order.
    const store = await openStore({ sqlitePath: path.join(dataDir, 'tonwatch.sqlite') });
    const chain = createDevnetChain({ dataDir: path.join(dataDir, 'devnet'), manual: true });
    try {
      const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
      await log.open();
      const batches = await log.readAfter(-1, 100_000);
      const events = batches.flatMap((b) => b.events);
      const positions = events.map((e) => e.position);
      expect(new Set(positions).size).toBe(positions.length);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      const blockBatches = batches.filter((b) => b.kind === 'block');
      const seqnos = blockBatches.map((b) => b.mcSeqno);
      expect(seqnos).toEqual(seqnos.map((_, i) => i + 1));
      await chain.start();
      const head = (await chain.getMasterchainHead()).seqno;
      expect(seqnos.at(-1)).toBeGreaterThanOrEqual(head - 1);
      for (const batch of blockBatches) {
        const block = (await chain.getFinalizedBlock(batch.mcSeqno))!;
        const logged = batch.events.flatMap((e) => (e.type === 'transaction' ? [e.tx.hash] : []));
        expect(logged).toEqual(block.transactions.map((t) => t.hash));
      }
      // Both runs' transfers made it, each exactly once.
      const comments = events.flatMap((e) => (e.type === 'transaction' && e.tx.inMessage?.decoded.kind === 'text_comment' ? [e.tx.inMessage.decoded.text] : []));
      for (let i = 0; i < 10; i++) expect(comments.filter((c) => c === `kill ${i}`)).toHaveLength(1);
    } finally {
      await chain.stop();
      await store.close();
    }
  }, 120_000);

  it('refuses an invalid configuration with a message naming the setting and a non-zero exit', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve'], {
      cwd: ROOT,
      env: { ...process.env, PORT: 'eighty', TONWATCH_DATA_DIR: tempDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain('PORT: must be an integer from 0 to 65535, got "eighty"');
  });

  it('says at start which other admin keys are active and how to revoke them (TONWATCH_ADMIN_KEY set after a plain start)', async () => {
    const dataDir = tempDir();
    // The banner comes after "listening", once the SIGTERM handler is in place.
    const banner = async (s: { output(): string }) => {
      for (let i = 0; i < 200 && !s.output().includes('tonwatch is running on the'); i++) await new Promise((r) => setTimeout(r, 50));
    };
    const plain = await spawnService({ dataDir, env: { TONWATCH_ADMIN_KEY: '' } });
    await banner(plain);
    plain.child.kill('SIGTERM');
    expect(await plain.exited).toBe(0);
    expect(plain.output()).toMatch(/admin key \(shown once, store it now\): tw_/);
    const keyed = await spawnService({ dataDir });
    await banner(keyed);
    keyed.child.kill('SIGTERM');
    expect(await keyed.exited).toBe(0);
    expect(keyed.output()).toContain('admin key: from TONWATCH_ADMIN_KEY');
    expect(keyed.output()).toMatch(/1 other admin key is also active: \S+ "admin \(generated on first start\)"/);
    expect(keyed.output()).toContain('npm run tonwatch -- keys revoke <id>');
  }, 120_000);

  const serveExit = async (env: Record<string, string>) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'serve'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { code, stderr };
  };

  it('takes TONWATCH_TRUST=secure (the default) and refuses a start at block 1 on liteservers before it creates the data directory', async () => {
    const dataDir = path.join(tempDir(), 'not-yet');
    const { code, stderr } = await serveExit({ TONWATCH_CHAIN: 'liteserver', TONWATCH_TRUST: 'secure', TONWATCH_START_SEQNO: '1', TONWATCH_DATA_DIR: dataDir });
    expect(code).toBe(2);
    expect(stderr).not.toContain('TONWATCH_TRUST');
    expect(stderr).toContain('TONWATCH_START_SEQNO: must be 2 or more with TONWATCH_CHAIN=liteserver, got 1');
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses secure trust on a global config without validator.init_block, naming it and TONWATCH_TRUST=fast', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'zero-state-only.json');
    const zero = { workchain: -1, shard: -9223372036854775808, seqno: 0, root_hash: Buffer.alloc(32, 1).toString('base64'), file_hash: Buffer.alloc(32, 2).toString('base64') };
    writeFileSync(file, JSON.stringify({
      liteservers: [{ ip: 2130706433, port: 9, id: { '@type': 'pub.ed25519', key: Buffer.alloc(32, 3).toString('base64') } }],
      validator: { zero_state: zero },
    }));
    const { code, stderr } = await serveExit({ TONWATCH_CHAIN: 'liteserver', TONWATCH_LITESERVER_CONFIG: file, TONWATCH_DATA_DIR: path.join(dir, 'data') });
    expect(code).toBe(2);
    expect(stderr).toContain(`TONWATCH_LITESERVER_CONFIG: the global config ${file} has no validator.init_block`);
    expect(stderr).toContain('TONWATCH_TRUST=fast');
  });

  it('names TONWATCH_LITESERVER_CONFIG when the liteserver config cannot be read', async () => {
    const dir = tempDir();
    const missing = path.join(dir, 'no-such-global.config.json');
    const { code, stderr } = await serveExit({ TONWATCH_CHAIN: 'liteserver', TONWATCH_LITESERVER_CONFIG: missing, TONWATCH_DATA_DIR: path.join(dir, 'data') });
    expect(code).toBe(2);
    expect(stderr).toContain(`TONWATCH_LITESERVER_CONFIG: cannot read ${missing}`);
  });
});
