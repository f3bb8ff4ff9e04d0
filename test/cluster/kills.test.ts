// The cluster's acceptance test (issue 22): three `tonwatch serve` processes on one PostgreSQL schema
// follow the replay chain — two with every role (follower, api, worker), one api+worker — while a
// loopback receiver counts the webhooks of a webhook subscribed (through one node's API) to the
// replay's accounts, and SSE clients on two nodes follow every account's transactions. The leader is
// SIGKILLed five times at random moments and started again each time, and twice a worker is
// SIGKILLed while a request of its is held at the receiver, and started again. Afterwards: every
// event position is in the log once and in each client's stream once (across its reconnects); every
// webhook the log's transactions call for is received, first receipts in per-account order, repeats
// with their first attempt's webhook-id and Idempotency-Key.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventBatch } from '../../src/bus/events.js';
import { StoreEventLog } from '../../src/bus/store-log.js';
import { openStore, type Store } from '../../src/store/db.js';
import { accountKey, transactionBody } from '../../src/webhooks/router.js';
import { checkReceipts, type ExpectedDelivery } from '../support/receipts.js';
import { dialects, PG_URL } from '../support/stores.js';
import { Receiver, type ReceivedRequest } from '../support/webhooks.js';
import { clusterDb, followerFacts, FollowingClient, startNode, until, type ClusterDb, type Node } from './support.js';

const LEADER_KILLS = 5;
const WORKER_KILLS = 2;
/** The kills in their order: the worker kills between the leader kills. */
const KILLS = ['leader', 'worker', 'leader', 'leader', 'worker', 'leader', 'leader'] as const;
/** Short attempts and leases (a killed worker's keys move within seconds regardless: its liveness lock ends with it). */
const DELIVERY = { TONWATCH_WEBHOOK_TIMEOUT_MS: '2000', TONWATCH_WORKER_LEASE_SECONDS: '7' };
const EVERY_ROLE = { ...DELIVERY, TONWATCH_ROLES: 'follower,api,worker' };
const API_WORKER = { ...DELIVERY, TONWATCH_ROLES: 'api,worker' };

/** The whole log as it is in the store now. */
async function readLog(store: Store): Promise<EventBatch[]> {
  const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
  await log.open();
  return log.readAfter(-1, 1_000_000);
}

/** A request held at the receiver until released (its sender gets no answer meanwhile). */
interface Held {
  request: ReceivedRequest;
  index: number;
  release(): void;
}

describe.runIf(dialects.includes('postgres'))('a cluster whose leader and workers are killed', () => {
  const adminKey = `tw_test_admin_${randomBytes(12).toString('hex')}`;
  let db: ClusterDb;
  let store: Store | undefined;
  const receiver = new Receiver();
  const nodes: Node[] = [];
  const roles = new Map<Node, Record<string, string>>();
  const releases: Array<() => void> = [];
  afterAll(async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    for (const release of releases) release();
    await receiver.close();
    await store?.close();
    await db?.drop();
  });

  it('keeps every event exactly once in the log and in every SSE stream, and every webhook in per-key order', async () => {
    db = await clusterDb();
    store = await openStore({ databaseUrl: PG_URL, pgSchema: db.schema, pgPoolSize: 2 });
    await receiver.listen(0);
    // once a hold is asked for, the next request is held until released
    let holdNext: ((request: ReceivedRequest, index: number) => Promise<void>) | null = null;
    receiver.respond = (request, index) => (holdNext ? { status: 200, until: holdNext(request, index) } : { status: 200 });
    const hold = () =>
      new Promise<Held>((resolve) => {
        holdNext = (request, index) => {
          holdNext = null;
          return new Promise<void>((release) => {
            releases.push(release);
            resolve({ request, index, release });
          });
        };
      });

    const start = async (name: string, env: Record<string, string>) => {
      const node = await startNode(db, name, adminKey, env);
      roles.set(node, env);
      nodes.push(node);
      return node;
    };
    await Promise.all([start('a', EVERY_ROLE), start('b', EVERY_ROLE), start('c', API_WORKER)]);
    const [, b, c] = nodes as [Node, Node, Node];
    const alive = () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
    const leaderNow = async () => {
      const facts = await Promise.all(alive().map(async (n) => [n, await followerFacts(n)] as const));
      const leaders = facts.filter(([, f]) => f.leader);
      expect(leaders.length).toBeLessThanOrEqual(1);
      return leaders[0]?.[0];
    };
    await until(leaderNow, 'a leader');

    // a webhook, made through the api+worker node, following the accounts the replay has used so far
    const accounts = await until(async () => {
      const seen = new Set((await readLog(store!)).flatMap((batch) => batch.events.flatMap((e) => (e.type === 'transaction' ? [e.tx.account] : []))));
      return seen.size >= 30 ? [...seen] : null;
    }, 'thirty accounts in the log');
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${c.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, await res.clone().text()).toBe(200);
      return res.json() as Promise<any>;
    };
    const { webhook_id } = await call('/webhooks', { endpoint: receiver.url });
    await call(`/webhooks/${webhook_id}/account-tx/subscribe`, { accounts: accounts.map((account_id) => ({ account_id })) });
    await receiver.waitFor(1, 30_000);

    const [{ p: from }] = await db.query('select max(last_position)::int8 as p from event_batches');
    // one client on a node with every role (killed as leader some time), one on the api+worker node
    const clients = [new FollowingClient(alive, b, adminKey, Number(from)), new FollowingClient(alive, c, adminKey, Number(from))];

    const failovers: Array<{ elected: number; published: number }> = [];
    const cut: Array<{ name: string; body: string; index: number; at: number }> = [];
    for (const kind of KILLS) {
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 2500));
      if (kind === 'leader') {
        const leader = await until(leaderNow, 'a leader before the kill');
        const killedAt = Date.now();
        leader.child.kill('SIGKILL');
        await leader.exited;
        const [{ s: seqnoAtKill }] = await db.query('select max(mc_seqno)::int as s from event_batches');
        const [{ at }] = await until(async () => {
          const rows = await db.query("select min(appended_at)::int8 as at from event_batches where mc_seqno > $1 and kind = 'block' having min(appended_at) is not null", [seqnoAtKill]);
          return rows.length ? rows : null;
        }, 'a block after the leader kill');
        const taken = (await db.query<{ taken_at: string }>('select taken_at from leadership'))[0]!;
        failovers.push({ elected: Number(taken.taken_at) - killedAt, published: Number(at) - killedAt });
        // the killed node comes back as a standby
        await start(`${leader.name}'`, roles.get(leader)!);
        continue;
      }
      // a worker: hold the next request at the receiver; its sender holds the lease of its account's key
      for (;;) {
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no webhook request to hold within 30 s')), 30_000)));
        const held = await Promise.race([hold(), late]).finally(() => clearTimeout(timer));
        const key = accountKey('account_tx', (JSON.parse(held.request.body) as { account_id: string }).account_id);
        const [lease] = await db.query<{ owner: string }>('select owner from delivery_leases where ordering_key = $1', [key]);
        const worker = lease && alive().find((n) => lease.owner.includes(`:${n.child.pid}:`));
        // the leader's kill is the other kind: let that one be answered and hold the next
        if (!worker || worker === (await leaderNow())) {
          held.release();
          continue;
        }
        worker.child.kill('SIGKILL');
        await worker.exited;
        cut.push({ name: worker.name, body: held.request.body, index: held.index, at: Date.now() });
        held.release();
        await start(`${worker.name}'`, roles.get(worker)!);
        break;
      }
    }
    expect((await db.query('select term from leadership'))[0].term).toBe(String(LEADER_KILLS + 1));
    expect(cut).toHaveLength(WORKER_KILLS);

    // everything up to here must arrive: the log's head now bounds the stream and webhook checks
    const [{ p: upTo }] = await db.query('select max(last_position)::int8 as p from event_batches');
    const end = Number(upTo);
    await until(async () => clients.every((cl) => (cl.last ?? 0) >= end - 1000), 'clients at the head', 30_000);
    for (const cl of clients) await cl.close();

    // the log: every block once and in order across five takeovers
    const batches = await readLog(store);
    const blocks = batches.filter((x) => x.kind === 'block').map((x) => x.mcSeqno);
    expect(blocks).toEqual(blocks.map((_, i) => blocks[0]! + i));
    const positions = batches.flatMap((x) => x.events.map((e) => e.position));
    expect(new Set(positions).size).toBe(positions.length);
    expect([...positions].sort((x, y) => x - y)).toEqual(positions);

    // each client saw exactly the log's transactions after its start, once each, in order, across its reconnects
    const seenUpTo = Math.min(...clients.map((cl) => cl.last!));
    const transactions = batches.flatMap((x) => x.events).flatMap((e) => (e.type === 'transaction' ? [{ position: e.position, tx: e.tx }] : []));
    const streamed = transactions.filter((t) => t.position > Number(from) && t.position <= seenUpTo).map((t) => t.position);
    expect(streamed.length).toBeGreaterThan(100);
    for (const cl of clients) expect(cl.ids.filter((id) => id <= seenUpTo)).toEqual(streamed);
    expect(clients.reduce((n, cl) => n + cl.reconnects.length, 0)).toBeGreaterThan(0);

    // webhooks: every transaction of a followed account from the first routed block on, up to the end
    const followed = new Set(accounts);
    const expectedIn = (log: EventBatch[]) => {
      const txs = log.flatMap((x) => x.events).flatMap((e) => (e.type === 'transaction' ? [{ position: e.position, tx: e.tx }] : []));
      const positionOf = new Map(txs.map((t) => [transactionBody(t.tx), t.position]));
      const firstRouted = Math.min(...receiver.requests.map((r) => positionOf.get(r.body) ?? Infinity));
      const firstBlock = log.find((x) => x.lastPosition >= firstRouted)!.firstPosition;
      const expected: ExpectedDelivery[] = txs
        .filter((t) => t.position >= firstBlock && t.position <= end && followed.has(t.tx.account))
        .map((t) => ({ body: transactionBody(t.tx), key: accountKey('account_tx', t.tx.account) }));
      return { positionOf, expected };
    };
    const { expected } = expectedIn(batches);
    expect(expected.length).toBeGreaterThan(100);
    const wanted = new Set(expected.map((e) => e.body));
    // (a webhook still missing then is named by the check below)
    await until(async () => wanted.size === new Set(receiver.requests.map((r) => r.body).filter((body) => wanted.has(body))).size, 'every webhook received', 40_000).catch(() => {});
    // what arrived so far, against the log as it is now (it holds every transaction a request can be of)
    const requests = receiver.requests.slice();
    const { positionOf } = expectedIn(await readLog(store));
    const received = requests.filter((r) => (positionOf.get(r.body) ?? 0) <= end);
    const repeats = checkReceipts(received, expected);
    // the attempts cut by the worker kills were sent again (by another worker; same id, checked above),
    // within 5 s of the kill (issue 35; the lease is 7 s)
    const resent = cut.map((killed) => requests.find((r, i) => i > killed.index && r.body === killed.body)!.at - killed.at);
    for (const ms of resent) expect(ms).toBeLessThanOrEqual(5000);

    console.log(
      `cluster: ${LEADER_KILLS} leader kills, failover (elected / next block published, ms): ${failovers.map((f) => `${f.elected}/${f.published}`).join(', ')}; ` +
        `${WORKER_KILLS} workers killed mid-delivery (${cut.map((k) => k.name).join(', ')}; their held webhook sent again ${resent.join(', ')} ms after the kill); webhooks: ${expected.length} expected over ${followed.size} accounts, ${received.length} requests, ${repeats} repeats; ` +
        `SSE: ${streamed.length} events per client, reconnects ${clients.map((cl) => cl.reconnects.length).join(', ')} (replay at 5 blocks/s)`,
    );
  }, 170_000);
});
