// Matching on one core: transactions of real shapes (the replay generator) dispatched through the
// streaming hub's subscription index holding 1,000,000 subscribed accounts. No sockets: subscribers
// only count (and, in the second pass, build the SSE and WebSocket frames as a connection would).
import { makePosition, type ChainEvent } from '../../src/bus/events.js';
import { createReplaySource } from '../../src/chain/replay/index.js';
import type { TransactionModel } from '../../src/chain/model.js';
import type { PayloadVariant, PreparedEvent } from '../../src/streaming/frames.js';
import { Route, SubscriptionIndex, type Subscriber } from '../../src/streaming/subscriptions.js';
import { perSecond } from '../lib/stats.js';

class CountingSubscriber implements Subscriber {
  stamp = 0;
  delivered = 0;
  constructor(private readonly serialise: { on: boolean }) {}
  deliver(event: PreparedEvent, variant: PayloadVariant): void {
    this.delivered++;
    if (this.serialise.on) {
      event.sseFrame(variant);
      event.wsFrame(variant, false);
    }
  }
}

export interface MatchingResult {
  subscribedAccounts: number;
  transactions: number;
  matchOnlyTxPerSecond: number;
  withFramesTxPerSecond: number;
  delivered: number;
  indexHeapMB: number;
}

function heapMB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed / 1e6;
}

/** Transactions of real shapes, block by block, from the replay generator (unthrottled). */
async function replayTransactions(count: number): Promise<TransactionModel[]> {
  const perBlock = 2000;
  const blocks = Math.ceil(count / perBlock) + 4;
  const source = createReplaySource({ pace: 'unthrottled', transactionsPerSecond: perBlock, blocksPerSecond: 1, maxBlocks: blocks, accounts: 50_000, seed: 4 });
  await source.start();
  const txs: TransactionModel[] = [];
  for (let s = 1; s <= blocks && txs.length < count; s++) txs.push(...(await source.getFinalizedBlock(s))!.transactions);
  await source.stop();
  return txs.slice(0, count);
}

const randomAccount = (i: number) => `0:${i.toString(16).padStart(16, '0')}${'ab'.repeat(24)}`;

export async function measureMatching(opts: { subscribedAccounts: number; transactions: number; subscribers: number; progress: (m: string) => void }): Promise<MatchingResult> {
  opts.progress(`matching: generating ${opts.transactions.toLocaleString('en-US')} replay transactions`);
  const txs = await replayTransactions(opts.transactions);
  const events: ChainEvent[] = txs.map((tx, i) => ({ type: 'transaction', tx, position: makePosition(1 + Math.floor(i / 1000), i % 1000), mcSeqno: 1 }));
  const batches: ChainEvent[][] = [];
  for (let i = 0; i < events.length; i += 1000) batches.push(events.slice(i, i + 1000));

  const before = heapMB();
  const serialise = { on: false };
  const index = new SubscriptionIndex();
  const subscribers = Array.from({ length: opts.subscribers }, () => new CountingSubscriber(serialise));
  const routes = subscribers.map((s) => new Route(s, null, -1));
  // Every account the transactions touch is subscribed; the rest of the million are other accounts.
  const accounts = [...new Set(txs.map((t) => t.account))];
  for (let i = accounts.length; i < opts.subscribedAccounts; i++) accounts.push(randomAccount(i));
  accounts.forEach((account, i) => index.transactions.add(account, routes[i % routes.length]!));
  const indexHeapMB = heapMB() - before;
  opts.progress(`matching: ${index.transactions.size.toLocaleString('en-US')} accounts subscribed by ${opts.subscribers} subscribers (${indexHeapMB.toFixed(0)} MB heap)`);

  const run = (): number => {
    const touched: Subscriber[] = [];
    const started = performance.now();
    for (const batch of batches) {
      index.dispatch(batch, touched);
      touched.length = 0;
    }
    return perSecond(events.length, performance.now() - started);
  };
  run(); // warm-up: the JIT, and the lazily built frames do not count
  const matchOnly = Math.max(run(), run());
  serialise.on = true;
  const withFrames = Math.max(run(), run());
  // Five passes over the same transactions (warm-up, 2 × match only, 2 × with frames): deliveries per pass.
  const delivered = subscribers.reduce((s, x) => s + x.delivered, 0) / 5;
  return {
    subscribedAccounts: index.transactions.size,
    transactions: events.length,
    matchOnlyTxPerSecond: matchOnly,
    withFramesTxPerSecond: withFrames,
    delivered,
    indexHeapMB,
  };
}
