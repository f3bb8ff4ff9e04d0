// Cluster mode with real processes: two `tonwatch serve` processes with every role, started at the
// same instant on one empty PostgreSQL schema, follow the replay chain; the leader is killed with
// SIGKILL and the other takes over from the committed cursor. SSE clients on both nodes (moving to
// the survivor with Last-Event-ID when theirs dies) see every event exactly once.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreEventLog } from '../../src/bus/store-log.js';
import { openStore } from '../../src/store/db.js';
import { dialects, PG_URL } from '../support/stores.js';
import { clusterDb, followerFacts, FollowingClient, startNode, stopGracefully, until, type ClusterDb, type Node } from './support.js';

describe.runIf(dialects.includes('postgres'))('a cluster of two processes on one PostgreSQL', () => {
  const adminKey = `tw_test_admin_${randomBytes(12).toString('hex')}`;
  let db: ClusterDb;
  let nodes: Node[] = [];
  beforeAll(async () => {
    db = await clusterDb();
  });
  afterAll(async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db?.drop();
  });

  const leaderOf = async (): Promise<Node> => {
    const facts = await Promise.all(nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null).map(async (n) => [n, await followerFacts(n)] as const));
    const leaders = facts.filter(([, f]) => f.leader);
    expect(leaders.length).toBeLessThanOrEqual(1);
    if (leaders.length === 0) throw new Error('no leader yet');
    return leaders[0]![0];
  };

  it('started at the same instant on an empty database: migrations once, one leader, no error', async () => {
    nodes = await Promise.all([startNode(db, 'a', adminKey), startNode(db, 'b', adminKey)]);
    const leader = await until(() => leaderOf(), 'a leader');
    const standby = nodes.find((n) => n !== leader)!;
    expect(await followerFacts(standby)).toMatchObject({ ok: true, leader: false, running: false });
    // blocks flow into the log, written by one term
    await until(async () => (await db.query('select count(*)::int as n from event_batches'))[0].n >= 5, 'five batches');
    expect(await db.query('select role, term from leadership')).toEqual([{ role: 'follower', term: '1' }]);
    // each migration applied once (by whichever process got the lock first); the other found them done
    const applied = await db.query<{ name: string }>('select name from kysely_migration');
    expect(new Set(applied.map((r) => r.name)).size).toBe(applied.length);
    const migrated = nodes.filter((n) => n.output().includes('"msg":"store migrated"'));
    expect(migrated).toHaveLength(1);
    for (const n of nodes) expect(n.output()).not.toMatch(/"level":(50|60)/);
  }, 90_000);

  it("a webhook subscribed through the standby's API is routed by the leader (the change is announced)", async () => {
    const received: string[] = [];
    const receiver = http.createServer((req, res) => {
      received.push(String(req.headers['webhook-id']));
      req.resume().on('end', () => res.end('ok'));
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const leader = await leaderOf();
      const standby = nodes.find((n) => n !== leader)!;
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${standby.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${adminKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        expect(res.status, await res.clone().text()).toBe(200);
        return res.json() as Promise<any>;
      };
      const { webhook_id } = await call('POST', '/webhooks', { endpoint: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook` });
      // jetton transfers (30% of the replay's traces) start with this opcode
      await call('POST', `/webhooks/${webhook_id}/subscribe-msg-opcode/0x0f8a7ea5`);
      await until(async () => received.length > 0, 'a delivery of the subscription made on the standby', 30_000);
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  }, 60_000);

  it("an address tracked through the standby's API joins the leader's live tracking: each of its later transactions is indexed", async () => {
    const leader = await leaderOf();
    const standby = nodes.find((n) => n !== leader)!;
    const store = await openStore({ databaseUrl: PG_URL, pgSchema: db.schema, pgPoolSize: 2 });
    try {
      const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
      await log.open();
      const head = log.headPosition()!;
      const recent = (await log.readAfter(head - 3_000_000, 1000)).flatMap((b) => b.events);
      const account = recent.findLast((e) => e.type === 'transaction')!;
      const address = account.type === 'transaction' ? account.tx.account : '';
      // from before the call: its transactions up to the standby's state read come by the backfill walk,
      // those up to the leader's join by the resync it asks for, the rest by live tracking
      const trackedAt = Number((await db.query('select max(last_position)::int8 as p from event_batches'))[0].p);
      const res = await fetch(`${standby.url}/account/${encodeURIComponent(address)}`, { method: 'POST', headers: { authorization: `Bearer ${adminKey}` } });
      expect(res.status, await res.text()).toBe(201);
      // wait for a few of its transactions after the tracking, then for the indexer to have them
      const later = async () => {
        await log.catchUp();
        return (await log.readAfter(trackedAt, 100_000)).flatMap((b) => b.events).flatMap((e) => (e.type === 'transaction' && e.position > trackedAt && e.tx.account === address ? [e.tx.lt] : []));
      };
      const wanted = await until(async () => {
        const lts = await later();
        return lts.length >= 3 ? lts : null;
      }, 'three transactions of the tracked address after tracking', 40_000);
      await until(async () => {
        const rows = await db.query<{ lt: string }>("select lt::text as lt from indexer_transactions where asset = 'ton' and owner = $1", [address]);
        const indexed = new Set(rows.map((r) => BigInt(r.lt)));
        return wanted.every((lt) => indexed.has(lt));
      }, 'the leader indexing them', 20_000);
    } finally {
      await store.close();
    }
  }, 90_000);

  it('the leader killed with SIGKILL: the other takes over from the cursor, each position once in the log and in every SSE stream', async () => {
    const leader = await leaderOf();
    const survivor = nodes.find((n) => n !== leader)!;
    const [{ p: start }] = await db.query('select max(last_position)::int8 as p from event_batches');
    const clients = nodes.map((n) => new FollowingClient(() => nodes, n, adminKey, Number(start)));
    await until(async () => clients.every((c) => c.ids.length > 20), 'both SSE clients receiving');

    const killedAt = Date.now();
    leader.child.kill('SIGKILL');
    expect(await leader.exited).toBe('SIGKILL');
    const [{ s: seqnoAtKill }] = await db.query('select max(mc_seqno)::int as s from event_batches');
    const [{ at: nextAppendedAt }] = await until(
      async () => {
        const rows = await db.query("select min(appended_at)::int8 as at from event_batches where mc_seqno > $1 and kind = 'block' having min(appended_at) is not null", [seqnoAtKill]);
        return rows.length ? rows : null;
      },
      'a block published by the new leader',
      30_000,
    );
    const failoverMs = Number(nextAppendedAt) - killedAt;
    const leads = /\{[^\n]*"msg":"this process leads the follower role"\}/.exec(survivor.output())!;
    const electedMs = JSON.parse(leads[0]).time - killedAt;
    console.log(`cluster failover: leader killed → new leader elected in ${electedMs} ms → next block published in ${failoverMs} ms (machine loaded; replay at 5 blocks/s)`);
    expect((await followerFacts(survivor)).leader).toBe(true);
    expect(await db.query('select term from leadership')).toEqual([{ term: '2' }]);

    // a few more blocks, and both clients (one moved to the survivor) catch up to the head
    const [{ s: later }] = await until(async () => {
      const rows = await db.query('select max(mc_seqno)::int as s from event_batches');
      return rows[0].s > seqnoAtKill + 10 ? rows : null;
    }, 'ten blocks after the failover');
    const [{ p: headAt }] = await db.query('select max(last_position)::int8 as p from event_batches where mc_seqno <= $1', [later]);
    await until(async () => clients.every((c) => (c.last ?? 0) >= Number(headAt) - 1000), 'clients at the head', 30_000);
    for (const c of clients) await c.close();

    // the log: every block once, in order, with no gap across the takeover
    const batches = await db.query<{ mc_seqno: string; kind: string; first_position: string; last_position: string }>(
      'select mc_seqno, kind, first_position, last_position from event_batches order by first_position',
    );
    const blocks = batches.filter((b) => b.kind === 'block').map((b) => Number(b.mc_seqno));
    expect(blocks).toEqual(blocks.map((_, i) => blocks[0]! + i));
    for (let i = 1; i < batches.length; i++) expect(Number(batches[i]!.first_position)).toBeGreaterThan(Number(batches[i - 1]!.last_position));

    // every SSE client: strictly increasing ids (no duplicate, no reordering) and the same events up to where both got
    const upTo = Math.min(...clients.map((c) => c.last!));
    const seen = clients.map((c) => c.ids.filter((id) => id <= upTo));
    for (const ids of seen) for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]!);
    expect(seen[0]).toEqual(seen[1]);
    // the client of the killed node moved to the survivor
    expect(clients[nodes.indexOf(leader)]!.reconnects[0]).toBe(survivor.name);
    // and nothing was lost: the transactions in the log between the start and upTo are exactly what they saw
    const stored = await db.query<{ n: string }>(
      "select count(*)::int as n from event_batches where kind = 'block' and first_position > $1 and last_position <= $2",
      [start, upTo],
    );
    expect(Number(stored[0]!.n)).toBeGreaterThan(10);
    for (const n of nodes.filter((x) => x !== leader)) expect(n.output()).not.toMatch(/"level":60/);
  }, 120_000);

  it('a leader stopped with SIGTERM (a rolling upgrade) hands over to a new node, which continues the log', async () => {
    const leader = await leaderOf();
    const joined = await startNode(db, 'c', adminKey);
    nodes.push(joined);
    await until(async () => (await followerFacts(joined)).ok, 'the new node ready');
    const [{ term: before }] = await db.query('select term::int as term from leadership');
    const stopped = await stopGracefully(leader);
    expect(stopped).toBe(0);
    const [{ s: seqnoAtStop }] = await db.query('select max(mc_seqno)::int as s from event_batches');
    await until(async () => (await followerFacts(joined)).leader, 'the new node leads');
    await until(async () => (await db.query('select max(mc_seqno)::int as s from event_batches'))[0].s > seqnoAtStop + 3, 'blocks after the handover');
    expect((await db.query('select term::int as term from leadership'))[0].term).toBe(before + 1);
    expect(leader.output()).toContain('"msg":"tonwatch stopped"');
    const blocks = (await db.query<{ s: number }>("select mc_seqno::int as s from event_batches where kind = 'block' order by first_position")).map((r) => r.s);
    expect(blocks).toEqual(blocks.map((_, i) => blocks[0]! + i));
  }, 90_000);
});
