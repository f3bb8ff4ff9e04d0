// Provisional events across a cluster of real processes: a standalone devnet (`tonwatch devnet serve`)
// whose shard blocks stay non-final for most of a block interval, and two `tonwatch serve` nodes following
// it over the liteserver protocol. A transfer's trace becomes confirmed on the leader (it polls
// liteServer.nonfinal.getPendingShardBlocks); the non-leader shows it in flight through the relay; the
// leader is SIGKILLed while the trace is still confirmed, and the survivor still ends it. The transfer pays
// an invoice: a client of the non-leader sees it detected at confirmed, then paid once it is finalized.
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/stores.js';
import { openSse, type V2Event } from '../support/v2-client.js';
import { clusterDb, devnetCluster, followerFacts, startDevnetServe, startNode, until, type Node } from './support.js';

/** The node's finality counters and gauges from /metrics, by `level` or `reason` label. */
async function finalityMetrics(node: Node): Promise<Record<string, number>> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^tonwatch_finality_(events_total|traces_in_flight|invalidations_total)\{(?:level|reason)="(\w+)"\} (\S+)$/gm)) out[`${m[1]}.${m[2]}`] = Number(m[3]);
  return out;
}

describe.runIf(dialects.includes('postgres'))('finality levels in a cluster following a devnet over the liteserver protocol', () => {
  const cluster = devnetCluster();
  const { adminKey, nodes } = cluster;

  it('a confirmed trace reaches the non-leader; the leader SIGKILLed mid-trace, the trace still ends there', async () => {
    // shard blocks non-final for 2.5 s of every 3 s: time to see the trace confirmed on both nodes
    const devnet = (cluster.devnet = await startDevnetServe({ TONWATCH_BLOCK_INTERVAL_MS: '3000', TONWATCH_DEVNET_CONFIRMATION_LAG_MS: '2500' }));
    const db = (cluster.db = await clusterDb());
    const liteserver = { TONWATCH_CHAIN: 'liteserver', TONWATCH_LITESERVER_CONFIG: devnet.globalConfig, TONWATCH_NETWORK: 'testnet', TONWATCH_TRUST: 'fast' };
    nodes.push(...(await Promise.all([startNode(db, 'a', adminKey, liteserver), startNode(db, 'b', adminKey, liteserver)])));
    const leader = await until(async () => {
      for (const n of nodes) if ((await followerFacts(n)).leader) return n;
      return null;
    }, 'a leader', 60_000);
    const member = nodes.find((n) => n !== leader)!;
    expect((await followerFacts(member)).leader).toBe(false);
    await until(async () => (await db.query("select count(*)::int as n from event_batches where kind = 'block'"))[0].n >= 2, 'blocks in the log', 60_000);

    // an invoice on the devnet's merchant wallet, made through the non-leader's API and paid from alice
    const api = async (path: string, init: { method?: string; json?: unknown; token?: string } = {}) => {
      const res = await fetch(`${member.url}${path}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${init.token ?? adminKey}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
        body: init.json ? JSON.stringify(init.json) : undefined,
      });
      return { status: res.status, json: (await res.json()) as any };
    };
    const wallets = (await (await fetch(`${devnet.url}/devnet/wallets`)).json()) as Array<{ name: string; address: string }>;
    const app = await api('/api/v1/services/invoices/app', { method: 'POST', json: { name: 'Shop', recipient_address: wallets.find((w) => w.name === 'merchant')!.address } });
    expect(app.status, JSON.stringify(app.json)).toBe(201);
    const created = await api('/api/v1/services/invoices/invoice', { method: 'POST', token: app.json.token, json: { amount: '700000000', life_time: 600, currency: 'TON' } });
    expect(created.status).toBe(201);
    const invoice = () => api(`/api/v1/services/invoices/${created.json.id}`, { token: app.json.token }).then((r) => r.json);

    // a Streaming v2 client of the non-leader, from the first level on, following the payer
    const alice = wallets.find((w) => w.name === 'alice')!.address;
    const events: V2Event[] = [];
    const sse = await openSse(`${member.url}/api/streaming/v2/sse`, { types: ['transactions'], addresses: [alice], min_finality: 'pending' }, { onEvent: (e) => events.push(e) }, { headers: { authorization: `Bearer ${adminKey}` } });
    expect(sse.status).toBe(200);
    const levels = () => events.filter((e) => e.event === 'event' && e.data.type === 'transactions').map((e) => e.data.finality);

    const before = await finalityMetrics(member);
    const sent = await fetch(`${devnet.url}/devnet/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: 'alice', link: created.json.payment_link }) });
    expect(sent.status, await sent.clone().text()).toBe(200);

    // the non-leader shows the trace confirmed: it follows no chain itself, so this came from the leader
    await until(async () => (await finalityMetrics(member))['traces_in_flight.confirmed'] === 1, 'the trace confirmed on the non-leader', 20_000);
    const [{ n: relayed }] = await db.query("select count(*)::int as n from finality_events");
    expect(relayed).toBeGreaterThanOrEqual(1);
    const readyz = ((await (await fetch(`${member.url}/readyz`)).json()) as any).checks.finality;
    expect(readyz.traces_in_flight).toBe(1);
    await until(async () => levels().includes('confirmed'), 'the confirmed notification on the non-leader\'s v2 stream', 10_000);
    // a client of the non-leader sees the payment detected at confirmed, the invoice still pending
    const seen = await invoice();
    expect(seen).toMatchObject({ status: 'pending', detected: { amount: '700000000', finality: 'confirmed' } });

    // mid-trace: still confirmed on the leader when it dies
    expect((await finalityMetrics(leader))['traces_in_flight.confirmed']).toBe(1);
    leader.child.kill('SIGKILL');
    expect(await leader.exited).toBe('SIGKILL');

    // the survivor ends the trace: finalized (when its transaction reaches the log) or invalidated
    const ended = await until(async () => {
      const m = await finalityMetrics(member);
      const finalized = (m['events_total.finalized'] ?? 0) - (before['events_total.finalized'] ?? 0);
      const invalidated = (m['events_total.invalidated'] ?? 0) - (before['events_total.invalidated'] ?? 0);
      return m['traces_in_flight.confirmed'] === 0 && m['traces_in_flight.pending'] === 0 && finalized + invalidated >= 1 ? { m, finalized, invalidated } : null;
    }, 'the trace ended on the survivor', 60_000);
    console.log(`cluster finality: after the leader's SIGKILL the survivor ended the trace (${ended.finalized} finalized, ${ended.invalidated} invalidated)`);
    // it lands in a block: finalized, not expired
    expect(ended.finalized).toBeGreaterThanOrEqual(1);
    expect(ended.m['invalidations_total.expired'] ?? 0).toBe(0);
    // and the invoice is paid there, once, from the finalized log
    const paid = await until(async () => {
      const inv = await invoice();
      return inv.status === 'paid' ? inv : null;
    }, 'the invoice paid on the survivor', 60_000);
    expect(paid.payments).toHaveLength(1);
    expect(paid.detected).toBeUndefined();
    // the v2 client of the survivor saw the trace confirmed, then finalized, on one stream (a liteserver source knows
    // no pending for messages it did not send)
    await until(async () => levels().includes('finalized'), 'the finalized notification on the v2 stream', 30_000);
    expect(levels()).toEqual(['confirmed', 'finalized']);
    const norms = new Set(events.filter((e) => e.event === 'event').map((e) => e.data.trace_external_hash_norm));
    expect(norms.size).toBe(1);
    sse.abort();
    expect(member.output()).not.toMatch(/"level":60/);
  }, 180_000);
});
