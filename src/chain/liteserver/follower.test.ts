// The real Follower on the liteserver source, over real ADNL on loopback, into the real event log: two fake
// liteservers whose heads move block by block (long-polls bring each new head, `fast` believes it once both
// report it); the log ends up with exactly the builder's transactions, block by block, with splits and merges.
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { dialects, dropTestStore, openTestStore } from '../../../test/support/stores.js';
import type { TransactionEvent } from '../../bus/events.js';
import { StoreEventLog } from '../../bus/store-log.js';
import { Follower } from '../../pipeline/follower.js';
import type { Store } from '../../store/db.js';
import { decodeBlock } from '../decode/block.js';
import { createLiteserverChain, type LiteserverChain } from './index.js';
import { driveScenario } from './testing/scenario.js';
import { SyntheticLiteServer } from './testing/synthetic-server.js';
import { AdnlServer } from './transport/adnl-server.js';

const BLOCKS = 60;
const START = 2;

describe.each(dialects)('follower over the liteserver source on %s', (dialect) => {
  let store: Store;
  let chain: LiteserverChain;
  let follower: Follower;
  const servers: AdnlServer[] = [];
  afterEach(async () => {
    await follower?.stop();
    await chain?.stop();
    for (const x of servers.splice(0)) await x.close();
    await dropTestStore(store);
  });

  it('appends every masterchain block as the servers reach it, with exactly the builder\'s transactions', async () => {
    const s = driveScenario(BLOCKS);
    expect(s.splits).toBeGreaterThanOrEqual(2);
    expect(s.merges).toBeGreaterThanOrEqual(2);
    const fakes = [new SyntheticLiteServer(s.chain, { head: 10 }), new SyntheticLiteServer(s.chain, { head: 10 })];
    for (const fake of fakes) servers.push(await AdnlServer.listen({ secretKey: randomBytes(32), handler: fake }));
    const z = s.chain.zeroStates().masterchain.ref;
    const zeroState = { workchain: -1, shard: -(1n << 63n), seqno: 0, rootHash: z.rootHash, fileHash: z.fileHash };
    chain = createLiteserverChain({
      config: { liteservers: servers.map((x) => ({ ...x.address, publicKey: x.publicKey })), anchor: { zeroState, initBlock: zeroState, hardforks: [] } },
      network: 'testnet', trust: 'fast', poolOptions: { headPollMs: 1000, backoff: { minMs: 50, maxMs: 200 } },
    });
    await chain.start();

    store = await openTestStore(dialect);
    const log = new StoreEventLog(store, { retentionMs: 3_600_000, recentBatches: 4 });
    await log.open();
    follower = new Follower({ source: chain, store, log, logger: pino({ level: 'silent' }), startAt: START, pollIntervalMs: 200 });
    await follower.start();
    await follower.waitForSeqno(10, 30_000);
    // The servers move on one block at a time, not always together.
    for (let n = 11; n <= BLOCKS; n++) {
      fakes[n % 2]!.advance(n);
      fakes[(n + 1) % 2]!.advance(n);
    }
    await follower.waitForSeqno(BLOCKS, 60_000);
    expect(follower.status()).toMatchObject({ lastSeqno: BLOCKS, error: null });

    const blocks = (await log.readAfter(-1, 10_000)).filter((b) => b.kind === 'block');
    expect(blocks.map((b) => b.mcSeqno)).toEqual(Array.from({ length: BLOCKS - START + 1 }, (_, i) => i + START));
    for (const batch of blocks) {
      const step = s.steps[batch.mcSeqno - 1]!;
      const truth = [step.masterchain, ...step.shardBlocks].flatMap((b) => decodeBlock(b.boc).transactions.map((t) => t.hash));
      const got = batch.events.filter((e): e is TransactionEvent => e.type === 'transaction').map((e) => e.tx.hash);
      expect([...got].sort(), `block ${batch.mcSeqno}`).toEqual([...truth].sort());
    }
    const amounts = blocks.flatMap((b) => b.events).filter((e): e is TransactionEvent => e.type === 'transaction').map((e) => e.tx.inMessage?.value);
    expect(amounts.sort()).toEqual(s.sent.filter((t) => t.mcSeqno >= START).map((t) => t.amount).sort());
    expect(chain.status()).toMatchObject({ lagBlocks: 0, walkedSeqno: BLOCKS, waiting: null });
  }, 120_000);
});
