// The devnet's liteserver wrapper over a real archive (a synthetic chain with a v4 wallet): the key kept in the
// data directory, the global config a client connects with, the head following the feed, sendMessage into
// the feed and its refusals, a client's tcp.authentificate exchange, and a port in use named by its setting.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beginCell, Cell, external, internal, loadMessage, SendMode, storeMessage } from '@ton/core';
import type { LiteClient } from 'ton-lite-client';
import { ed25519 } from '@noble/curves/ed25519.js';
import { connectTheirClientByConfig } from '../../../test/support/liteserver.js';
import { rawAdnlSession } from '../../../test/support/adnl-raw.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseGlobalConfig } from '../liteserver/config.js';
import { walletChain, type WalletChain } from '../liteserver/testing/wallet-chain.js';
import { AdnlClient } from '../liteserver/transport/adnl.js';
import { ChainRejectedError } from '../source.js';
import { DevnetLiteServer, LITESERVER_KEY_FILE, type DevnetFeed } from './liteserver.js';

let dir: string;
let wc: WalletChain;
let feed: DevnetFeed & { heads: Set<(seqno: number) => void>; emit(): void };
const open: Array<{ close(): unknown }> = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'devnet-ls-'));
  wc = await walletChain();
  const heads = new Set<(seqno: number) => void>();
  feed = {
    heads,
    emit: () => heads.forEach((l) => l(wc.chain.masterchainSeqno)),
    onMasterchainHead: (l) => (heads.add(l), () => heads.delete(l)),
    sendExternalMessage: async (boc) => {
      try {
        await wc.apply(loadMessage(Cell.fromBoc(boc)[0]!.beginParse()));
      } catch (e) {
        throw new ChainRejectedError((e as Error).message);
      }
    },
  };
});

afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
  await rm(dir, { recursive: true, force: true });
});

async function connect(globalConfig: string): Promise<LiteClient> {
  const { client, engine } = await connectTheirClientByConfig(globalConfig);
  open.push(engine);
  return client;
}

describe('DevnetLiteServer', () => {
  it('keeps its key in the data directory: a restart has the same public key, the key file is private', async () => {
    const first = await DevnetLiteServer.start({ archive: wc.chain, feed, dataDir: dir, port: 0 });
    const key = first.publicKey;
    await first.close();
    expect(feed.heads.size).toBe(0); // closing unsubscribes
    const second = await DevnetLiteServer.start({ archive: wc.chain, feed, dataDir: dir, port: 0 });
    open.push(second);
    expect(second.publicKey).toEqual(key);
    expect((await stat(join(dir, LITESERVER_KEY_FILE))).mode & 0o777).toBe(0o600);
  });

  it('prints a global config ton-lite-client connects with; the served head follows the devnet', async () => {
    const ls = await DevnetLiteServer.start({ archive: wc.chain, feed, dataDir: dir, port: 0 });
    open.push(ls);
    const config = ls.globalConfig();
    const parsed = parseGlobalConfig(JSON.parse(config), 'global-config');
    expect(parsed.liteservers[0]!.host).toBe('127.0.0.1');
    expect(parsed.anchor.zeroState.rootHash).toEqual(wc.chain.zeroStates().masterchain.ref.rootHash);
    const client = await connect(config);
    const before = await client.getMasterchainInfo();
    expect(before.last.seqno).toBe(wc.chain.masterchainSeqno);
    expect(Buffer.from(before.init.rootHash)).toEqual(parsed.anchor.zeroState.rootHash);
    wc.chain.nextMasterchainBlock();
    feed.emit();
    expect((await client.getMasterchainInfo()).last.seqno).toBe(before.last.seqno + 1);
  });

  it('sendMessage hands the message to the devnet; a message the devnet refuses comes back as an error', async () => {
    const ls = await DevnetLiteServer.start({ archive: wc.chain, feed, dataDir: dir, port: 0 });
    open.push(ls);
    const client = await connect(ls.globalConfig());
    const transfer = (seqno: number) => beginCell().store(storeMessage(external({
      to: wc.wallet.address,
      body: wc.wallet.createTransfer({ seqno, secretKey: wc.keys.secretKey, sendMode: SendMode.PAY_GAS_SEPARATELY, messages: [internal({ to: wc.wallet.address, value: 1n })] }),
    }))).endCell().toBoc();
    expect(await client.sendMessage(transfer(0))).toEqual({ status: 1 });
    const refused = await client.sendMessage(transfer(7)).catch((e: unknown) => e); // a wrong seqno: the wallet throws
    expect((refused as Error).message).toMatch(/the devnet refused the message/);
  });

  it('takes tcp.authentificate as tonutils-go sends it, and refuses a bad signature with a warning naming the peer', async () => {
    const logs: Array<{ message: string; level: string; peer: string }> = [];
    const ls = await DevnetLiteServer.start({ archive: wc.chain, feed, dataDir: dir, port: 0, log: (message, d) => logs.push({ message, ...d }) });
    open.push(ls);
    const server = parseGlobalConfig(JSON.parse(ls.globalConfig()), 'global-config').liteservers[0]!;
    const ours = await AdnlClient.connect({ ...server, authenticateWith: randomBytes(32) });
    open.push(ours);
    expect((await ours.query('getMasterchainInfo', {})).last.seqno).toBe(wc.chain.masterchainSeqno);

    const raw = await rawAdnlSession(server);
    open.push({ close: () => raw.destroy() });
    raw.send({ kind: 'authenticate', nonce: randomBytes(32) });
    const answer = await raw.next();
    expect(answer).toMatchObject({ kind: 'authNonce', nonce: expect.any(Buffer) });
    const seed = randomBytes(32);
    const wrongMessage = Buffer.concat([randomBytes(32), (answer as { nonce: Buffer }).nonce]);
    raw.send({ kind: 'authComplete', publicKey: Buffer.from(ed25519.getPublicKey(seed)), signature: Buffer.from(ed25519.sign(wrongMessage, seed)) });
    expect(await raw.next()).toBe('closed');
    expect(logs.filter((l) => l.level === 'warn')).toEqual([
      { level: 'warn', peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/), message: expect.stringMatching(/: tcp\.authentificationComplete: bad signature for key id [0-9a-f]{64}$/) },
    ]);
    // The authenticated client is untouched by the other's failure.
    expect((await ours.query('getTime', {})).now).toBeGreaterThan(0);
  });

  it('a port in use is an error naming TONWATCH_DEVNET_LITESERVER_PORT', async () => {
    const ls = await DevnetLiteServer.start({ archive: wc.chain, feed, dataDir: dir, port: 0 });
    open.push(ls);
    await expect(DevnetLiteServer.start({ archive: wc.chain, feed, dataDir: dir, port: ls.address.port })).rejects.toThrow(
      `TONWATCH_DEVNET_LITESERVER_PORT: port ${ls.address.port} is in use`,
    );
    expect(feed.heads.size).toBe(1);
  });
});
