import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MC_SHARD, mcBlock, startTestLiteServer, type TestLiteServer } from '../../../../test/support/liteserver.js';
import { LiteErrorCode, LiteServerError, encodeLiteAnswer, encodeLiteError, encodeLiteQuery } from '../tl/envelope.js';
import { AdnlClient } from './adnl.js';
import { LitePool } from './pool.js';
import { ReplayTransport, jsonlRecorder } from './recording.js';
import { AdnlError, CLOSED_BY_CLIENT, type LiteTransport, type RecordedQuery } from './types.js';

const open: { close(): Promise<void> }[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The same session against any transport: answers and errors, as data to compare. */
async function session(t: LiteTransport): Promise<unknown[]> {
  const out: unknown[] = [];
  const settle = async (p: Promise<unknown>) => {
    try {
      out.push(await p);
    } catch (e) {
      out.push(e instanceof LiteServerError ? ['LiteServerError', e.code, e.message] : e instanceof AdnlError ? ['AdnlError', e.kind, e.message] : e);
    }
  };
  await settle(t.query('getMasterchainInfo', {}));
  await settle(t.query('getBlock', { id: mcBlock(40) }));
  await settle(t.query('lookupBlock', { mode: 1, id: { workchain: -1, shard: MC_SHARD, seqno: 51 } }));
  await settle(t.query('getState', { id: mcBlock(1) }, { timeoutMs: 50 }));
  await settle(t.query('getMasterchainInfo', {}, { wait: { seqno: 50, timeoutMs: 1000 } }));
  return out;
}

describe('record → replay', () => {
  it('a recorded session replays with the same answers, errors and timeouts', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-record-'));
    const file = join(dir, 'session.jsonl');
    const s: TestLiteServer = await startTestLiteServer({ head: 50, blockData: (n) => Buffer.alloc(1000, n), extra: { getState: () => new Promise(() => {}) } });
    open.push(s);
    const rec = jsonlRecorder(file);
    const client = await AdnlClient.connect({ host: s.host, port: s.port, publicKey: s.publicKey, record: rec.record });
    open.push(client);
    const live = await session(client);
    await rec.close();

    expect(live[2]).toEqual(['LiteServerError', 651, 'liteserver error 651 (lookupBlock): block 51 is not in db (head 50)']);
    expect(live[3]).toEqual(['AdnlError', 'timeout', `liteserver ${s.host}:${s.port}: getState timed out after 50 ms`]);

    const lines = (await readFile(file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as RecordedQuery);
    expect(lines.map((l) => l.method)).toEqual(['getMasterchainInfo', 'getBlock', 'lookupBlock', 'getState', 'getMasterchainInfo']);
    expect(lines[3]).toMatchObject({ errorKind: 'timeout', server: `${s.host}:${s.port}` });
    expect(lines[3]!.answer).toBeUndefined();
    expect(Buffer.from(lines[1]!.answer!, 'base64').length).toBeGreaterThan(1000);

    await s.close(); // the replay needs no server
    const replay = await ReplayTransport.fromFile(file);
    expect(await session(replay)).toEqual(live);
    // A request that was never recorded is an error that names the method.
    await expect(replay.query('getBlock', { id: mcBlock(41) })).rejects.toThrow(/^replay: no recorded answer for getBlock/);
    // The same request behind another wait prefix still finds its answer.
    expect((await replay.query('getBlock', { id: mcBlock(40) }, { wait: { seqno: 45, timeoutMs: 10 } })).data).toEqual(Buffer.alloc(1000, 40));
  });

  it('as a pool connection: a head poll recorded as "no new block" waits again until closed; queries the recording\'s own close cut short are skipped', async () => {
    const server = '127.0.0.1:1';
    const at = new Date().toISOString();
    const wait = { seqno: 51, timeoutMs: 10_000 };
    const poll = encodeLiteQuery('getMasterchainInfo', {}, wait).toString('base64');
    const time = encodeLiteQuery('getTime', {}).toString('base64');
    const entries: RecordedQuery[] = [
      { at, server, method: 'getMasterchainInfo', query: poll, answer: encodeLiteError(LiteErrorCode.timeout, 'block 51 not reached').toString('base64'), ms: 10_000 },
      { at, server, method: 'getTime', query: time, answer: encodeLiteAnswer('getTime', { now: 1234 }).toString('base64'), ms: 1 },
      { at, server, method: 'getTime', query: time, error: `liteserver ${server}: ${CLOSED_BY_CLIENT}`, errorKind: 'closed', ms: 1 },
    ];
    const replay = new ReplayTransport(entries);
    // The session ended with the client closing: that is not the server's answer, so the answer repeats.
    expect((await replay.query('getTime', {})).now).toBe(1234);
    expect((await replay.query('getTime', {})).now).toBe(1234);
    // A poll that waited for a block that never came waits its timeout again instead of failing at once
    // (a replayed pool would otherwise spin); closing ends it as a closed connection.
    let settled = false;
    const polled = replay.query('getMasterchainInfo', {}, { wait }).finally(() => (settled = true));
    polled.catch(() => {});
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    expect(replay.closed).toBe(false);
    await replay.close();
    await expect(polled).rejects.toMatchObject({ kind: 'closed' });
    expect(replay.closed).toBe(true);
    await expect(replay.query('getTime', {})).rejects.toBeInstanceOf(AdnlError);
  });

  it('the pool records through the same option', async () => {
    const s = await startTestLiteServer({ head: 9 });
    open.push(s);
    const log: RecordedQuery[] = [];
    const pool = new LitePool({ servers: [{ host: s.host, port: s.port, publicKey: s.publicKey }], headPollMs: 100, record: (e) => log.push(e) });
    open.push(pool);
    await pool.waitReady(5000);
    await pool.query('getTime', {});
    expect(log.map((e) => e.method)).toContain('getTime');
    expect(log[0]).toMatchObject({ method: 'getMasterchainInfo', server: `${s.host}:${s.port}` });
  });
});
