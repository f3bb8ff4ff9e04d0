// Finality levels over the liteserver protocol against the devnet's liteserver: the devnet shows each shard
// block as liteServer.nonfinal.getPendingShardBlocks answers (fetched with getBlock and checked against its
// id), so a trace sent through the liteserver source is seen pending, confirmed, then finalized; a server
// that refuses the method leaves the source finalized-only, said in its status, without polling forever.
import pino from 'pino';
import { Address, Cell, internal, toNano } from '@ton/core';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { openTestDevnet, type TestDevnet } from '../../../test/support/devnet.js';
import { dropTestStore, openTestStore } from '../../../test/support/stores.js';
import { StoreEventLog } from '../../bus/store-log.js';
import { Follower } from '../../pipeline/follower.js';
import { FinalityFeed } from '../../pipeline/finality/feed.js';
import { FinalityTracker } from '../../pipeline/finality/tracker.js';
import type { ProvisionalEvent } from '../../pipeline/finality/types.js';
import { normalizedHashOfMessage } from '../message-boc.js';
import { ChainRejectedError } from '../source.js';
import { parseGlobalConfig } from '../liteserver/config.js';
import { createLiteserverChain, type LiteserverChain } from '../liteserver/index.js';
import { DevnetLiteServer, type DevnetFeed } from './liteserver.js';
import { signedTransfer, walletSeqno } from './wallets.js';

let devnet: TestDevnet;
const cleanup: Array<() => Promise<unknown> | unknown> = [];

beforeAll(async () => {
  devnet = await openTestDevnet({ confirmationLagMs: 800 });
  await devnet.chain.produceBlock();
}, 120_000);
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
afterAll(async () => {
  await devnet?.close();
});

/** A liteserver source on a devnet liteserver with `feed`, followed into a fresh log with a tracker. */
async function follow(feed: DevnetFeed) {
  const server = await DevnetLiteServer.start({ archive: devnet.chain.archive(), feed, dataDir: devnet.dataDir, port: 0 });
  cleanup.push(() => server.close());
  const { anchor } = parseGlobalConfig(JSON.parse(server.globalConfig()), 'global-config');
  const source: LiteserverChain = createLiteserverChain({
    config: { liteservers: [{ ...server.address, publicKey: server.publicKey }], anchor },
    network: 'testnet',
    trust: 'fast',
    nonFinalPollMs: 100,
    poolOptions: { headPollMs: 200, backoff: { minMs: 50, maxMs: 200 } },
  });
  await source.start();
  cleanup.push(() => source.stop());
  const tracker = new FinalityTracker();
  const seen: ProvisionalEvent[] = [];
  tracker.subscribe((e) => seen.push(e));
  const feedOfSource = new FinalityFeed({ source, tracker });
  feedOfSource.start();
  cleanup.push(() => feedOfSource.stop());
  const store = await openTestStore('sqlite');
  cleanup.push(() => dropTestStore(store));
  const log = new StoreEventLog(store, { retentionMs: 3_600_000 });
  await log.open();
  const follower = new Follower({ source, store, log, logger: pino({ level: 'silent' }), startAt: devnet.chain.masterchainSeqno, pollIntervalMs: 100, onFinalized: (b) => tracker.finalizedBlock(b) });
  await follower.start();
  cleanup.push(() => follower.stop());
  return { source, seen, follower };
}

async function transferBoc(from = 'alice'): Promise<Buffer> {
  const alice = devnet.directory.wallets.find((w) => w.name === from)!;
  const bob = devnet.directory.wallets.find((w) => w.name === 'bob')!;
  const seqno = walletSeqno(alice.version, devnet.chain.pendingAccount(alice.id).data);
  return (await signedTransfer(alice, { seqno, now: devnet.chain.now(), messages: [internal({ to: bob.address, value: toNano('0.1'), bounce: false })] })).toBoc();
}

const waitFor = async (done: () => boolean, what: string, ms = 20_000) => {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('finality levels over the liteserver protocol against the devnet', () => {
  it('a transfer sent through the liteserver source is seen pending, confirmed (from a checked non-final block), then finalized', async () => {
    const { source, seen, follower } = await follow(devnet.chain);
    await source.getMasterchainHead();
    const boc = await transferBoc();
    const { hash } = await source.sendExternalMessage(boc);
    const trace = normalizedHashOfMessage(Cell.fromBoc(boc)[0]!)!;
    await waitFor(() => seen.some((e) => e.trace === trace), 'pending');
    const produced = devnet.chain.produceBlock();
    await waitFor(() => seen.some((e) => e.trace === trace && e.finality === 'confirmed'), 'confirmed');
    // confirmed while the masterchain block that commits it is still to come
    expect(follower.status().lastSeqno).toBeLessThan((await produced).seqno);
    await follower.waitForSeqno((await produced).seqno);
    await waitFor(() => seen.some((e) => e.trace === trace && e.finality === 'finalized'), 'finalized');
    const levels = seen.filter((e) => e.trace === trace);
    expect(levels.map((e) => e.finality)).toEqual(['pending', 'confirmed', 'finalized']);
    expect(levels[0]!.messageHash).toBe(hash);
    // emulated on the devnet's proven state (its config carries the execution params: 18 storage, 20/21 gas …)
    const ids = ['alice', 'bob'].map((n) => devnet.directory.wallets.find((w) => w.name === n)!.id).sort();
    expect(levels[0]).toMatchObject({ involvedAccounts: ids });
    expect(source.status().nonFinal).toMatchObject({ state: 'supported', disproven: 0 });
    expect(source.status().nonFinal.shown).toBeGreaterThan(0);
  }, 60_000);

  it('a wallet\'s second message within a block emulates on the state its first pending message left', async () => {
    const { source } = await follow(devnet.chain);
    await source.getMasterchainHead();
    // seqno n, then n+1 (the devnet's pending state): no block between them, so the proven state knows n only
    const first = await source.sendExternalMessage(await transferBoc('carol'));
    const second = await source.sendExternalMessage(await transferBoc('carol'));
    const ids = ['carol', 'bob'].map((n) => devnet.directory.wallets.find((w) => w.name === n)!.id).sort();
    const pending = await source.getPendingMessages();
    expect(pending.find((m) => m.hash === first.hash)).toMatchObject({ involvedAccounts: ids });
    expect(pending.find((m) => m.hash === second.hash)).toMatchObject({ involvedAccounts: ids });
    // emulateMessage (no pending message) runs on the proven state only: seqno n+2 is refused there
    const third = await source.emulateMessage(await transferBoc('carol')).catch((e: Error) => e);
    expect(third).toBeInstanceOf(ChainRejectedError);
    await devnet.chain.produceBlock();
  }, 60_000);

  it('a payout batch past the emulation\'s 32 transactions: every payee is named, those left unrun too', async () => {
    const { source } = await follow(devnet.chain);
    await source.getMasterchainHead();
    const exchange = devnet.directory.wallets.find((w) => w.name === 'exchange')!;
    const payees = Array.from({ length: 40 }, (_, i) => `0:${(i + 1).toString(16).padStart(64, '0')}`);
    const seqno = walletSeqno(exchange.version, devnet.chain.pendingAccount(exchange.id).data);
    const messages = payees.map((to) => internal({ to: Address.parseRaw(to), value: toNano('0.001'), bounce: false }));
    const boc = (await signedTransfer(exchange, { seqno, now: devnet.chain.now(), messages })).toBoc();
    const emulated = await source.emulateMessage(boc);
    expect(emulated.transactions.length).toBe(32);
    expect(emulated.involvedAccounts).toEqual([exchange.id, ...payees].sort());
  }, 60_000);

  it('a server without liteServer.nonfinal.*: finalized only, said in the status, polling stopped', async () => {
    const withoutNonFinal: DevnetFeed = {
      onMasterchainHead: (l) => devnet.chain.onMasterchainHead(l),
      sendExternalMessage: (b) => devnet.chain.sendExternalMessage(b),
    };
    const { source, seen, follower } = await follow(withoutNonFinal);
    await waitFor(() => source.status().nonFinal.state === 'unsupported', 'the source to give up on non-final blocks');
    expect(source.status().nonFinal.reason).toMatch(/query is not allowed.*finalized blocks only/);
    expect(source.nonFinalSupported()).toBe(false);
    const boc = await transferBoc();
    await source.sendExternalMessage(boc);
    const head = await devnet.chain.produceBlock();
    await follower.waitForSeqno(head.seqno);
    const trace = normalizedHashOfMessage(Cell.fromBoc(boc)[0]!)!;
    await waitFor(() => seen.some((e) => e.trace === trace && e.finality === 'finalized'), 'finalized');
    expect(seen.filter((e) => e.trace === trace).map((e) => e.finality)).toEqual(['pending', 'finalized']);
  }, 60_000);
});
