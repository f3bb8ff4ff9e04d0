// Streaming v2 across a cluster leader kill: two `tonwatch serve` nodes on one PostgreSQL schema follow
// the replay chain; a v2 client (docs only) on the leader follows a few accounts; the leader is
// SIGKILLed; the client reconnects to the other node with its last id. Ids are log positions, the same
// on every node: what it received in all equals what a fresh client resuming from its first id reads
// from the surviving node — every finalized notification once, in order.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { dialects } from '../support/stores.js';
import { openSse, type V2Event } from '../support/v2-client.js';
import { clusterDb, followerFacts, startNode, until, type ClusterDb, type Node } from './support.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const key = (e: V2Event) => `${e.id} ${(e.data.transactions as Array<{ hash: string }>).map((t) => t.hash).join(',')}`;
const positionOf = (id: string) => Number(id.split(/[.~]/)[0]);

describe.runIf(dialects.includes('postgres'))('streaming v2 when the cluster leader is killed', () => {
  const adminKey = `tw_test_admin_${randomBytes(12).toString('hex')}`;
  let db: ClusterDb;
  const nodes: Node[] = [];
  afterAll(async () => {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db?.drop();
  });

  it('a client resuming on another node with its last id misses and repeats no finalized notification', async () => {
    db = await clusterDb();
    nodes.push(await startNode(db, 'a', adminKey, { TONWATCH_REPLAY_ACCOUNTS: '6' }));
    nodes.push(await startNode(db, 'b', adminKey, { TONWATCH_REPLAY_ACCOUNTS: '6' }));
    const leader = await until(async () => {
      for (const n of nodes) if ((await followerFacts(n)).leader) return n;
      return undefined;
    }, 'a leader', 60_000);
    const other = nodes.find((n) => n !== leader)!;
    // the replay's accounts, from the legacy stream of every transaction
    const accounts = new Set<string>();
    const learn = await fetch(`${leader.url}/v2/sse/accounts/transactions?accounts=ALL&token=${adminKey}`);
    const reader = learn.body!.pipeThrough(new TextDecoderStream()).getReader();
    const deadline = Date.now() + 20_000;
    while (accounts.size < 4 && Date.now() < deadline) for (const m of ((await reader.read()).value ?? '').matchAll(/"account_id":"([^"]+)"/g)) accounts.add(m[1]!);
    await reader.cancel();
    const subscription = { types: ['transactions'], addresses: [...accounts] };
    const auth = { authorization: `Bearer ${adminKey}` };

    const got: V2Event[] = [];
    let firstId: string | undefined;
    let lastId: string | undefined;
    const onEvent = (e: V2Event) => {
      if (e.id) lastId = e.id;
      firstId ??= e.id;
      if (e.event === 'event') got.push(e);
    };
    const before = await openSse(`${leader.url}/api/streaming/v2/sse`, subscription, { onEvent }, { headers: auth });
    await sleep(3000);
    leader.child.kill('SIGKILL');
    await before.done;
    const receivedBefore = got.length;
    expect(receivedBefore).toBeGreaterThan(0);
    const after = await openSse(`${other.url}/streaming/v2/sse`, subscription, { onEvent }, { lastEventId: lastId, headers: auth });
    expect(after.status).toBe(200);
    // the survivor takes over the follower role and the chain goes on
    await until(async () => got.length > receivedBefore + 5 && got, 'notifications from the survivor', 60_000);
    after.abort();

    const reference: V2Event[] = [];
    const ref = await openSse(`${other.url}/api/streaming/v2/sse`, subscription, { onEvent: (e) => e.event === 'event' && reference.push(e) }, { lastEventId: firstId, headers: auth });
    const lastGot = positionOf(got.at(-1)!.id!);
    await until(async () => reference.some((e) => positionOf(e.id!) >= lastGot), 'the reference catching up', 30_000);
    ref.abort();
    const expected = reference.filter((e) => positionOf(e.id!) <= lastGot).map(key);
    expect(got.map(key)).toEqual(expected);
  }, 240_000);
});
