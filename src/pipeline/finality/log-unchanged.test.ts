// Property: the durable, finalized event log is the same with provisional tracking on and off. Two
// followers with their own stores follow one chain — the devnet (random transfers, competing seqnos,
// blocks with a confirmation lag) and the replay source — one feeding a FinalityTracker, one not; their
// logs must be identical event for event, while the tracker did see every level.
import fc from 'fast-check';
import pino from 'pino';
import { Cell, internal, toNano } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropTestStore, openTestStore } from '../../../test/support/stores.js';
import { openTestDevnet, type TestDevnet } from '../../../test/support/devnet.js';
import { StoreEventLog } from '../../bus/store-log.js';
import type { EventBatch } from '../../bus/events.js';
import { signedTransfer, walletSeqno } from '../../chain/devnet/wallets.js';
import { createReplaySource } from '../../chain/replay/source.js';
import type { ChainSource } from '../../chain/source.js';
import type { Store } from '../../store/db.js';
import { Follower } from '../follower.js';
import { FinalityFeed } from './feed.js';
import { FinalityTracker } from './tracker.js';
import type { ProvisionalEvent } from './types.js';

interface Pair {
  followers: Follower[];
  logs: StoreEventLog[];
  stores: Store[];
  feed: FinalityFeed;
  seen: ProvisionalEvent[];
  /** Waits until both followers appended block `seqno`. */
  caughtUp(seqno: number): Promise<void>;
  close(): Promise<void>;
}

async function followTwice(source: ChainSource, startAt: number): Promise<Pair> {
  const tracker = new FinalityTracker({ maxAgeMs: 60_000 });
  const seen: ProvisionalEvent[] = [];
  tracker.subscribe((e) => seen.push(e));
  const feed = new FinalityFeed({ source, tracker });
  feed.start();
  const stores: Store[] = [];
  const logs: StoreEventLog[] = [];
  const followers: Follower[] = [];
  for (const withFinality of [true, false]) {
    const store = await openTestStore('sqlite');
    const log = new StoreEventLog(store, { retentionMs: 3_600_000, recentBatches: 4 });
    await log.open();
    const follower = new Follower({
      source,
      store,
      log,
      logger: pino({ level: 'silent' }),
      startAt,
      pollIntervalMs: 100,
      ...(withFinality ? { onFinalized: (b) => tracker.finalizedBlock(b) } : {}),
    });
    await follower.start();
    stores.push(store);
    logs.push(log);
    followers.push(follower);
  }
  return {
    followers,
    logs,
    stores,
    feed,
    seen,
    caughtUp: async (seqno) => {
      for (const f of followers) await f.waitForSeqno(seqno, 30_000);
    },
    close: async () => {
      feed.stop();
      for (const f of followers) await f.stop();
      for (const s of stores) await dropTestStore(s);
    },
  };
}

const read = async (log: StoreEventLog): Promise<EventBatch[]> => log.readAfter(-1, 100_000);

/**
 * The two logs agree: the finalized batches event for event; mempool events as a set of messages (their
 * positions follow whichever block each follower had appended when the message came, a race of its own).
 */
function expectSameLogs(a: EventBatch[], b: EventBatch[]): void {
  const blocks = (x: EventBatch[]) => x.filter((batch) => batch.kind === 'block');
  const mempool = (x: EventBatch[]) => x.flatMap((batch) => batch.events.flatMap((e) => (e.type === 'mempool' ? [e.message] : []))).sort((m, n) => (m.hash < n.hash ? -1 : 1));
  expect(blocks(a).length).toBeGreaterThan(0);
  expect(blocks(a)).toEqual(blocks(b));
  expect(mempool(a)).toEqual(mempool(b));
}

describe('the finalized log with provisional tracking on and off', () => {
  let devnet: TestDevnet;
  beforeAll(async () => {
    devnet = await openTestDevnet({ confirmationLagMs: 50 });
  }, 120_000);
  afterAll(async () => {
    await devnet?.close();
  });

  it('is identical on the devnet, whatever is sent (transfers, competing seqnos) between blocks', async () => {
    const names = ['alice', 'bob', 'carol', 'dave'];
    let competitions = 0;
    const action = fc.oneof(
      fc.record({ kind: fc.constant('send' as const), from: fc.integer({ min: 0, max: 3 }), to: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ kind: fc.constant('compete' as const), from: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ kind: fc.constant('block' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 3, maxLength: 10 }), async (actions) => {
        const chain = devnet.chain;
        const pair = await followTwice(chain, chain.masterchainSeqno + 1);
        try {
          for (const a of actions) {
            if (a.kind === 'block') {
              const head = await chain.produceBlock();
              await pair.caughtUp(head.seqno);
            } else if (a.kind === 'send') {
              await devnet.control.send({ from: names[a.from]!, to: names[a.to]!, amount: toNano('0.01'), comment: 'property' });
            } else {
              // two messages with the committed seqno (competing with any pending one): all admitted, one lands
              const wallet = devnet.directory.wallets.find((w) => w.name === names[a.from])!;
              const data = (await chain.getAccountState(wallet.id)).data;
              const seqno = walletSeqno(wallet.version, data === null ? null : Cell.fromBase64(data));
              // distinct bodies: the same competing pair twice within a second would be one message (a duplicate)
              for (const comment of [`one ${++competitions}`, `two ${competitions}`]) {
                const cell = await signedTransfer(wallet, { seqno, now: chain.now(), messages: [internal({ to: wallet.address, value: 1n, body: comment })] });
                await chain.sendExternalMessage(cell.toBoc());
              }
            }
          }
          for (let i = 0; i < 3; i++) await pair.caughtUp((await chain.produceBlock()).seqno);
          const [withFinality, without] = await Promise.all(pair.logs.map(read));
          expectSameLogs(withFinality!, without!);
          // not vacuous: every finalized external transaction reached the tracker
          const externals = withFinality!.flatMap((b) => b.events).filter((e) => e.type === 'transaction' && e.tx.inMessage?.type === 'external-in');
          expect(pair.seen.filter((e) => e.finality === 'finalized')).toHaveLength(externals.length);
        } finally {
          await pair.close();
        }
      }),
      { numRuns: 4 },
    );
  }, 240_000);

  it('is identical on the replay source', async () => {
    const source = createReplaySource({ pace: 'manual', transactionsPerSecond: 120, accounts: 60, pendingShare: 0.2 });
    await source.start();
    const pair = await followTwice(source, 1);
    try {
      let head = 0;
      for (let i = 0; i < 12; i++) await pair.caughtUp((head = source.produceBlock().seqno));
      const [withFinality, without] = await Promise.all(pair.logs.map(read));
      expect(withFinality!.filter((b) => b.kind === 'block')).toHaveLength(head);
      expectSameLogs(withFinality!, without!);
    } finally {
      await pair.close();
      await source.stop();
    }
  }, 120_000);
});
