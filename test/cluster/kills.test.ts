// The leader killed again and again: three `tonwatch serve` processes on one PostgreSQL schema (two
// with the follower role, one api+worker), the leader SIGKILLed five times at random moments and
// started again each time, while SSE clients on two nodes follow every account's transactions.
// Afterwards every block is in the log once and in order, and each client — across its reconnects —
// saw exactly the log's transaction events, once each.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreEventLog } from '../../src/bus/store-log.js';
import { openStore } from '../../src/store/db.js';
import { dialects, PG_URL } from '../support/stores.js';
import { clusterDb, followerFacts, FollowingClient, startNode, until, type ClusterDb, type Node } from './support.js';

const KILLS = 5;

describe.runIf(dialects.includes('postgres'))('a cluster whose leader is killed five times', () => {
  const adminKey = `tw_test_admin_${randomBytes(12).toString('hex')}`;
  let db: ClusterDb;
  const nodes: Node[] = [];
  afterAll(async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db?.drop();
  });

  it('keeps every event exactly once in the log and in every SSE stream', async () => {
    db = await clusterDb();
    const follower = { TONWATCH_ROLES: 'follower,api' };
    const alive = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
    nodes.push(...(await Promise.all([startNode(db, 'a', adminKey, follower), startNode(db, 'b', adminKey, follower), startNode(db, 'c', adminKey, { TONWATCH_ROLES: 'api,worker' })])));
    const leaderNow = async () => {
      const facts = await Promise.all(alive().map(async (n) => [n, await followerFacts(n)] as const));
      const leaders = facts.filter(([, f]) => f.leader);
      expect(leaders.length).toBeLessThanOrEqual(1);
      return leaders[0]?.[0];
    };
    await until(leaderNow, 'a leader');
    await until(async () => (await db.query('select count(*)::int as n from event_batches'))[0].n >= 3, 'first batches');
    const [{ p: start }] = await db.query('select max(last_position)::int8 as p from event_batches');
    // one client on a follower node (it will be killed at some point), one on the api+worker node
    const clients = [new FollowingClient(alive, nodes[1]!, adminKey, Number(start)), new FollowingClient(alive, nodes[2]!, adminKey, Number(start))];

    const failovers: Array<{ elected: number; published: number }> = [];
    for (let kill = 0; kill < KILLS; kill++) {
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 2500));
      const leader = await until(leaderNow, 'a leader before the kill');
      const killedAt = Date.now();
      leader.child.kill('SIGKILL');
      await leader.exited;
      const [{ s: seqnoAtKill }] = await db.query('select max(mc_seqno)::int as s from event_batches');
      const [{ at }] = await until(async () => {
        const rows = await db.query("select min(appended_at)::int8 as at from event_batches where mc_seqno > $1 and kind = 'block' having min(appended_at) is not null", [seqnoAtKill]);
        return rows.length ? rows : null;
      }, `a block after kill ${kill + 1}`);
      const taken = (await db.query<{ taken_at: string }>('select taken_at from leadership'))[0]!;
      failovers.push({ elected: Number(taken.taken_at) - killedAt, published: Number(at) - killedAt });
      // the killed node comes back as a standby
      const again = await startNode(db, `${leader.name}'`, adminKey, follower);
      nodes.push(again);
    }
    console.log(
      `cluster: ${KILLS} leader kills; failover (elected / next block published, ms): ${failovers.map((f) => `${f.elected}/${f.published}`).join(', ')}; client reconnects: ${clients.map((c) => c.reconnects.length).join(', ')} (machine loaded; replay at 5 blocks/s)`,
    );
    expect((await db.query('select term from leadership'))[0].term).toBe(String(KILLS + 1));

    const [{ s: later }] = await until(async () => {
      const rows = await db.query('select max(mc_seqno)::int as s from event_batches');
      return rows[0].s > 0 ? rows : null;
    }, 'the head');
    const [{ p: headAt }] = await db.query('select max(last_position)::int8 as p from event_batches where mc_seqno <= $1', [later]);
    await until(async () => clients.every((c) => (c.last ?? 0) >= Number(headAt) - 1000), 'clients at the head', 30_000);
    for (const c of clients) await c.close();

    // the log: every block once and in order across five takeovers
    const store = await openStore({ databaseUrl: PG_URL, pgSchema: db.schema, pgPoolSize: 2 });
    try {
      const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
      await log.open();
      const batches = await log.readAfter(-1, 1_000_000);
      const blocks = batches.filter((b) => b.kind === 'block').map((b) => b.mcSeqno);
      expect(blocks).toEqual(blocks.map((_, i) => blocks[0]! + i));
      const positions = batches.flatMap((b) => b.events.map((e) => e.position));
      expect(new Set(positions).size).toBe(positions.length);
      expect([...positions].sort((x, y) => x - y)).toEqual(positions);
      // each client saw exactly the log's transactions after its start, once each, in order
      const upTo = Math.min(...clients.map((c) => c.last!));
      const expected = batches.flatMap((b) => b.events).filter((e) => e.type === 'transaction' && e.position > Number(start) && e.position <= upTo).map((e) => e.position);
      expect(expected.length).toBeGreaterThan(100);
      for (const c of clients) expect(c.ids.filter((id) => id <= upTo)).toEqual(expected);
    } finally {
      await store.close();
    }
  }, 240_000);
});
