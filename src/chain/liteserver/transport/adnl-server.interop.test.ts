// Our server against a client nobody here wrote: ton-lite-client 3.1.1 (its own ADNL and TL code).
import { afterEach, describe, expect, it } from 'vitest';
import { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { Functions } from 'ton-lite-client/dist/schema.js';
import { mcBlock, startTestLiteServer, type TestLiteServer } from '../../../../test/support/liteserver.js';

let server: TestLiteServer | undefined;
let engine: LiteSingleEngine | undefined;
afterEach(async () => {
  engine?.close();
  await server?.close();
  engine = server = undefined;
});

async function theirClient(s: TestLiteServer): Promise<{ client: LiteClient; engine: LiteSingleEngine }> {
  const e = new LiteSingleEngine({ host: `tcp://${s.host}:${s.port}`, publicKey: s.publicKey });
  e.on('error', () => {}); // it emits 'error' with no listener check (spec §Q1)
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('ton-lite-client did not become ready')), 5000);
    e.once('ready', () => (clearTimeout(t), resolve()));
  });
  return { client: new LiteClient({ engine: e }), engine: e };
}

describe('ton-lite-client ↔ our ADNL server', () => {
  it('gets masterchain info, time and version', async () => {
    server = await startTestLiteServer({ head: 4242 });
    const c = await theirClient(server);
    engine = c.engine;
    const info = await c.client.getMasterchainInfo();
    expect(info.last.seqno).toBe(4242);
    expect(Buffer.from(info.last.rootHash)).toEqual(mcBlock(4242).rootHash);
    expect(info.last.shard).toBe('-9223372036854775808');
    expect(Buffer.from(info.init.fileHash)).toEqual(mcBlock(0).fileHash);
    const ext = await c.client.getMasterchainInfoExt();
    expect(ext.lastUtime).toBe(1_700_004_242);
    const now = await c.client.getCurrentTime();
    expect(Math.abs(now - Date.now() / 1000)).toBeLessThan(60);
    const version = await c.client.getVersion();
    expect(version.version).toBe(0x101);
    expect(server.calls).toEqual(['getMasterchainInfo', 'getMasterchainInfoExt', 'getTime', 'getVersion']);
  });

  it('receives liteServer.error as an error with the code and message', async () => {
    server = await startTestLiteServer({ head: 10 });
    const c = await theirClient(server);
    engine = c.engine;
    const err = await c.engine.query(Functions.liteServer_getBlock, {
      kind: 'liteServer.getBlock',
      id: { kind: 'tonNode.blockIdExt', workchain: -1, shard: '-9223372036854775808', seqno: 11, rootHash: Buffer.alloc(32), fileHash: Buffer.alloc(32) },
    }).catch((e: unknown) => e);
    // It keeps the message and drops the code.
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('block 11 is not in db (head 10)');
    expect((await c.client.getMasterchainInfo()).last.seqno).toBe(10);
  });

  it('serves a block and a block header it decodes with its own codecs', async () => {
    server = await startTestLiteServer({ head: 30, blockData: (n) => Buffer.alloc(300_000, n) });
    const c = await theirClient(server);
    engine = c.engine;
    const id = mcBlock(29);
    const theirId = { kind: 'tonNode.blockIdExt', workchain: -1, shard: '-9223372036854775808', seqno: 29, rootHash: id.rootHash, fileHash: id.fileHash };
    const block = await c.engine.query(Functions.liteServer_getBlock, { kind: 'liteServer.getBlock', id: theirId });
    expect(Buffer.from(block.data).equals(Buffer.alloc(300_000, 29))).toBe(true);
    expect(Buffer.from(block.id.rootHash)).toEqual(id.rootHash);
    const header = await c.engine.query(Functions.liteServer_lookupBlock, {
      kind: 'liteServer.lookupBlock', mode: 1, id: { kind: 'tonNode.blockId', workchain: -1, shard: '-9223372036854775808', seqno: 29 }, lt: null, utime: null,
    });
    expect(header.id.seqno).toBe(29);
    expect(Buffer.from(header.headerProof).toString()).toBe('proof');
  });

  it('serves its awaitSeqno prefix once the head arrives', async () => {
    server = await startTestLiteServer({ head: 1 });
    const c = await theirClient(server);
    engine = c.engine;
    const pending = c.client.getMasterchainInfo({ awaitSeqno: 3, timeout: 3000 });
    setTimeout(() => server!.head.advance(3), 50);
    expect((await pending).last.seqno).toBe(3);
  });
});
