import { afterEach, describe, expect, it } from 'vitest';
import type { FinalizedBlock, HashHex, PendingMessage, TransactionModel } from '../model.js';
import { ChainRejectedError } from '../source.js';
import { createReplaySource, type ReplaySource, type ReplaySourceOptions } from './source.js';
import { parseShares } from '../../config/replay-shares.js';

const FIXED_CLOCK = () => 1_800_000_000_000;
const sources: ReplaySource[] = [];

async function open(options: ReplaySourceOptions): Promise<ReplaySource> {
  const source = createReplaySource({ pace: 'manual', clock: FIXED_CLOCK, ...options });
  sources.push(source);
  await source.start();
  return source;
}

/** Blocks first..last, producing them as needed (manual pace). */
async function blocks(source: ReplaySource, count: number): Promise<FinalizedBlock[]> {
  const out: FinalizedBlock[] = [];
  const first = source.options.firstSeqno;
  for (let s = first; s < first + count; s++) {
    if ((await source.getMasterchainHead()).seqno < s) source.produceBlock();
    out.push((await source.getFinalizedBlock(s))!);
  }
  return out;
}

/** Root transaction hash → every transaction of its trace, following out-message hashes. */
function tracesOf(all: TransactionModel[]): Map<HashHex, TransactionModel[]> {
  const byInMessage = new Map(all.filter((t) => t.inMessage).map((t) => [t.inMessage!.hash, t]));
  const traces = new Map<HashHex, TransactionModel[]>();
  for (const root of all.filter((t) => t.inMessage?.type === 'external-in')) {
    const txs: TransactionModel[] = [];
    const queue = [root];
    while (queue.length > 0) {
      const tx = queue.shift()!;
      txs.push(tx);
      for (const m of tx.outMessages) {
        const next = byInMessage.get(m.hash);
        if (next) queue.push(next);
      }
    }
    traces.set(root.hash, txs);
  }
  return traces;
}

afterEach(async () => {
  for (const s of sources.splice(0)) await s.stop();
});

describe('ReplaySource', () => {
  it('is deterministic for a seed and differs for another seed', async () => {
    const options = { seed: 7, transactionsPerSecond: 300, accounts: 50 };
    const a = await blocks(await open(options), 12);
    const b = await blocks(await open(options), 12);
    const c = await blocks(await open({ ...options, seed: 8 }), 12);
    expect(a).toEqual(b);
    expect(a.reduce((n, blk) => n + blk.transactions.length, 0)).toBeGreaterThan(1000);
    expect(c[5]!.transactions.map((t) => t.hash)).not.toEqual(a[5]!.transactions.map((t) => t.hash));
    expect(c[5]!.transactions[0]!.account).not.toEqual(a[5]!.transactions[0]!.account);
  });

  it('links every hop to the next block, with unique hashes and per-account lt chains', async () => {
    const source = await open({ transactionsPerSecond: 500, accounts: 40, shares: { jetton: 0.4, comment: 0.3, bounce: 0.1 } });
    const chain = await blocks(source, 30);
    const all = chain.flatMap((b) => b.transactions);
    const blockOf = new Map<HashHex, number>();
    chain.forEach((b) => b.transactions.forEach((t) => blockOf.set(t.hash, b.masterchain.seqno)));

    // every internal message is consumed exactly one block after the block that created it
    const consumedIn = new Map<HashHex, number>();
    for (const tx of all) if (tx.inMessage?.type === 'internal') consumedIn.set(tx.inMessage.hash, tx.mcSeqno);
    let links = 0;
    for (const tx of all) {
      for (const m of tx.outMessages) {
        expect(m.source).toBe(tx.account);
        expect(m.createdLt).toBeGreaterThan(tx.lt);
        if (tx.mcSeqno === 30) continue;
        expect(consumedIn.get(m.hash)).toBe(tx.mcSeqno + 1);
        links++;
      }
    }
    expect(links).toBeGreaterThan(1000);
    for (const tx of all) {
      if (tx.inMessage?.type !== 'internal' || tx.mcSeqno === 1) continue;
      expect(tx.inMessage.destination).toBe(tx.account);
      expect(tx.inMessage.createdLt).toBeLessThan(tx.lt);
    }

    const txHashes = new Set(all.map((t) => t.hash));
    expect(txHashes.size).toBe(all.length);
    const messageHashes = all.flatMap((t) => [...(t.inMessage?.type === 'external-in' ? [t.inMessage] : []), ...t.outMessages]).map((m) => m.hash);
    expect(new Set(messageHashes).size).toBe(messageHashes.length);
    for (const h of [...txHashes, ...messageHashes]) expect(h).toMatch(/^[0-9a-f]{64}$/);

    // lt: unique and increasing per account, prev links name the account's previous transaction
    const last = new Map<string, TransactionModel>();
    for (const tx of all) {
      const prev = last.get(tx.account);
      if (prev) {
        expect(tx.prevLt).toBe(prev.lt);
        expect(tx.prevHash).toBe(prev.hash);
      } else {
        expect(tx.prevLt).toBe(0n);
      }
      last.set(tx.account, tx);
    }
    for (const block of chain) {
      const lts = block.transactions.map((t) => t.lt);
      expect(lts).toEqual([...lts].sort((x, y) => (x < y ? -1 : 1)));
      expect(block.shards[0]!.startLt).toBeLessThanOrEqual(lts[0] ?? block.shards[0]!.startLt);
      expect(block.masterchain.startLt).toBeGreaterThanOrEqual(block.shards[0]!.endLt);
      expect(block.transactions.every((t) => t.block.seqno === block.shards[0]!.seqno && t.mcSeqno === block.masterchain.seqno)).toBe(true);
    }
    for (let i = 1; i < chain.length; i++) expect(chain[i]!.shards[0]!.startLt).toBeGreaterThan(chain[i - 1]!.masterchain.endLt);
  });

  it('re-addresses every shape consistently: jetton bodies name the trace’s owners, bounces come back', async () => {
    const source = await open({ transactionsPerSecond: 400, accounts: 30, shares: { jetton: 0.5, comment: 0.2, bounce: 0.2 } });
    const chain = await blocks(source, 12);
    const traces = tracesOf(chain.flatMap((b) => b.transactions));
    const wallets = new Set(source.walletAccounts);
    const jettonWallets = source.jettonWallets;
    const byShape = new Map<string, number>();
    for (const [, txs] of traces) {
      const root = txs[0]!;
      if (root.mcSeqno > 8) continue; // not finished within the 12 blocks
      const sender = root.account;
      expect(wallets.has(sender)).toBe(true);
      const first = root.outMessages[0]!;
      const kind = first.decoded.kind;
      byShape.set(kind, (byShape.get(kind) ?? 0) + 1);
      if (kind === 'jetton_transfer') {
        expect(txs).toHaveLength(5);
        const recipient = first.decoded.kind === 'jetton_transfer' ? first.decoded.destination! : '';
        expect(wallets.has(recipient)).toBe(true);
        expect(first.decoded.kind === 'jetton_transfer' && first.decoded.responseDestination).toBe(sender);
        // the sender's jetton wallet is the one at the sender's pool index
        expect(first.destination).toBe(jettonWallets[source.walletAccounts.indexOf(sender)]);
        const notify = txs.find((t) => t.inMessage!.decoded.kind === 'jetton_notify')!;
        expect(notify.account).toBe(recipient);
        expect(notify.inMessage!.decoded.kind === 'jetton_notify' && notify.inMessage!.decoded.sender).toBe(sender);
        expect(notify.inMessage!.source).toBe(jettonWallets[source.walletAccounts.indexOf(recipient)]);
        const excess = txs.find((t) => t.inMessage!.decoded.kind === 'excess')!;
        expect(excess.account).toBe(sender);
        expect(new Set(txs.map((t) => t.mcSeqno))).toEqual(new Set([root.mcSeqno, root.mcSeqno + 1, root.mcSeqno + 2, root.mcSeqno + 3]));
      } else if (first.bounce && first.decoded.kind === 'text_comment' && txs.length === 3) {
        byShape.set('bounce', (byShape.get('bounce') ?? 0) + 1);
        expect(txs[1]!.inbound).toBe('bounced');
        expect(txs[1]!.aborted).toBe(true);
        expect(txs[2]!.account).toBe(sender);
        expect(txs[2]!.inMessage!.decoded.kind).toBe('bounced');
      } else {
        expect(txs).toHaveLength(2);
        expect(txs[1]!.account).toBe(first.destination);
        expect(txs[1]!.inbound).toBe('credited');
      }
    }
    expect(byShape.get('jetton_transfer')).toBeGreaterThan(10);
    expect(byShape.get('bounce')).toBeGreaterThan(3);
    expect(byShape.get('empty')).toBeGreaterThan(3);
  });

  it('honours the shares and the transactions per block', async () => {
    const source = await open({ transactionsPerSecond: 2000, accounts: 1000, shares: { jetton: 0.25, comment: 0.5, bounce: 0 } });
    const chain = await blocks(source, 60);
    const roots = chain.flatMap((b) => b.transactions).filter((t) => t.inMessage?.type === 'external-in');
    const kinds = roots.map((r) => r.outMessages[0]!.decoded.kind);
    const share = (kind: string) => kinds.filter((k) => k === kind).length / kinds.length;
    expect(share('jetton_transfer')).toBeGreaterThan(0.2);
    expect(share('jetton_transfer')).toBeLessThan(0.3);
    expect(share('text_comment')).toBeGreaterThan(0.45);
    expect(share('text_comment')).toBeLessThan(0.55);
    // after the first hops are in flight, blocks hold about transactionsPerSecond / blocksPerSecond
    const steady = chain.slice(10).map((b) => b.transactions.length);
    const mean = steady.reduce((a, b) => a + b, 0) / steady.length;
    expect(mean).toBeGreaterThan(1800);
    expect(mean).toBeLessThan(2200);
  });

  it('makes TON transfer traces as deep as asked, one hop per block', async () => {
    const source = await open({ transactionsPerSecond: 200, accounts: 100, traceDepth: 4, shares: { jetton: 0, comment: 1, bounce: 0 } });
    const chain = await blocks(source, 10);
    const traces = [...tracesOf(chain.flatMap((b) => b.transactions)).values()].filter((t) => t[0]!.mcSeqno <= 7);
    expect(traces.length).toBeGreaterThan(50);
    for (const txs of traces) {
      expect(txs).toHaveLength(4);
      expect(txs.map((t) => t.mcSeqno - txs[0]!.mcSeqno)).toEqual([0, 1, 2, 3]);
      expect(txs.slice(1).every((t) => t.inMessage!.decoded.kind === 'text_comment')).toBe(true);
      expect(txs[3]!.outMessages).toEqual([]);
    }
  });

  it('uses the accounts it is given', async () => {
    const given = ['0:' + 'a'.repeat(64), '0:' + 'b'.repeat(64), '0:' + 'c'.repeat(64)];
    const source = await open({ accountIds: given, transactionsPerSecond: 100, shares: { jetton: 0, comment: 0, bounce: 0 } });
    const txs = (await blocks(source, 5)).flatMap((b) => b.transactions);
    expect(new Set(txs.map((t) => t.account))).toEqual(new Set(given));
    expect(source.walletAccounts).toEqual(given);
  });

  it('announces pending messages before the block that includes them', async () => {
    const source = await open({ transactionsPerSecond: 100, accounts: 20, pendingShare: 1 });
    const seen: PendingMessage[] = [];
    source.onPendingMessage((m) => seen.push(m));
    await blocks(source, 1);
    expect(seen).toHaveLength(0);
    source.produceBlock(); // announces the roots of block 3
    const announced = seen.splice(0);
    expect(announced.length).toBeGreaterThan(10);
    expect(await source.getPendingMessages()).toEqual(announced);
    source.produceBlock();
    const block3 = (await source.getFinalizedBlock(3))!;
    const roots = block3.transactions.filter((t) => t.inMessage?.type === 'external-in');
    expect(roots.map((t) => t.inMessage!.hash)).toEqual(announced.map((m) => m.hash));
    roots.forEach((root, i) => {
      expect(announced[i]!.destination).toBe(root.account);
      expect(announced[i]!.involvedAccounts).toContain(root.account);
      expect(announced[i]!.involvedAccounts).toContain(root.outMessages[0]!.destination);
    });
  });

  it('keeps a bounded window and answers history from it', async () => {
    const source = await open({ transactionsPerSecond: 100, accounts: 5, historyTransactions: 300, shares: { jetton: 0, comment: 0, bounce: 0 } });
    const chain = await blocks(source, 20);
    const oldest = await source.getOldestAvailableSeqno();
    expect(oldest).toBeGreaterThan(10);
    await expect(source.getFinalizedBlock(1)).rejects.toThrow(/block 1 is no longer available.*oldest kept is/);
    expect(await source.getFinalizedBlock(21)).toBeNull();

    const newest = chain[19]!.transactions.at(-1)!;
    const state = await source.getAccountState(newest.account);
    expect(state).toMatchObject({ status: 'active', lastTxLt: newest.lt, lastTxHash: newest.hash, mcSeqno: 20 });
    const history = await source.getTransactions(newest.account, newest.lt, newest.hash, 10);
    expect(history[0]).toBe(newest);
    for (let i = 1; i < history.length; i++) {
      expect(history[i]!.lt).toBe(history[i - 1]!.prevLt);
      expect(history[i]!.hash).toBe(history[i - 1]!.prevHash);
    }
    expect(history.length).toBeGreaterThan(3);
    await expect(source.getTransactions(newest.account, newest.lt, 'f'.repeat(64))).rejects.toThrow(/not in the replay window/);
    expect((await source.getAccountState('0:' + '1'.repeat(64))).status).toBe('nonexist');
  });

  it('refuses what a replay cannot do, with clear errors', async () => {
    const source = await open({});
    await expect(source.sendExternalMessage(Buffer.from('x'))).rejects.toBeInstanceOf(ChainRejectedError);
    await expect(source.sendExternalMessage(Buffer.from('x'))).rejects.toThrow(/accepts no messages/);
    await expect(source.emulateMessage(Buffer.from('x'))).rejects.toThrow(/cannot emulate/);
    await expect(source.runGetMethod(source.walletAccounts[0]!, 'seqno')).rejects.toThrow(/runs no contracts: cannot run get-method seqno/);
    await expect(source.getFinalizedBlock(0)).rejects.toThrow(/invalid masterchain seqno/);
  });

  it('rejects bad options naming the option', () => {
    expect(() => createReplaySource({ accounts: 1 })).toThrow(/accounts must be an integer from 2/);
    expect(() => createReplaySource({ shares: { jetton: 0.8, comment: 0.5 } })).toThrow(/shares: jetton \+ comment \+ bounce must not exceed 1/);
    expect(() => createReplaySource({ shares: { bounce: -1 } })).toThrow(/shares.bounce must be a number from 0 to 1/);
    expect(() => createReplaySource({ pace: 'fast' as never })).toThrow(/pace must be one of/);
    expect(() => createReplaySource({ accountIds: ['0:abc', '0:' + 'a'.repeat(64)] })).toThrow(/accountIds\[0\] must be a raw account id/);
    expect(() => createReplaySource({ transactionsPerSecond: 0 })).toThrow(/transactionsPerSecond must be a number/);
    expect(() => createReplaySource({ templatesPath: '/nonexistent/templates.json' })).toThrow(/cannot read .*record them with scripts/);
    expect(parseShares('jetton=0.1, bounce=0')).toEqual({ jetton: 0.1, comment: 0.4, bounce: 0 });
    expect(parseShares('jetton=0.9,comment=0.9')).toBeUndefined();
    expect(parseShares('tokens=0.1')).toBeUndefined();
  });
});

describe('ReplaySource pacing', () => {
  it('timed: releases about blocksPerSecond blocks a second and tells head listeners', async () => {
    const source = createReplaySource({ pace: 'timed', blocksPerSecond: 20, transactionsPerSecond: 400 });
    sources.push(source);
    const heads: number[] = [];
    source.onMasterchainHead((s) => heads.push(s));
    await source.start();
    await new Promise((r) => setTimeout(r, 1000));
    const head = (await source.getMasterchainHead()).seqno;
    // generous bounds: the machine is shared, the rate is only roughly honoured
    expect(head).toBeGreaterThanOrEqual(8);
    expect(head).toBeLessThanOrEqual(30);
    expect(heads.at(-1)).toBe(head);
    await source.stop();
    const stopped = (await source.stats()).headSeqno;
    await new Promise((r) => setTimeout(r, 200));
    expect(source.stats().headSeqno).toBe(stopped);
  });

  it('timed with a start in the past: the blocks due since then at once, the same chain as a source that made them one by one', async () => {
    const clock = () => 1_800_000_000_000;
    const late = createReplaySource({ pace: 'timed', blocksPerSecond: 5, transactionsPerSecond: 50, clock, startAt: clock() - 2_100 });
    sources.push(late);
    await late.start();
    // block 1 at the start, then one every 200 ms: 11 by 2.1 s
    expect((await late.getMasterchainHead()).seqno).toBe(11);
    const early = await open({ blocksPerSecond: 5, transactionsPerSecond: 50, clock });
    const made = await blocks(early, 11);
    for (const block of made) {
      const same = (await late.getFinalizedBlock(block.masterchain.seqno))!;
      expect(same.transactions.map((t) => t.hash)).toEqual(block.transactions.map((t) => t.hash));
    }
    expect(late.identity()).toEqual(early.identity());
  });

  it('unthrottled: the next block exists as soon as the head is read, up to maxBlocks', async () => {
    const source = createReplaySource({ pace: 'unthrottled', maxBlocks: 5, transactionsPerSecond: 50 });
    sources.push(source);
    const heads: number[] = [];
    source.onMasterchainHead((s) => heads.push(s));
    await source.start();
    expect((await source.getMasterchainHead()).seqno).toBe(1);
    for (let s = 1; s <= 5; s++) expect((await source.getFinalizedBlock(s))!.masterchain.seqno).toBe(s);
    expect(await source.getFinalizedBlock(6)).toBeNull();
    expect(heads).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('replay configuration', () => {
  it('reads TONWATCH_REPLAY_* into source options, and refuses bad values naming the setting', async () => {
    const { loadConfig } = await import('../../config.js');
    const { replayOptionsFromConfig } = await import('./options.js');
    const config = loadConfig({ TONWATCH_CHAIN: 'replay', TONWATCH_REPLAY_RATE: '5000', TONWATCH_REPLAY_ACCOUNTS: '300', TONWATCH_REPLAY_SHARES: 'jetton=0.5,bounce=0', TONWATCH_BLOCK_INTERVAL_MS: '500' });
    const options = replayOptionsFromConfig(config);
    expect(options).toEqual({ pace: 'timed', transactionsPerSecond: 5000, blocksPerSecond: 2, accounts: 300, shares: { jetton: 0.5, comment: 0.4, bounce: 0 } });
    const source = createReplaySource({ ...options, pace: 'manual' });
    sources.push(source);
    expect(source.walletAccounts).toHaveLength(300);
    expect(() => loadConfig({ TONWATCH_REPLAY_SHARES: 'jetton=0.9,comment=0.2' })).toThrow(/TONWATCH_REPLAY_SHARES: must be kind=share pairs/);
    expect(() => loadConfig({ TONWATCH_REPLAY_RATE: '0' })).toThrow(/TONWATCH_REPLAY_RATE: must be an integer from 1/);
    expect(() => loadConfig({ TONWATCH_REPLAY_ACCOUNTS: 'many' })).toThrow(/TONWATCH_REPLAY_ACCOUNTS/);
  });
});
