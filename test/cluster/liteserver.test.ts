// Cluster mode over the liteserver protocol: a standalone devnet (`tonwatch devnet serve`, a child
// process) is the chain, and two `tonwatch serve` processes with every role follow it through its
// liteserver (TONWATCH_CHAIN=liteserver, the global config `tonwatch devnet global-config` prints) at the
// default trust level, secure.
// The leader is SIGKILLed while a devnet transfer is on its way; the other takes over from the
// committed cursor: every block once and in order, the transfer's transaction in the log once.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StoreEventLog } from '../../src/bus/store-log.js';
import { openStore } from '../../src/store/db.js';
import { dialects, PG_URL } from '../support/stores.js';
import { clusterDb, devnetCluster, followerFacts, startDevnetServe, startNode, until } from './support.js';

describe.runIf(dialects.includes('postgres'))('a cluster following a standalone devnet over the liteserver protocol', () => {
  const cluster = devnetCluster();
  const { adminKey, nodes } = cluster;

  it('the leader SIGKILLed: the other takes over, no gap or duplicate in the log, a devnet transfer in it once', async () => {
    const devnet = (cluster.devnet = await startDevnetServe({ TONWATCH_BLOCK_INTERVAL_MS: '400' }));
    const db = (cluster.db = await clusterDb());
    // the default trust level, secure: every node walks the devnet's validator signatures from its init block (block 1)
    const liteserver = { TONWATCH_CHAIN: 'liteserver', TONWATCH_LITESERVER_CONFIG: devnet.globalConfig, TONWATCH_NETWORK: 'testnet' };
    nodes.push(...(await Promise.all([startNode(db, 'a', adminKey, liteserver), startNode(db, 'b', adminKey, liteserver)])));
    const leaderNow = async () => {
      const facts = await Promise.all(nodes.filter((n) => n.child.exitCode === null).map(async (n) => [n, await followerFacts(n)] as const));
      const leaders = facts.filter(([, f]) => f.leader);
      expect(leaders.length).toBeLessThanOrEqual(1);
      return leaders[0]?.[0];
    };
    const leader = await until(leaderNow, 'a leader', 60_000);
    const survivor = nodes.find((n) => n !== leader)!;
    await until(async () => (await db.query("select count(*)::int as n from event_batches where kind = 'block'"))[0].n >= 5, 'five blocks in the log', 60_000);

    // a transfer on its way to the next blocks, then the leader killed
    const comment = `failover ${randomBytes(4).toString('hex')}`;
    const sent = await fetch(`${devnet.url}/devnet/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ from: 'alice', to: 'bob', amount: '100000000', comment }) });
    expect(sent.status, await sent.clone().text()).toBe(200);
    const killedAt = Date.now();
    leader.child.kill('SIGKILL');
    expect(await leader.exited).toBe('SIGKILL');
    const [{ s: seqnoAtKill }] = await db.query('select max(mc_seqno)::int as s from event_batches');
    const [{ at }] = await until(async () => {
      const rows = await db.query("select min(appended_at)::int8 as at from event_batches where mc_seqno > $1 and kind = 'block' having min(appended_at) is not null", [seqnoAtKill]);
      return rows.length ? rows : null;
    }, 'a block published by the new leader', 60_000);
    const [{ taken_at }] = await db.query<{ taken_at: string }>('select taken_at from leadership');
    console.log(`cluster on liteservers: leader killed → new leader elected in ${Number(taken_at) - killedAt} ms → next block published in ${Number(at) - killedAt} ms (devnet blocks every 400 ms)`);
    expect((await followerFacts(survivor)).leader).toBe(true);
    // the new leader believes the devnet's head on validator signatures (the devnet's init block is key block 1)
    const chainCheck = ((await (await fetch(`${survivor.url}/readyz`)).json()) as any).checks.chain;
    expect(chainCheck.trust).toMatchObject({ level: 'secure', alarm: null, key_block: { seqno: expect.any(Number) } });
    expect(await db.query('select term from leadership')).toEqual([{ term: '2' }]);

    // the transfer reached the log (bob's transaction carries the comment), and a few blocks more
    const store = await openStore({ databaseUrl: PG_URL, pgSchema: db.schema, pgPoolSize: 2 });
    try {
      const readLog = async () => {
        const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
        await log.open();
        return log.readAfter(-1, 1_000_000);
      };
      const carrying = (batches: Awaited<ReturnType<typeof readLog>>) =>
        batches.flatMap((b) => b.events).filter((e) => e.type === 'transaction' && e.tx.inMessage?.decoded.kind === 'text_comment' && e.tx.inMessage.decoded.text === comment);
      await until(async () => carrying(await readLog()).length > 0, 'the transfer in the log', 30_000);
      const [{ s: now }] = await db.query('select max(mc_seqno)::int as s from event_batches');
      await until(async () => (await db.query('select max(mc_seqno)::int as s from event_batches'))[0].s >= now + 3, 'three blocks more', 30_000);

      const batches = await readLog();
      const blocks = batches.filter((b) => b.kind === 'block').map((b) => b.mcSeqno);
      expect(blocks).toEqual(blocks.map((_, i) => blocks[0]! + i));
      expect(blocks.at(-1)! - seqnoAtKill).toBeGreaterThanOrEqual(3);
      const positions = batches.flatMap((b) => b.events.map((e) => e.position));
      expect(new Set(positions).size).toBe(positions.length);
      expect([...positions].sort((x, y) => x - y)).toEqual(positions);
      expect(carrying(batches)).toHaveLength(1);
    } finally {
      await store.close();
    }
    expect(survivor.output()).not.toMatch(/"level":60/);
  }, 150_000);
});
