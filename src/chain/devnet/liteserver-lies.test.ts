// Each lying mode of the test fake, caught against the live devnet (issue #21): the devnet's own honest
// liteserver and a SyntheticLiteServer over the same archive that tells one lie — a forged block, tampered
// proofs, bad validator signatures, a withheld head. The liteserver source at trust level `secure` (from the
// devnet's init block, block 1) follows through both into a real event log while transfers are made. The
// liar is asked first: the honest server answers "not ready" (651) until the liar has been caught (or, for
// the withheld head, until the follower has walked up to it), so the test cannot pass without the catch.
// Then: the liar is demoted with the reason in status(), no alarm, and every block from 2 to the end is in
// the log once with exactly the devnet's own transactions.
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dropTestStore, openTestStore } from '../../../test/support/stores.js';
import { openTestDevnet, type TestDevnet } from '../../../test/support/devnet.js';
import type { TransactionEvent } from '../../bus/events.js';
import { StoreEventLog } from '../../bus/store-log.js';
import { Follower } from '../../pipeline/follower.js';
import type { Store } from '../../store/db.js';
import { parseGlobalConfig } from '../liteserver/config.js';
import { createLiteserverChain, type LiteserverChain } from '../liteserver/index.js';
import type { ArchiveLiteServer } from '../liteserver/server/archive-server.js';
import { SyntheticLiteServer, type LyingModes } from '../liteserver/testing/synthetic-server.js';
import { LiteErrorCode, LiteServerError } from '../liteserver/tl/envelope.js';
import type { PoolEvent } from '../liteserver/transport/pool.js';
import { AdnlServer } from '../liteserver/transport/adnl-server.js';
import { SecureTrust } from '../liteserver/trust/secure.js';
import { DevnetLiteServer } from './liteserver.js';

/** Blocks a server's head may lag the best proven head before it is demoted as withholding. */
const MAX_LAG = 3;
const START = 2; // block 1 is the init block; the first walk starts from it

interface Mode {
  name: string;
  /** The lie, given the devnet's head when the liar starts. */
  lie: (head: number) => LyingModes;
  /** What the demotion reason says, and under which cause the pool counts it. */
  reason: RegExp;
  cause: 'disproven' | 'lagging';
  /** The honest server stays "not ready" until the liar is caught (else until the follower reached the liar's head). */
  gateOnDemotion: boolean;
}

const modes: Mode[] = [
  { name: 'a forged block', lie: () => ({ forgeBlock: () => true }), reason: /^proof check mc\.file_hash failed/, cause: 'disproven', gateOnDemotion: true },
  { name: 'tampered proofs', lie: () => ({ tamperProof: () => true }), reason: /failed: proof check link\.dest\.root_hash failed/, cause: 'disproven', gateOnDemotion: true },
  { name: 'bad validator signatures', lie: () => ({ badSignatures: () => true }), reason: /failed: proof check signatures\.signature failed/, cause: 'disproven', gateOnDemotion: true },
  { name: 'a withheld head', lie: (head) => ({ withholdAbove: head }), reason: /^head \d+ lags the best proven head \d+ by \d+ blocks \(more than 3\): withholding or stuck$/, cause: 'lagging', gateOnDemotion: false },
];

let devnet: TestDevnet;

beforeAll(async () => {
  devnet = await openTestDevnet();
}, 60_000);
afterAll(async () => {
  await devnet?.close();
});

/** Until `open()`, every method but the head report answers 651, as a server still catching up would. */
function gated(handler: ArchiveLiteServer): { open(): void; restore(): void } {
  const methods = handler.methods as Record<string, (r: unknown) => unknown>;
  const original = { ...methods };
  let open = false;
  for (const [name, fn] of Object.entries(original)) {
    if (name === 'getMasterchainInfo') continue;
    methods[name] = (r: unknown) => {
      if (!open) throw new LiteServerError(LiteErrorCode.notReady, 'not ready yet (the test asks the liar first)');
      return fn(r);
    };
  }
  return { open: () => void (open = true), restore: () => void Object.assign(methods, original) };
}

const byLt = (a: { lt: bigint; hash: string }, b: { lt: bigint; hash: string }) => (a.lt === b.lt ? (a.hash < b.hash ? -1 : 1) : a.lt < b.lt ? -1 : 1);

describe.each(modes)('the liteserver source on the live devnet, a liar serving $name and an honest server', (mode) => {
  const cleanup: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('catches the liar (demoted, reason in status), raises no alarm, and the follower has every block once with the devnet\'s transactions', async () => {
    const liarHead = devnet.chain.masterchainSeqno;
    const liar = new SyntheticLiteServer(devnet.chain.archive(), { lie: mode.lie(liarHead) });
    cleanup.push(devnet.chain.onMasterchainHead(() => liar.advance()));
    const liarServer = await AdnlServer.listen({ secretKey: randomBytes(32), handler: liar });
    cleanup.push(() => liarServer.close());
    const honest = await DevnetLiteServer.start({ archive: devnet.chain.archive(), feed: devnet.chain, dataDir: devnet.dataDir, port: 0 });
    cleanup.push(() => honest.close());
    const gate = gated(honest.handler);
    cleanup.push(() => gate.restore());
    const liarName = `${liarServer.address.host}:${liarServer.address.port}`;
    const honestName = `${honest.address.host}:${honest.address.port}`;

    // The printed config's anchor (init block 1), the liar listed first.
    const { anchor } = parseGlobalConfig(JSON.parse(honest.globalConfig()), 'global-config');
    expect(anchor.initBlock.seqno).toBe(1);
    const demotions: Array<{ server: string; reason: string; cause: string }> = [];
    const source: LiteserverChain = createLiteserverChain({
      config: { liteservers: [{ ...liarServer.address, publicKey: liarServer.publicKey }, { ...honest.address, publicKey: honest.publicKey }], anchor },
      network: 'testnet',
      trust: (pool, log) => new SecureTrust({ pool, initBlock: anchor.initBlock, maxLagBlocks: MAX_LAG, log: (line) => log('info', line) }),
      poolOptions: {
        headPollMs: 1000,
        backoff: { minMs: 50, maxMs: 200 },
        onEvent: (e: PoolEvent) => {
          if (e.type !== 'demoted') return;
          demotions.push({ server: e.server, reason: e.reason, cause: e.cause });
          if (mode.gateOnDemotion && e.server === liarName) gate.open();
        },
      },
    });
    await source.start();
    cleanup.push(() => source.stop());

    const store: Store = await openTestStore('sqlite');
    cleanup.push(() => dropTestStore(store));
    const log = new StoreEventLog(store, { retentionMs: 3_600_000, recentBatches: 4 });
    await log.open();
    const follower = new Follower({ source, store, log, logger: pino({ level: 'silent' }), startAt: START, pollIntervalMs: 200 });
    await follower.start();
    cleanup.push(() => follower.stop());
    const followed = (seqno: number) =>
      follower.waitForSeqno(seqno, 30_000).catch((err: Error) => {
        throw new Error(`${err.message}; follower: ${follower.status().error}; demotions: ${JSON.stringify(demotions)}; source: ${JSON.stringify(source.status().waiting)}`);
      });

    if (!mode.gateOnDemotion) {
      // The liar serves everything up to the head it withholds; then the honest server answers too.
      await followed(liarHead);
      gate.open();
    }
    // Transfers while the source follows: each in its own block, received in the next.
    for (let i = 0; i < MAX_LAG + 2; i++) {
      await devnet.control.send({ from: 'alice', to: 'bob', amount: '1000000000', comment: `${mode.name} ${i}` });
      await devnet.chain.produceBlock();
    }
    await devnet.chain.produceBlock();
    const end = devnet.chain.masterchainSeqno;
    await followed(end);

    // The liar was caught and demoted, with the reason; the honest server never was; no alarm.
    const caught = demotions.filter((d) => d.server === liarName);
    expect(caught.length, JSON.stringify(demotions)).toBeGreaterThan(0);
    expect(caught[0]!.reason).toMatch(mode.reason);
    expect(caught.every((d) => d.cause === mode.cause)).toBe(true);
    expect(demotions.filter((d) => d.server === honestName)).toEqual([]);
    const status = source.status();
    const liarStatus = status.pool.servers.find((s) => s.server === liarName)!;
    expect(liarStatus).toMatchObject({ demoted: true, [mode.cause]: caught.length });
    expect(liarStatus.lastError?.startsWith(`${mode.cause}: `)).toBe(true);
    expect(status.disproven).toEqual({ [liarName]: mode.cause === 'disproven' ? caught.length : 0, [honestName]: 0 });
    expect(status.trust).toMatchObject({ level: 'secure', alarm: null, head: { seqno: end } });
    expect(status.waiting).toBeNull();
    expect(follower.status()).toMatchObject({ lastSeqno: end, error: null });

    // Every block from START to the end once, each with exactly the devnet's own transactions.
    const blocks = (await log.readAfter(-1, 10_000)).filter((b) => b.kind === 'block');
    expect(blocks.map((b) => b.mcSeqno)).toEqual(Array.from({ length: end - START + 1 }, (_, i) => START + i));
    let transfers = 0;
    for (const batch of blocks) {
      // The log keeps the decoded transaction without the source's BoC.
      const truth = (await devnet.chain.getFinalizedBlock(batch.mcSeqno))!.transactions.map(({ boc: _boc, ...tx }) => tx).sort(byLt);
      const got = batch.events.filter((e): e is TransactionEvent => e.type === 'transaction').map((e) => e.tx).sort(byLt);
      expect(got, `block ${batch.mcSeqno}`).toEqual(truth);
      transfers += batch.events.filter((e): e is TransactionEvent => e.type === 'transaction' && e.tx.inMessage?.decoded.kind === 'text_comment'
        && e.tx.inMessage.decoded.text.startsWith(mode.name)).length;
    }
    expect(transfers).toBe(MAX_LAG + 2); // bob's credit of each transfer
  }, 120_000);
});
