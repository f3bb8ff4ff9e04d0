import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { mcBlock, startTestLiteServer, type TestLiteServer } from '../../../../test/support/liteserver.js';
import { LiteServerError } from '../tl/envelope.js';
import { LitePool, LitePoolUnavailableError, type LitePoolOptions, type PoolEvent } from './pool.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});
async function serve(options: Parameters<typeof startTestLiteServer>[0] = {}): Promise<TestLiteServer> {
  const s = await startTestLiteServer(options);
  open.push(s);
  return s;
}
function pool(servers: TestLiteServer[], extra: Partial<LitePoolOptions> = {}): { pool: LitePool; events: PoolEvent[] } {
  const events: PoolEvent[] = [];
  const p = new LitePool({
    servers: servers.map((s) => ({ host: s.host, port: s.port, publicKey: s.publicKey })),
    queryTimeoutMs: 1000, headPollMs: 2000, backoff: { minMs: 20, maxMs: 200 }, pingIntervalMs: 0,
    onEvent: (e) => events.push(e), ...extra,
  });
  open.push(p);
  return { pool: p, events };
}
const name = (s: TestLiteServer) => `${s.host}:${s.port}`;
const until = async (cond: () => boolean, what: string, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('liteserver pool', () => {
  it('tracks each server head by long-polls and sends a query to a server whose head covers it', async () => {
    const a = await serve({ head: 10 });
    const b = await serve({ head: 20 });
    const { pool: p, events } = pool([a, b]);
    const status = await p.waitReady(5000);
    expect(status.ready).toBe(true);
    await until(() => p.status().servers.every((s) => s.head), 'both heads');
    expect(p.headSeqno).toBe(20);
    const blk = await p.queryWithServer('getBlock', { id: mcBlock(15) }, { minSeqno: 15 });
    expect(blk.server).toBe(name(b));
    expect(b.calls.filter((c) => c === 'getBlock')).toHaveLength(1);
    expect(a.calls.filter((c) => c === 'getBlock')).toHaveLength(0);
    // The long-poll sees a new head as soon as the server has it.
    a.head.advance(25);
    await until(() => p.status().servers.find((s) => s.server === name(a))?.head?.seqno === 25, 'head 25 from a');
    expect(events).toContainEqual({ type: 'head', server: name(a), seqno: 25 });
    expect((await p.queryWithServer('getBlock', { id: mcBlock(24) }, { minSeqno: 24 })).server).toBe(name(a));
  });

  it('never asks an excluded server, even the preferred one, and says none could answer when only it could', async () => {
    const a = await serve({ head: 10 });
    const b = await serve({ head: 10 });
    const { pool: p } = pool([a, b]);
    await p.waitReady(5000);
    await until(() => p.status().servers.every((s) => s.head), 'both heads');
    for (let i = 0; i < 3; i++) {
      expect((await p.queryWithServer('getBlock', { id: mcBlock(5) }, { prefer: name(a), exclude: [name(a)] })).server).toBe(name(b));
    }
    expect(a.calls.filter((c) => c === 'getBlock')).toHaveLength(0);
    await expect(p.query('getBlock', { id: mcBlock(5) }, { exclude: [name(a), name(b)], timeoutMs: 200 })).rejects.toBeInstanceOf(LitePoolUnavailableError);
  });

  it('prefers the fastest server', async () => {
    const slow = await serve({ extra: { getTime: () => new Promise((r) => setTimeout(() => r({ now: 1 }), 150)) } });
    const fast = await serve();
    const { pool: p } = pool([slow, fast]);
    await p.waitReady(5000);
    await until(() => p.status().servers.every((s) => s.state === 'up'), 'both up');
    // Send each server a query first (prefer), then let the measured latency decide.
    await p.query('getTime', {}, { prefer: name(slow) });
    await p.query('getTime', {}, { prefer: name(fast) });
    const answered = [];
    for (let i = 0; i < 5; i++) answered.push((await p.queryWithServer('getTime', {})).server);
    expect(answered).toEqual(Array(5).fill(name(fast)));
  });

  it('fails over on a timeout and on "not ready", counts it, and passes other liteserver errors through', async () => {
    const stuck = await serve({ extra: { getState: () => new Promise(() => {}), getBlock: () => { throw new LiteServerError(651, 'not yet'); } } });
    const good = await serve({ extra: {
      getState: ({ id }) => ({ id, rootHash: id.rootHash, fileHash: id.fileHash, data: Buffer.from('state') }),
      sendMessage: () => { throw new LiteServerError(0, 'cannot apply external message'); },
    } });
    const { pool: p, events } = pool([stuck, good], { queryTimeoutMs: 500 });
    await until(() => p.status().servers.every((s) => s.state === 'up'), 'both up');
    const st = await p.queryWithServer('getState', { id: mcBlock(3) }, { prefer: name(stuck) });
    expect(st.server).toBe(name(good));
    expect(st.response.data.toString()).toBe('state');
    const blk = await p.queryWithServer('getBlock', { id: mcBlock(3) }, { prefer: name(stuck) });
    expect(blk.server).toBe(name(good));
    const s = p.status().servers.find((x) => x.server === name(stuck))!;
    expect(s).toMatchObject({ failures: 2, timeouts: 1 });
    expect(events.filter((e) => e.type === 'failure').map((e) => (e as { reason: string }).reason)).toEqual([
      `liteserver ${name(stuck)}: getState timed out after 500 ms`,
      'liteserver error 651 (getBlock): not yet',
    ]);
    // Code 0 is about the message itself: the next server would say the same.
    await expect(p.query('sendMessage', { body: Buffer.from('x') }, { prefer: name(good) })).rejects.toMatchObject({ code: 0 });
  });

  it('demotes a server whose reply was disproven: counted, reported, asked only when nothing else can answer', async () => {
    const a = await serve();
    const b = await serve();
    const { pool: p, events } = pool([a, b]);
    await until(() => p.status().servers.every((s) => s.state === 'up'), 'both up');
    p.demote(name(a), 'block 7 root hash mismatch');
    for (let i = 0; i < 3; i++) expect((await p.queryWithServer('getTime', {})).server).toBe(name(b));
    expect(events).toContainEqual({ type: 'demoted', server: name(a), reason: 'block 7 root hash mismatch', cause: 'disproven' });
    expect(p.status().servers.find((s) => s.server === name(a))).toMatchObject({ disproven: 1, lagging: 0, withheld: 0, demoted: true, lastError: 'disproven: block 7 root hash mismatch' });
    // A refused block it must have is counted apart from disproven replies.
    p.demote(name(a), 'withheld block 8', 'withheld');
    expect(events).toContainEqual({ type: 'demoted', server: name(a), reason: 'withheld block 8', cause: 'withheld' });
    expect(p.status().servers.find((s) => s.server === name(a))).toMatchObject({ disproven: 1, withheld: 1, demoted: true, lastError: 'withheld: withheld block 8' });
    // A lagging head is demoted too, counted apart: it proved nothing false.
    p.demote(name(b), 'head 3 lags the best proven head 40', 'lagging');
    expect(p.status().servers.find((s) => s.server === name(b))).toMatchObject({ disproven: 0, lagging: 1, withheld: 0, demoted: true, lastError: 'lagging: head 3 lags the best proven head 40' });
    await b.close();
    await until(() => p.status().servers.find((s) => s.server === name(b))?.state !== 'up', 'b down');
    expect((await p.queryWithServer('getTime', {})).server).toBe(name(a)); // last resort
  });

  it('when every server is down: a clear error naming each server, not a loop; waitReady says why', async () => {
    const a = await serve();
    const b = await serve();
    await a.close();
    await b.close();
    const { pool: p } = pool([a, b]);
    await until(() => p.status().servers.every((s) => s.state === 'down'), 'both down');
    const err = await p.query('getTime', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LitePoolUnavailableError);
    expect((err as Error).message).toMatch(new RegExp(`^no liteserver could answer getTime \\(${name(a)} down: liteserver ${name(a)}: TCP connect failed: .*ECONNREFUSED.*; ${name(b)} down: `));
    const st = p.status();
    expect(st.ready).toBe(false);
    expect(st.reason).toContain(`${name(a)} `);
    await expect(p.waitReady(100)).rejects.toThrow(/^no liteserver is ready \(/);
  });

  it('a query for a seqno no server has reached waits for a head, then fails with the reason', async () => {
    const a = await serve({ head: 5 });
    const { pool: p } = pool([a], { queryTimeoutMs: 150 });
    await p.waitReady(5000);
    await expect(p.query('getBlock', { id: mcBlock(9) }, { minSeqno: 9 })).rejects.toThrow(
      `no liteserver with masterchain head ≥ 9 could answer getBlock (${name(a)} up at 5)`,
    );
    setTimeout(() => a.head.advance(9), 30);
    expect((await p.query('getBlock', { id: mcBlock(9) }, { minSeqno: 9, timeoutMs: 3000 })).id.seqno).toBe(9);
  });

  it('reconnects with growing backoff and resets it once connected', async () => {
    const secretKey = randomBytes(32);
    const a = await serve({ secretKey, head: 7 });
    const { pool: p, events } = pool([a]);
    await p.waitReady(5000);
    await a.close();
    await until(() => events.filter((e) => e.type === 'disconnected').length >= 3, 'three failed attempts');
    const delays = events.flatMap((e) => (e.type === 'disconnected' ? [e.retryInMs] : []));
    expect(delays.slice(0, 3)).toEqual([20, 40, 80]);
    await expect(p.query('getTime', {})).rejects.toBeInstanceOf(LitePoolUnavailableError);
    const back = await serve({ secretKey, port: a.port, head: 8 });
    const st = await p.waitReady(5000);
    expect(st.servers[0]).toMatchObject({ state: 'up', head: mcBlock(8) });
    expect(st.servers[0]!.reconnects).toBeGreaterThanOrEqual(3);
    expect((await p.query('getMasterchainInfo', {})).last.seqno).toBe(8);
    await back.close();
    await until(() => events.filter((e) => e.type === 'disconnected').length > delays.length, 'next failure');
    expect(events.at(-1)).toMatchObject({ type: 'disconnected', retryInMs: 20 });
  });
});
