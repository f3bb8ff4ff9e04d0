// The real mainnet fixtures behind the transport interface (issue #19): one handler answers from them in process
// (InProcessTransport: the query's TL bytes through the server's own dispatch, no socket) and over ADNL TCP on
// loopback (AdnlServer). The same proven reads — header proof, shard proof, account state with its proofs,
// full blocks by root and file hash — pass on both with the values the fixtures' sources give, and a handler
// that tampers fails each one, naming the link. The chain source runs on the fixtures too, its transport
// overridden, and a recording of that session drives it again through ReplayTransport.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAINNET_ACCOUNT, MAINNET_FULL_BLOCKS, MAINNET_HEAD, MAINNET_SHARD_BLOCK, MainnetFixtureServer,
} from '../../../../test/support/mainnet-liteserver.js';
import { decodeBlock } from '../../decode/block.js';
import { TRUST_ANCHORS, type GlobalConfig } from '../config.js';
import { createLiteserverChain, type LiteserverChain } from '../index.js';
import type { LiteMethodName } from '../tl/lite-api.js';
import { checkAccountState } from '../trust/account.js';
import { checkBlockHeaderProof, checkFullBlock } from '../trust/blocks.js';
import { ProofError } from '../trust/errors.js';
import { checkShardBlockProof } from '../trust/shards.js';
import { AdnlClient } from './adnl.js';
import { AdnlServer } from './adnl-server.js';
import { InProcessTransport } from './in-process.js';
import { ReplayTransport } from './recording.js';
import type { LiteTransport, RecordedQuery } from './types.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

const MC_SHARD = -(1n << 63n);
/** tongo's expected.json for masterchain block 17734191, independent of our decoders. */
const BLOCK_5_TX_HASHES = (JSON.parse(readFileSync(new URL('../../../../test/fixtures/mainnet/blocks/tongo-block-5.expected.json', import.meta.url), 'utf8')) as { TxHashes: string[] }).TxHashes;

/** Each proven read, as a function of the transport it goes through. */
const reads = {
  async header(t: LiteTransport) {
    const { last } = await t.query('getMasterchainInfo', {});
    const { info } = checkBlockHeaderProof((await t.query('getBlockHeader', { id: last, mode: 0 })).headerProof, last);
    return { seqno: info.seqno, genUtime: info.genUtime, endLt: info.endLt };
  },
  async shard(t: LiteTransport) {
    const reply = await t.query('getShardInfo', { id: MAINNET_HEAD, workchain: 0, shard: MC_SHARD, exact: false });
    return checkShardBlockProof(reply.shardProof, MAINNET_HEAD, reply.shardblk, 'shard', reply.shardDescr);
  },
  async account(t: LiteTransport) {
    const proven = checkAccountState(await t.query('getAccountState', { id: MAINNET_HEAD, account: MAINNET_ACCOUNT }), MAINNET_ACCOUNT);
    if (proven.kind !== 'exists') throw new Error('the fixture account is proven absent');
    return { lastTransLt: proven.lastTransLt, lastTransHash: proven.lastTransHash, balance: proven.balance, stateHash: proven.state.hash().toString('hex') };
  },
  async blocks(t: LiteTransport) {
    const out: Record<string, string[]> = {};
    for (const { file, id } of MAINNET_FULL_BLOCKS) {
      const { block } = checkFullBlock((await t.query('getBlock', { id })).data, id);
      out[file] = decodeBlock(block).transactions.map((tx) => tx.hash);
    }
    return out;
  },
};

async function allReads(t: LiteTransport) {
  return { header: await reads.header(t), shard: await reads.shard(t), account: await reads.account(t), blocks: await reads.blocks(t) };
}

async function overAdnl(handler: MainnetFixtureServer): Promise<AdnlClient> {
  const server = await AdnlServer.listen({ secretKey: randomBytes(32), handler });
  open.push(server);
  const client = await AdnlClient.connect({ ...server.address, publicKey: server.publicKey, pingIntervalMs: 0 });
  open.push(client);
  return client;
}

describe('the real mainnet fixtures behind the transport interface', () => {
  it('the same proven reads pass in process and over ADNL on loopback, with the values the sources give', async () => {
    const handler = new MainnetFixtureServer();
    const inProcess = new InProcessTransport(handler);
    const results = await allReads(inProcess);
    expect(await allReads(await overAdnl(handler))).toEqual(results);

    expect(results.header).toMatchObject({ seqno: 31220993 });
    expect(results.shard).toMatchObject({ workchain: 0, seqno: 36908135, regMcSeqno: 31220993, rootHash: '39e5cbca5bf69750b5d9897872c3a0d7a3e614e521c53e4de728fafed38dce27' });
    expect(results.shard.fileHash).toBe(MAINNET_SHARD_BLOCK.fileHash.toString('hex'));
    expect(results.account).toEqual({
      lastTransLt: 39330697000001n, lastTransHash: expect.stringMatching(/^[0-9a-f]{64}$/), balance: 5873792469n,
      stateHash: '8282d13bf66b9ace1fbf5d3abd1c59cc46d61af1d47af1665d3013d8f9e47488',
    });
    expect(results.blocks['blocks/tongo-block-5.boc']!.sort()).toEqual([...BLOCK_5_TX_HASHES].map((h) => h.toLowerCase()).sort());
    expect(Object.values(results.blocks).flat()).toHaveLength(7 + 0 + 6 + 11 + 8);
    // A block the fixtures do not hold is refused as a node without it refuses: 651.
    await expect(inProcess.query('getBlockHeader', { id: { ...MAINNET_HEAD, seqno: 31220994 }, mode: 0 })).rejects.toMatchObject({ code: 651 });
  });

  it.each<[LiteMethodName, keyof typeof reads, RegExp]>([
    ['getBlockHeader', 'header', /^header\./],
    ['getShardInfo', 'shard', /^shard\./],
    ['getAccountState', 'account', /^account\./],
    ['getBlock', 'blocks', /^block\./],
  ])('a handler tampering with %s fails the %s check, naming the link, in process and over ADNL', async (method, read, link) => {
    const liar = new MainnetFixtureServer({ tamper: (m) => m === method });
    for (const t of [new InProcessTransport(liar), await overAdnl(liar)]) {
      const err = await reads[read](t).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(ProofError);
      expect(err).toMatchObject({ check: expect.stringMatching(link), failure: 'mismatch' });
    }
  });
});

describe('the chain source on the mainnet fixtures', () => {
  const account = `0:${MAINNET_ACCOUNT.id.toString('hex')}`;
  const config = (servers: GlobalConfig['liteservers']): GlobalConfig => ({ liteservers: servers, anchor: TRUST_ANCHORS.mainnet });
  /** Two "servers" in the config, so `fast` trust hears two reports of the head. */
  const named = [{ host: 'fixture-a', port: 1, publicKey: randomBytes(32) }, { host: 'fixture-b', port: 2, publicKey: randomBytes(32) }];

  async function start(options: Partial<Parameters<typeof createLiteserverChain>[0]> & { config: GlobalConfig }): Promise<LiteserverChain> {
    const chain = createLiteserverChain({
      network: 'mainnet', trust: 'fast', headWaitMs: 10_000, poolOptions: { headPollMs: 200, queryTimeoutMs: 5_000, backoff: { minMs: 50, maxMs: 200 }, pingIntervalMs: 0 },
      ...options,
    });
    open.push({ close: () => chain.stop() });
    await chain.start();
    return chain;
  }

  /** What the chain proves from the fixtures: the head's header, EQBvW8's state at it. */
  async function chainReads(chain: LiteserverChain) {
    return { head: await chain.getMasterchainHead(), state: await chain.getAccountState(account) };
  }

  it('proves the head and an account state in process and over ADNL; a recorded session replays with the same answers', async () => {
    const handler = new MainnetFixtureServer();
    const recorded: RecordedQuery[] = [];
    const inProcess = await start({
      config: config(named), record: (e) => recorded.push(e),
      transport: async (server, settings) => new InProcessTransport(handler, { name: `${server.host}:${server.port}`, ...settings }),
    });
    const results = await chainReads(inProcess);
    expect(results.head).toMatchObject({ workchain: -1, seqno: 31220993, rootHash: MAINNET_HEAD.rootHash.toString('hex'), fileHash: MAINNET_HEAD.fileHash.toString('hex') });
    expect(results.state).toMatchObject({ address: account, status: 'active', balance: 5873792469n, lastTxLt: 39330697000001n, mcSeqno: 31220993 });
    expect(inProcess.identity()).toEqual({ network: 'mainnet', id: TRUST_ANCHORS.mainnet.zeroState.rootHash.toString('hex') });
    expect(handler.calls).toEqual(expect.arrayContaining(['getMasterchainInfo', 'getBlockHeader', 'getAccountState']));
    // Both servers have had a head poll answered "no new block", so the recording holds what a replayed pool asks.
    const polled = () => new Set(recorded.filter((e) => e.method === 'getMasterchainInfo' && e.answer && e.ms >= 150).map((e) => e.server)).size === 2;
    while (!polled()) await new Promise((r) => setTimeout(r, 20));
    await inProcess.stop();

    const servers = await Promise.all([0, 1].map(async () => {
      const server = await AdnlServer.listen({ secretKey: randomBytes(32), handler });
      open.push(server);
      return { ...server.address, publicKey: server.publicKey };
    }));
    expect(await chainReads(await start({ config: config(servers) }))).toEqual(results);

    // Nothing listens at fixture-a:1 or fixture-b:2: every answer comes from the recording.
    const calls = handler.calls.length;
    const replayed = await start({ config: config(named), transport: async () => new ReplayTransport(recorded) });
    expect(await chainReads(replayed)).toEqual(results);
    expect(handler.calls.length).toBe(calls);
  }, 60_000);

  it('a server whose account proofs are forged is demoted; with every server forging, the read fails saying so', async () => {
    const liar = new MainnetFixtureServer({ tamper: (m) => m === 'getAccountState' });
    const logs: string[] = [];
    const chain = await start({
      config: config(named), log: (level, msg) => logs.push(`${level}: ${msg}`),
      transport: async (server, settings) => new InProcessTransport(liar, { name: `${server.host}:${server.port}`, ...settings }),
    });
    expect((await chain.getMasterchainHead()).seqno).toBe(31220993);
    await expect(chain.getAccountState(account)).rejects.toThrow(/getAccountState: every liteserver that answered failed a proof check/);
    expect(chain.status().pool.servers.map((s) => [s.server, s.demoted, s.disproven])).toEqual([['fixture-a:1', true, 1], ['fixture-b:2', true, 1]]);
    expect(logs.filter((l) => /^warn: liteserver fixture-[ab]:\d demoted \(disproven\): getAccountState: /.test(l))).toHaveLength(2);
  }, 30_000);
});
