// `secure` trust through the real service (#20): `tonwatch serve` with TONWATCH_CHAIN=liteserver and the default
// trust level, against fake liteservers over real ADNL TCP on loopback serving a SignedChain — a synthetic chain
// whose masterchain test validators sign, with a new validator set at every key block and sessions alternating
// ordinary and simplex signatures. The service walks getBlockProof links from the config's init key block to the
// head before it believes it, remembers the newest key block in its store, and reports what it proved, refused
// and saw lagging in /readyz, /metrics and the log. The builder's blocks are the ground truth of the events.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBlock } from '../../src/chain/decode/block.js';
import type { MasterchainStep } from '../../src/chain/blocks/synthetic.js';
import { SignedChain } from '../../src/chain/liteserver/testing/signed-chain.js';
import type { StoreEventLog } from '../../src/bus/store-log.js';
import { captureLogger } from '../support/app.js';
import { startTestService, type TestService } from '../support/service.js';
import { startLiteserverNetwork, type LiteserverNetwork } from '../support/liteserver-network.js';
import { until } from '../support/webhooks.js';

const SHARD = '8000000000000000';
const LITESERVER_ENV = { TONWATCH_CHAIN: 'liteserver', TONWATCH_NETWORK: 'testnet' };

/** A signed chain: `keyBlocks` key blocks after the init one (a new validator set each), `gap` plain blocks before each. */
function signedChain(keyBlocks: number, opts: { label: string; gap?: number; tail?: number; startUtime?: number }): SignedChain {
  const signed = new SignedChain({ label: opts.label, chain: { startUtime: opts.startUtime ?? Math.floor(Date.now() / 1000) - 300 } });
  for (let k = 0; k < keyBlocks; k++) {
    signed.blocks(opts.gap ?? 1);
    signed.keyBlock();
  }
  signed.blocks(opts.tail ?? 2);
  return signed;
}

/** The transaction hashes the builder put in masterchain blocks `from`..`to` (with their shard blocks), sorted. */
function truth(steps: MasterchainStep[], from: number, to: number): string[] {
  return steps
    .filter((s) => s.masterchain.id.seqno >= from && s.masterchain.id.seqno <= to)
    .flatMap((s) => [s.masterchain, ...s.shardBlocks].flatMap((b) => decodeBlock(b.boc).transactions.map((t) => t.hash)))
    .sort();
}

/** What the service's event log holds: the masterchain seqnos appended (a block event per masterchain and shard block) and the transactions' hashes (sorted). */
async function logged(events: StoreEventLog): Promise<{ blocks: number[]; transactions: string[] }> {
  const batches = await events.readAfter(-1, 100_000);
  const all = batches.flatMap((b) => b.events);
  return {
    blocks: [...new Set(all.flatMap((e) => (e.type === 'block' ? [e.mcSeqno] : [])))],
    transactions: all.flatMap((e) => (e.type === 'transaction' ? [e.tx.hash] : [])).sort(),
  };
}

const readyz = async (service: TestService) => {
  const res = await service.api('/readyz', { auth: null });
  return { status: res.status, checks: ((await res.json()) as { checks: Record<string, any> }).checks };
};

const proofCalls = (network: LiteserverNetwork) => network.servers.reduce((n, s) => n + s.fake.calls.filter((c) => c === 'getBlockProof').length, 0);
const messages = (lines: Record<string, unknown>[]) => lines.map((l) => String(l.msg));

describe('tonwatch serve with secure trust (the default) on a signed chain', () => {
  let dir: string;
  let network: LiteserverNetwork;
  let service: TestService | undefined;
  let dataDir: string;
  const signed = signedChain(24, { label: 'e2e-follow' });
  const lastKeyBlock = signed.chain.masterchainSeqno - 2;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tonwatch-ls-secure-'));
    dataDir = path.join(dir, 'data');
    // Four links a reply: the walk from the init block takes several replies, as hundreds of key blocks do on mainnet.
    network = await startLiteserverNetwork({ dir, servers: 2, signed, maxLinks: 4 });
  }, 60_000);

  afterAll(async () => {
    await service?.close();
    await network?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('walks the signatures from the init block to the head, follows it, and says so in /readyz and the log', async () => {
    // 24 validator sets, links alternating ordinary and simplex signatures.
    expect(new Set(signed.sessions.map((s) => s.setHash)).size).toBe(25);
    expect(new Set(signed.sessions.map((s) => s.format))).toEqual(new Set(['ordinary', 'simplex']));
    const { logger, lines } = captureLogger('info');
    service = await startTestService({ env: { ...LITESERVER_ENV, TONWATCH_LITESERVER_CONFIG: network.configFile }, dataDir, logger, components: [] });
    const firstStartProofs = proofCalls(network);

    // The start walked from the configured init block, reply by reply, and said how far it had got.
    const log = messages(lines);
    expect(log).toContainEqual(expect.stringMatching(new RegExp(`^secure trust starts from key block \\(-1,${SHARD},${signed.init.seqno}\\).* \\(the init block\\)$`)));
    expect(log).toContainEqual(expect.stringMatching(/^secure trust: key-block walk at \d+ of \d+ \(from \d+, \d+ key blocks proven\)$/));
    expect(log).toContainEqual(expect.stringMatching(new RegExp(`^secure trust: walked from ${signed.init.seqno} to \\d+ in \\d+ replies, [\\d.]+ s; 24 key blocks proven$`)));
    expect(log.filter((l) => l.startsWith('TONWATCH_TRUST=fast'))).toEqual([]); // no fast-trust warning
    expect(firstStartProofs).toBeGreaterThanOrEqual(7); // 25 links, four a reply

    const head = signed.chain.masterchainSeqno;
    await service.follower!.waitForSeqno(head, 30_000);
    const ready = await readyz(service);
    expect(ready.status).toBe(200);
    expect(ready.checks.chain).toMatchObject({
      ok: true,
      trust: { level: 'secure', head: { seqno: head }, key_block: { seqno: lastKeyBlock }, progress: null, waiting: null, alarm: null },
    });

    // The chain moves on: transfers, then a new key block with a new validator set; the events are the builder's.
    const from = signed.chain.addressIn(SHARD, 1);
    for (let i = 0; i < 3; i++) signed.chain.transfer({ from, to: signed.chain.addressIn(SHARD, 10 + i), amount: 1_000_000n * BigInt(i + 1) });
    network.advance();
    network.keyBlock();
    signed.chain.transfer({ from: signed.chain.addressIn(SHARD, 10), to: from, amount: 5_000n });
    network.advance(2);
    await service.follower!.waitForSeqno(signed.chain.masterchainSeqno, 30_000);
    const { blocks, transactions } = await logged(service.events);
    expect(blocks).toEqual(Array.from({ length: signed.chain.masterchainSeqno - blocks[0]! + 1 }, (_, i) => blocks[0]! + i));
    expect(transactions.length).toBeGreaterThanOrEqual(4);
    expect(transactions).toEqual(truth(network.steps, blocks[0]!, blocks.at(-1)!));
    await until(async () => (await readyz(service!)).checks.chain.trust.key_block.seqno === signed.chain.masterchainSeqno - 2, 10_000, 'the new key block trusted');
  }, 120_000);

  it('after a restart on the same store, walks from the remembered key block, not from the init block', async () => {
    await service!.close();
    service = undefined;
    const remembered = signed.chain.masterchainSeqno - 2;
    const before = proofCalls(network);
    const { logger, lines } = captureLogger('info');
    service = await startTestService({ env: { ...LITESERVER_ENV, TONWATCH_LITESERVER_CONFIG: network.configFile }, dataDir, logger, components: [] });
    const log = messages(lines);
    expect(log).toContainEqual(expect.stringMatching(new RegExp(`^secure trust starts from key block \\(-1,${SHARD},${remembered}\\).* \\(remembered\\)$`)));
    expect(log.filter((l) => l.includes('key-block walk at') || l.includes('walked from'))).toEqual([]);
    // One reply from the remembered key block to the head (and a backward link or two for the follower), not seven or more.
    expect(proofCalls(network) - before).toBeLessThanOrEqual(3);
    network.advance();
    await service.follower!.waitForSeqno(signed.chain.masterchainSeqno, 30_000);
    expect((await readyz(service)).checks.chain).toMatchObject({ ok: true, trust: { level: 'secure', key_block: { seqno: remembered }, head: { seqno: signed.chain.masterchainSeqno } } });
  }, 120_000);
});
