import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MC_SHARD, mcBlock, startTestLiteServer, type TestLiteServer } from '../../../../test/support/liteserver.js';
import { connect as tcpConnect } from 'node:net';
import { LiteServerError, decodeAdnlMessage, encodeAdnlMessage, encodeLiteQuery } from '../tl/envelope.js';
import { AdnlClient } from './adnl.js';
import { FrameDecoder, clientHandshake, encodeFrame, sessionCiphers } from './frame.js';
import { AdnlError, type RecordedQuery } from './types.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});
async function serve(options: Parameters<typeof startTestLiteServer>[0] = {}): Promise<TestLiteServer> {
  const s = await startTestLiteServer(options);
  open.push(s);
  return s;
}
const until = async (cond: () => boolean, what: string, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};
async function connect(s: TestLiteServer, extra: Partial<Parameters<typeof AdnlClient.connect>[0]> = {}): Promise<AdnlClient> {
  const c = await AdnlClient.connect({ host: s.host, port: s.port, publicKey: s.publicKey, ...extra });
  open.push(c);
  return c;
}

describe('ADNL client ↔ ADNL server over loopback TCP', () => {
  it('handshakes and calls several methods', async () => {
    const s = await serve({ head: 321 });
    const c = await connect(s);
    const info = await c.query('getMasterchainInfo', {});
    expect(info.last).toEqual(mcBlock(321));
    expect(info.init.rootHash).toEqual(mcBlock(0).rootHash);
    const ext = await c.query('getMasterchainInfoExt', { mode: 0 });
    expect(ext.lastUtime).toBe(1_700_000_321);
    const { now } = await c.query('getTime', {});
    expect(Math.abs(now - Date.now() / 1000)).toBeLessThan(60);
    expect((await c.query('getVersion', {})).version).toBe(0x101);
    const header = await c.query('lookupBlock', { mode: 1, id: { workchain: -1, shard: MC_SHARD, seqno: 300 } });
    expect(header.id).toEqual(mcBlock(300));
    expect(s.calls).toEqual(['getMasterchainInfo', 'getMasterchainInfoExt', 'getTime', 'getVersion', 'lookupBlock']);
  });

  it('carries a multi-megabyte reply and many concurrent queries on one connection', async () => {
    const big = randomBytes(5 * 1024 * 1024 + 3);
    const s = await serve({ blockData: (seqno) => (seqno === 7 ? big : Buffer.from([seqno])) });
    const c = await connect(s);
    const [large, ...small] = await Promise.all([
      c.query('getBlock', { id: mcBlock(7) }),
      ...Array.from({ length: 50 }, (_, i) => c.query('getBlock', { id: mcBlock(i + 10) })),
    ]);
    expect(large.data.equals(big)).toBe(true);
    expect(small.map((b) => b.data[0])).toEqual(Array.from({ length: 50 }, (_, i) => i + 10));
  });

  it('turns liteServer.error into LiteServerError with the code, for refused and unserved methods', async () => {
    const s = await serve({ head: 10 });
    const c = await connect(s);
    await expect(c.query('getBlock', { id: mcBlock(11) })).rejects.toMatchObject({
      name: 'LiteServerError', code: 651, message: 'liteserver error 651 (getBlock): block 11 is not in db (head 10)',
    });
    const err = await c.query('getState', { id: mcBlock(1) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LiteServerError);
    expect(err).toMatchObject({ code: -400, serverMessage: 'method liteServer.getState is not served here' });
    // The connection is still good after errors.
    expect((await c.query('getMasterchainInfo', {})).last.seqno).toBe(10);
  });

  it('handles at most maxQueriesPerConnection queries at once; later ones wait their turn', async () => {
    const release: (() => void)[] = [];
    const s = await serve({ maxQueriesPerConnection: 2, extra: {
      getState: ({ id }) => new Promise((r) => release.push(() => r({ id, rootHash: id.rootHash, fileHash: id.fileHash, data: Buffer.alloc(1) }))),
    } });
    const c = await connect(s);
    const stuck = [c.query('getState', { id: mcBlock(1) }), c.query('getState', { id: mcBlock(2) })];
    let third = false;
    const next = c.query('getTime', {}).then(() => (third = true));
    await until(() => release.length === 2, 'two queries in the handler');
    await new Promise((r) => setTimeout(r, 50));
    expect(third).toBe(false);
    expect(s.calls).toEqual(['getState', 'getState']);
    release[0]!();
    await next;
    expect(s.calls).toEqual(['getState', 'getState', 'getTime']);
    release[1]!();
    expect((await Promise.all(stuck)).map((x) => x.id.seqno)).toEqual([1, 2]);
  });

  it('stops reading queries from a client that does not read its answers, and serves them once it does', async () => {
    const s = await serve({ head: 200, blockData: () => Buffer.alloc(256 << 10, 1), writeHighWaterBytes: 1 << 20, maxQueriesPerConnection: 4 });
    // A raw client: handshake, 150 queries for 256 KiB blocks, then no reading for a while.
    const hs = clientHandshake(s.publicKey);
    const ciphers = sessionCiphers(hs.params, 'client');
    const sock = tcpConnect({ host: s.host, port: s.port });
    open.push({ close: async () => void sock.destroy() });
    await new Promise((r) => sock.once('connect', r));
    sock.pause();
    sock.write(hs.packet);
    for (let i = 0; i < 150; i++) {
      const query = encodeLiteQuery('getBlock', { id: mcBlock(i + 1) });
      sock.write(ciphers.tx.update(encodeFrame(encodeAdnlMessage({ kind: 'query', queryId: randomBytes(32), query }))));
    }
    await new Promise((r) => setTimeout(r, 1000));
    expect(s.calls.length).toBeLessThan(100); // 1 MiB of unsent answers plus what the kernel buffers (~20 here)
    const decoder = new FrameDecoder();
    let answers = 0;
    await new Promise<void>((resolve) => {
      sock.on('data', (chunk: Buffer) => {
        for (const f of decoder.push(ciphers.rx.update(chunk))) if (f.length > 0 && decodeAdnlMessage(f).kind === 'answer') answers++;
        if (answers === 150) resolve();
      });
      sock.resume();
    });
    expect(s.calls).toHaveLength(150);
  });

  it('answers tcp.ping and keeps the connection alive with it', async () => {
    const s = await serve();
    const c = await connect(s, { pingIntervalMs: 20 });
    const rtt = await c.ping();
    expect(rtt).toBeGreaterThanOrEqual(0);
    await new Promise((r) => setTimeout(r, 120)); // several keep-alive rounds
    expect(c.closed).toBe(false);
    expect((await c.query('getTime', {})).now).toBeGreaterThan(0);
  });

  it('holds a query behind waitMasterchainSeqno until the head reaches it, or answers 652 on timeout', async () => {
    const s = await serve({ head: 5 });
    const c = await connect(s);
    let done = false;
    const waiting = c.query('getMasterchainInfo', {}, { wait: { seqno: 7, timeoutMs: 5000 } }).then((r) => ((done = true), r));
    await new Promise((r) => setTimeout(r, 50));
    expect(done).toBe(false);
    s.head.advance(7);
    expect((await waiting).last.seqno).toBe(7);
    await expect(c.query('getTime', {}, { wait: { seqno: 9, timeoutMs: 30 } })).rejects.toMatchObject({ code: 652 });
    await expect(c.query('getTime', {}, { wait: { seqno: 1, timeoutMs: 120_000 } })).rejects.toMatchObject({ code: -400 });
  });

  it('times a query out without losing the connection', async () => {
    let release!: () => void;
    const s = await serve({ extra: { getState: () => new Promise((r) => (release = () => r({ id: mcBlock(1), rootHash: Buffer.alloc(32), fileHash: Buffer.alloc(32), data: Buffer.alloc(1) }))) } });
    const c = await connect(s);
    const err = await c.query('getState', { id: mcBlock(1) }, { timeoutMs: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdnlError);
    expect(err).toMatchObject({ kind: 'timeout', message: `liteserver ${s.host}:${s.port}: getState timed out after 50 ms` });
    release(); // the late answer is dropped
    expect((await c.query('getTime', {})).now).toBeGreaterThan(0);
    expect(c.closed).toBe(false);
  });

  it('fails queries in flight with "closed" when the server dies mid-query, and reconnects to it once it is back', async () => {
    const secretKey = randomBytes(32);
    const s = await serve({ secretKey, extra: { getState: () => new Promise(() => {}) } });
    const c = await connect(s);
    const reasons: string[] = [];
    c.onClose((e) => reasons.push(e.kind));
    const inFlight = c.query('getState', { id: mcBlock(1) }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 30));
    await s.close();
    const err = await inFlight;
    expect(err).toMatchObject({ name: 'AdnlError', kind: 'closed', message: `liteserver ${s.host}:${s.port}: connection closed by the server` });
    expect(reasons).toEqual(['closed']);
    expect(c.closed).toBe(true);
    await expect(c.query('getTime', {})).rejects.toMatchObject({ kind: 'closed' });
    // Same key, same port: a new client gets through.
    const again = await serve({ secretKey, port: s.port, head: 42 });
    const c2 = await connect(again);
    expect((await c2.query('getMasterchainInfo', {})).last.seqno).toBe(42);
  });

  it('says what failed: refused connection, wrong server key, silent server', async () => {
    const s = await serve();
    const port = s.port;
    await s.close();
    await expect(AdnlClient.connect({ host: '127.0.0.1', port, publicKey: s.publicKey })).rejects.toMatchObject({
      kind: 'connect', message: expect.stringMatching(new RegExp(`^liteserver 127\\.0\\.0\\.1:${port}: TCP connect failed: .*ECONNREFUSED`)),
    });
    const serverLog: string[] = [];
    const other = await serve({ log: (m) => serverLog.push(m) });
    const wrongKey = (await serve()).publicKey;
    await expect(AdnlClient.connect({ host: other.host, port: other.port, publicKey: wrongKey })).rejects.toMatchObject({
      kind: 'handshake', message: `liteserver ${other.host}:${other.port}: server closed the connection during the handshake (wrong server key?)`,
    });
    expect(serverLog).toEqual([expect.stringMatching(/^liteserver connection 127\.0\.0\.1:\d+: handshake refused: handshake is for key id [0-9a-f]{64}, not this server's [0-9a-f]{64}$/)]);
    const silent = createServer((sock) => sock.resume()).listen(0, '127.0.0.1'); // reads, never answers
    await new Promise((r) => silent.once('listening', r));
    open.push({ close: () => new Promise((r) => silent.close(() => r())) });
    const silentPort = (silent.address() as { port: number }).port;
    await expect(AdnlClient.connect({ host: '127.0.0.1', port: silentPort, publicKey: other.publicKey, connectTimeoutMs: 80 }))
      .rejects.toThrow(`liteserver 127.0.0.1:${silentPort}: no handshake answer within 80 ms`);
    await expect(AdnlClient.connect({ host: '127.0.0.1', port: 1, publicKey: Buffer.alloc(31) })).rejects.toThrow(/key must be 32 bytes, got 31/);
  });

  it('records every query with its answer or failure when asked to', async () => {
    const s = await serve({ head: 3 });
    const log: RecordedQuery[] = [];
    const c = await connect(s, { record: (e) => log.push(e) });
    await c.query('getMasterchainInfo', {});
    await c.query('getBlock', { id: mcBlock(4) }).catch(() => {});
    expect(log.map((e) => [e.method, e.server, e.answer !== undefined, e.error])).toEqual([
      ['getMasterchainInfo', `${s.host}:${s.port}`, true, undefined],
      ['getBlock', `${s.host}:${s.port}`, true, undefined], // a liteServer.error is an answer too
    ]);
    expect(Buffer.from(log[0]!.query, 'base64').readUInt32LE(0)).toBe(0x798c06df);
  });
});
