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
    const alarm = { seqno: 100, blocks: [mcBlock(100), other] as [typeof other, typeof other], servers: names, at: new Date().toISOString() };
    const report = liteserverHealth({ trust: fastTrust({ alarm }), pool: pool.status(), lagBlocks: 0, lagSeconds: 1 });
    expect(report.ok).toBe(false);
    expect(report.problem).toContain(`trust alarm: servers ${names[0]} and ${names[1]} proved different blocks at seqno 100`);
    expect(report.problem).toContain(mcBlock(100).rootHash.toString('hex'));
  });

  it('is not ready when every server is down, with the pool\'s reason', async () => {
    const { pool } = await twoServers();
    for (const s of servers) await s.close();
    for (let i = 0; i < 200 && pool.status().ready; i++) await new Promise((r) => setTimeout(r, 25));
    const report = liteserverHealth({ trust: fastTrust(), pool: pool.status(), lagBlocks: 3, lagSeconds: 30 });
    expect(report.ok).toBe(false);
    expect(report.problem).toMatch(/^no liteserver is ready/);
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
