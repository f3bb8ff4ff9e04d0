// The /readyz chain check and the /metrics of the liteserver source, over a real pool of two test
// liteservers on loopback ADNL.
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { LitePool } from '../chain/liteserver/transport/pool.js';
import type { TrustStatus } from '../chain/liteserver/trust/head-trust.js';
import { mcBlock, startTestLiteServer, type TestLiteServer } from '../../test/support/liteserver.js';
import { liteserverHealth, registerLiteserverMetrics, type LiteserverStatusView } from './liteserver-report.js';

const fastTrust = (over: Partial<TrustStatus> = {}): TrustStatus => ({
  level: 'fast', head: mcBlock(100), keyBlock: null, progress: null, waiting: null, alarm: null, ...over,
});

describe('liteserver report', () => {
  const servers: TestLiteServer[] = [];
  let pool: LitePool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
    for (const s of servers.splice(0)) await s.close();
  });

  async function twoServers(): Promise<{ pool: LitePool; names: [string, string] }> {
    servers.push(await startTestLiteServer({ head: 100 }), await startTestLiteServer({ head: 100 }));
    pool = new LitePool({ servers: servers.map((s) => ({ host: s.host, port: s.port, publicKey: s.publicKey })), backoff: { minMs: 50, maxMs: 200 } });
    await pool.waitReady(10_000);
    for (let i = 0; i < 100 && pool.status().servers.some((s) => s.head?.seqno !== 100); i++) await new Promise((r) => setTimeout(r, 20));
    return { pool, names: [`${servers[0]!.host}:${servers[0]!.port}`, `${servers[1]!.host}:${servers[1]!.port}`] };
  }

  it('is ready with a trusted head, and lists each server with its head, latency, failures and disproven replies', async () => {
    const { pool, names } = await twoServers();
    await pool.query('getTime', {});
    pool.demote(names[1], 'block 99: root hash mismatch');
    const report = liteserverHealth({ network: 'testnet', trust: fastTrust(), pool: pool.status(), lagBlocks: 0, lagSeconds: 4 });
    expect(report).toMatchObject({ ok: true, network: 'testnet', lag_blocks: 0, lag_seconds: 4, trust: { level: 'fast', head: { seqno: 100 }, alarm: null } });
    expect(report.problem).toBeUndefined();
    const listed = report.servers as Array<Record<string, unknown>>;
    expect(listed.map((s) => s.server).sort()).toEqual([...names].sort());
    const byName = new Map(listed.map((s) => [s.server, s]));
    expect(byName.get(names[0])).toMatchObject({ state: 'up', head_seqno: 100, demoted: false, disproven: 0 });
    expect(byName.get(names[1])).toMatchObject({ state: 'up', head_seqno: 100, demoted: true, disproven: 1, withheld: 0, last_error: 'disproven: block 99: root hash mismatch' });
    expect(listed.some((s) => typeof s.latency_ms === 'number')).toBe(true);
  });

  it('is not ready while no head is trusted, and says what it waits for', async () => {
    const { pool } = await twoServers();
    const report = liteserverHealth({ trust: fastTrust({ head: null, waiting: 'one server reports 100, waiting for a second' }), pool: pool.status(), lagBlocks: null, lagSeconds: null });
    expect(report).toMatchObject({ ok: false, problem: 'one server reports 100, waiting for a second' });
  });

  it('is not ready once two servers proved different blocks, naming both and their hashes', async () => {
    const { pool, names } = await twoServers();
    const other = { ...mcBlock(100), rootHash: mcBlock(101).rootHash };
    const alarm = { kind: 'seqno' as const, seqno: 100, blocks: [mcBlock(100), other] as [typeof other, typeof other], servers: names, at: new Date().toISOString() };
    const report = liteserverHealth({ trust: fastTrust({ alarm }), pool: pool.status(), lagBlocks: 0, lagSeconds: 1 });
    expect(report.ok).toBe(false);
    expect(report.problem).toContain(`trust alarm: liteservers ${names[0]} and ${names[1]} proved different masterchain blocks at seqno 100`);
    expect(report.problem).toContain(mcBlock(100).rootHash.toString('hex'));
    expect(report.problem).toContain(other.rootHash.toString('hex'));
  });

  it('names both blocks of a fork: the believed head and the proven head that does not descend from it', async () => {
    const { pool, names } = await twoServers();
    const fork = { ...mcBlock(103), rootHash: Buffer.alloc(32, 0xf0) };
    const ancestor = { ...mcBlock(100), rootHash: Buffer.alloc(32, 0xa0) };
    const alarm = { kind: 'fork' as const, seqno: 100, blocks: [mcBlock(100), fork] as [typeof fork, typeof fork], servers: names, ancestor, at: new Date().toISOString() };
    const report = liteserverHealth({ trust: fastTrust({ level: 'secure', alarm }), pool: pool.status(), lagBlocks: 0, lagSeconds: 1 });
    expect(report.ok).toBe(false);
    expect(report.problem).toContain(`liteserver ${names[1]} proved masterchain block (-1,8000000000000000,103) root ${'f0'.repeat(32)}, which does not descend from the believed head (-1,8000000000000000,100) root ${mcBlock(100).rootHash.toString('hex')}`);
    expect(report.trust).toMatchObject({ alarm: { kind: 'fork', seqno: 100, servers: names, blocks: [{ seqno: 100 }, { seqno: 103, root_hash: 'f0'.repeat(32) }], ancestor: { seqno: 100, root_hash: 'a0'.repeat(32) } } });
  });

  it('under secure trust lists per server the head it proved, its failed proofs and its lag, and the walk under way', async () => {
    const { pool, names } = await twoServers();
    pool.demote(names[0], 'proof toward 101 failed: signatures.signer', 'disproven');
    pool.demote(names[1], 'head 60 lags the best proven head 100 by 40 blocks', 'lagging');
    const trust = fastTrust({
      level: 'secure', keyBlock: mcBlock(90), progress: { from: 90, at: 95, to: 120 }, maxLagBlocks: 30,
      servers: [
        { server: names[0], provenSeqno: null, failedProofs: 1, lastFailure: 'signatures.signer: …', laggingBy: null },
        { server: names[1], provenSeqno: 100, failedProofs: 0, lastFailure: null, laggingBy: 40 },
      ],
    });
    const report = liteserverHealth({ trust, pool: pool.status(), lagBlocks: 0, lagSeconds: 1 });
    expect(report).toMatchObject({ ok: true, trust: { level: 'secure', key_block: { seqno: 90 }, progress: { from: 90, at: 95, to: 120 }, max_lag_blocks: 30 } });
    const byName = new Map((report.servers as Array<Record<string, unknown>>).map((s) => [s.server, s]));
    expect(byName.get(names[0])).toMatchObject({ proven_seqno: null, failed_proofs: 1, last_failed_proof: 'signatures.signer: …', lagging_by: null, disproven: 1, lagging: 0 });
    expect(byName.get(names[1])).toMatchObject({ proven_seqno: 100, failed_proofs: 0, lagging_by: 40, disproven: 0, lagging: 1, last_error: 'lagging: head 60 lags the best proven head 100 by 40 blocks' });

    const registry = new Registry();
    registerLiteserverMetrics(registry, () => ({ trust, pool: pool.status(), lagBlocks: 0, lagSeconds: 1 }));
    const metrics = await registry.metrics();
    expect(metrics).toContain(`tonwatch_liteserver_demotions_total{server="${names[0]}",reason="disproven"} 1`);
    expect(metrics).toContain(`tonwatch_liteserver_demotions_total{server="${names[0]}",reason="lagging"} 0`);
    expect(metrics).toContain(`tonwatch_liteserver_demotions_total{server="${names[1]}",reason="lagging"} 1`);
    expect(metrics).toContain(`tonwatch_liteserver_disproven_total{server="${names[1]}"} 0`);
    expect(metrics).toContain(`tonwatch_chain_trust_failed_proofs_total{server="${names[0]}"} 1`);
    expect(metrics).toContain(`tonwatch_liteserver_behind_proven_blocks{server="${names[0]}"} 0`);
    expect(metrics).toContain('tonwatch_chain_trusted_key_block_seqno 90');
    expect(metrics).toContain('tonwatch_chain_trust_walk_remaining_blocks 25');
  });

  it('is not ready when every server is down, with the pool\'s reason', async () => {
    const { pool } = await twoServers();
    for (const s of servers) await s.close();
    for (let i = 0; i < 200 && pool.status().ready; i++) await new Promise((r) => setTimeout(r, 25));
    const report = liteserverHealth({ trust: fastTrust(), pool: pool.status(), lagBlocks: 3, lagSeconds: 30 });
    expect(report.ok).toBe(false);
    expect(report.problem).toMatch(/^no liteserver is ready/);
    // no head either, and the source waits for the same reason (secure trust says nothing of its own): said once
    const status = pool.status();
    const headless = liteserverHealth({ trust: fastTrust({ head: null, level: 'secure' }), pool: status, waiting: status.reason, lagBlocks: null, lagSeconds: null });
    expect(headless.problem).toBe(status.reason);
    expect(String(headless.problem).match(/no liteserver is ready/g)).toHaveLength(1);
    // each server named once, with its error
    for (const s of servers) expect(String(headless.problem).split(`${s.host}:${s.port}`)).toHaveLength(2);
  });

  it('exports per-server heads, up, failures and disproven replies, and the trusted head and lag, at each scrape', async () => {
    const { pool, names } = await twoServers();
    const status: LiteserverStatusView = { trust: fastTrust(), pool: pool.status(), lagBlocks: 2, lagSeconds: 7 };
    const registry = new Registry();
    registerLiteserverMetrics(registry, () => ({ ...status, pool: pool.status() }));
    const first = await registry.metrics();
    expect(first).toContain(`tonwatch_liteserver_head_seqno{server="${names[0]}"} 100`);
    expect(first).toContain(`tonwatch_liteserver_up{server="${names[1]}"} 1`);
    expect(first).toContain(`tonwatch_liteserver_disproven_total{server="${names[1]}"} 0`);
    expect(first).toContain(`tonwatch_liteserver_withheld_total{server="${names[1]}"} 0`);
    expect(first).toContain('tonwatch_chain_trusted_head_seqno 100');
    expect(first).toContain('tonwatch_chain_lag_blocks 2');
    expect(first).toContain('tonwatch_chain_lag_seconds 7');
    expect(first).toContain('tonwatch_chain_trust_alarm 0');
    pool.demote(names[1], 'forged block');
    pool.demote(names[1], 'forged block again');
    pool.demote(names[0], 'withheld block 98', 'withheld');
    await new Promise((r) => setTimeout(r, 150)); // past the per-scrape cache
    const second = await registry.metrics();
    expect(second).toContain(`tonwatch_liteserver_disproven_total{server="${names[1]}"} 2`);
    expect(second).toContain(`tonwatch_liteserver_up{server="${names[1]}"} 0`);
    expect(second).toContain(`tonwatch_liteserver_disproven_total{server="${names[0]}"} 0`);
    expect(second).toContain(`tonwatch_liteserver_withheld_total{server="${names[0]}"} 1`);
  });
});
