// Streaming v2 resume across a server SIGKILL: the real `tonwatch serve` on the replay chain source, a v2
// client (docs only) following a few accounts; the server is killed with SIGKILL mid-stream and started
// again on its data directory; the client reconnects to it with its last id. What it received, in all,
// equals what a fresh client resuming from the client's first id gets from the restarted server — every
// finalized notification exactly once, in order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { spawnService, type SpawnedService } from '../support/service.js';
import { openSse, type V2Event } from '../support/v2-client.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'tonwatch-v2-kill-'));
const running: SpawnedService[] = [];
afterAll(async () => {
  for (const s of running) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const env = {
  TONWATCH_CHAIN: 'replay',
  TONWATCH_BLOCK_INTERVAL_MS: '250',
  TONWATCH_REPLAY_RATE: '200',
  TONWATCH_REPLAY_ACCOUNTS: '6',
  TONWATCH_REPLAY_START: String(Date.now()),
};
const ADMIN = 'tw_v2_kill_admin_key_0123456789';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A notification's identity: its id and its transactions' hashes. */
const key = (e: V2Event) => `${e.id} ${(e.data.transactions as Array<{ hash: string }>).map((t) => t.hash).join(',')}`;

it('a client resuming with its last id after the server was SIGKILLed misses and repeats no finalized notification', async () => {
  const first = await spawnService({ dataDir, env, adminKey: ADMIN, timeoutMs: 120_000 });
  running.push(first);
  // the replay's accounts, learned from the legacy stream of every transaction
  const accounts = new Set<string>();
  const learn = await fetch(`${first.url}/v2/sse/accounts/transactions?accounts=ALL&token=${ADMIN}`);
  const reader = learn.body!.pipeThrough(new TextDecoderStream()).getReader();
  const until = Date.now() + 20_000;
  while (accounts.size < 4 && Date.now() < until) {
    const { value } = await reader.read();
    for (const m of (value ?? '').matchAll(/"account_id":"([^"]+)"/g)) accounts.add(m[1]!);
  }
  await reader.cancel();
  expect(accounts.size).toBeGreaterThanOrEqual(4);
  const subscription = { types: ['transactions'], addresses: [...accounts] };

  const got: V2Event[] = [];
  let firstId: string | undefined;
  let lastId: string | undefined;
  const onEvent = (e: V2Event) => {
    if (e.id) lastId = e.id;
    firstId ??= e.id;
    if (e.event === 'event') got.push(e);
  };
  const before = await openSse(`${first.url}/api/streaming/v2/sse`, subscription, { onEvent }, { headers: { authorization: `Bearer ${ADMIN}` } });
  expect(before.status).toBe(200);
  await sleep(3000);
  first.child.kill('SIGKILL');
  expect(await first.exited).toBe('SIGKILL');
  await before.done;
  const receivedBefore = got.length;
  expect(receivedBefore).toBeGreaterThan(0);

  const second = await spawnService({ dataDir, env, adminKey: ADMIN, timeoutMs: 120_000 });
  running.push(second);
  const after = await openSse(`${second.url}/api/streaming/v2/sse`, subscription, { onEvent }, { lastEventId: lastId, headers: { authorization: `Bearer ${ADMIN}` } });
  expect(after.status).toBe(200);
  await sleep(3000);
  after.abort();
  expect(got.length).toBeGreaterThan(receivedBefore);
  const stopId = lastId!;

  // the reference: everything from the client's first id, read from the restarted server's log
  const reference: V2Event[] = [];
  const ref = await openSse(`${second.url}/api/streaming/v2/sse`, subscription, { onEvent: (e) => e.event === 'event' && reference.push(e) }, { lastEventId: firstId, headers: { authorization: `Bearer ${ADMIN}` } });
  const stopAt = Number(stopId.split(/[.~]/)[0]);
  const deadline = Date.now() + 30_000;
  while (!reference.some((e) => Number(e.id!.split('.')[0]) >= stopAt) && Date.now() < deadline) await sleep(50);
  ref.abort();
  const expected = reference.filter((e) => Number(e.id!.split('.')[0]) <= Number(got.at(-1)!.id!.split('.')[0]));
  const gotKeys = got.map(key);
  const expectedKeys = expected.map(key);
  const only = (a: string[], b: string[]) => a.filter((k) => !b.includes(k)).slice(0, 5);
  expect({ onlyGot: only(gotKeys, expectedKeys), onlyExpected: only(expectedKeys, gotKeys) }).toEqual({ onlyGot: [], onlyExpected: [] });
  expect(gotKeys).toEqual(expectedKeys);
  expect(new Set(got.map((e) => e.id)).size).toBe(got.length);
  second.child.kill('SIGTERM');
  await second.exited;
}, 300_000);
