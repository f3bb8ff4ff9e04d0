// The secure trust level over real ADNL on loopback: fake liteservers serve a synthetic chain whose
// masterchain is signed by test validators (a new set at every key block, sessions alternating ordinary and
// simplex), and SecureTrust, driven through a LitePool the way the liteserver source drives it (each
// server's head offered as it comes), walks getBlockProof links from the init block to the head.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { BlockIdExt } from '../tl/lite-types.js';
import { AdnlServer } from '../transport/adnl-server.js';
import { LitePool } from '../transport/pool.js';
import { serveBlockProof, type BlockProofLies } from '../testing/serve-block-proof.js';
import { SignedChain } from '../testing/signed-chain.js';
import { SyntheticLiteServer } from '../testing/synthetic-server.js';
import type { TrustMemory } from './head-trust.js';
import { sameBlockId } from './block-ref.js';
import { SecureTrust, TrustAlarmError, type SecureTrustOptions } from './secure.js';

interface Served {
  fake: SyntheticLiteServer;
  server: AdnlServer;
  name: string;
  proofCalls(): number;
}

const open: { servers: AdnlServer[]; pools: LitePool[] } = { servers: [], pools: [] };
afterEach(async () => {
  for (const p of open.pools.splice(0)) await p.close();
  for (const s of open.servers.splice(0)) await s.close();
});

async function serve(signed: SignedChain, opts: { head?: number; withholdAbove?: number; lie?: BlockProofLies; maxLinks?: number } = {}): Promise<Served> {
  const fake = new SyntheticLiteServer(signed.chain, {
    head: opts.head,
    lie: opts.withholdAbove === undefined ? undefined : { withholdAbove: opts.withholdAbove },
    blockProof: (headSeqno) => serveBlockProof(signed, headSeqno, { maxLinks: opts.maxLinks, lie: opts.lie }),
  });
  const server = await AdnlServer.listen({ secretKey: randomBytes(32), handler: fake });
  open.servers.push(server);
  const { host, port } = server.address;
  return { fake, server, name: `${host}:${port}`, proofCalls: () => fake.calls.filter((c) => c === 'getBlockProof').length };
}

async function poolOf(...served: Served[]): Promise<LitePool> {
  const pool = new LitePool({
    servers: served.map((s) => ({ ...s.server.address, publicKey: s.server.publicKey })),
    pingIntervalMs: 0, headPollMs: 500, queryTimeoutMs: 5_000,
  });
  open.pools.push(pool);
  // Every server up with a head, as the source waits before offering.
  for (let i = 0; i < 200 && !pool.status().servers.every((s) => s.state === 'up' && s.head); i++) await new Promise((r) => setTimeout(r, 20));
  return pool;
}

function memory(): TrustMemory & { saved: BlockIdExt[] } {
  const saved: BlockIdExt[] = [];
  return { saved, load: async () => saved.at(-1) ?? null, save: async (b) => void saved.push(b) };
}

async function secure(pool: LitePool, signed: SignedChain, extra: Partial<SecureTrustOptions> = {}) {
  const lines: string[] = [];
  const trust = new SecureTrust({ pool, initBlock: signed.init, log: (_level, l) => lines.push(l), ...extra });
  await trust.start();
  return { trust, lines };
}

/** The source's loop, once: every server's current head offered. */
async function offerHeads(trust: SecureTrust, pool: LitePool, only?: Served) {
  let last: BlockIdExt | null = null;
  for (const s of pool.status().servers) if (s.head && (!only || s.server === only.name)) last = await trust.offer(s.server, s.head);
  return last;
}

/** `keyBlocks` key blocks after the init block, `gap` plain blocks before each, `tail` after the last. */
function chainOf(keyBlocks: number, opts: { label?: string; gap?: number; tail?: number } = {}): SignedChain {
  const signed = new SignedChain({ label: opts.label });
  for (let k = 0; k < keyBlocks; k++) {
    signed.blocks(opts.gap ?? 1);
    signed.keyBlock();
  }
  signed.blocks(opts.tail ?? 2);
  return signed;
}

const keyLinkFormats = (signed: SignedChain) =>
  Array.from({ length: signed.chain.masterchainSeqno }, (_, i) => signed.chain.masterchainBlock(i + 1)!)
    .filter((b) => b.info.keyBlock && b.id.seqno > signed.init.seqno)
    .map((b) => signed.sessionOf(b.id.seqno)!.format);

describe('following a chain of 52 key blocks from its init block', () => {
  const signed = chainOf(52);

  it('proves the head through every key block, remembers the newest, and a restart does not walk again', async () => {
    const formats = keyLinkFormats(signed);
    expect(formats).toHaveLength(52);
    expect(formats.filter((f) => f === 'simplex')).toHaveLength(26);
    expect(new Set(signed.sessions.map((s) => s.setHash)).size).toBe(53); // the set changes at every key block

    const honest = await serve(signed, { maxLinks: 16 });
    const pool = await poolOf(honest);
    const mem = memory();
    const progress: unknown[] = [];
    const { trust, lines } = await secure(pool, signed, {
      memory: { load: mem.load, save: async (b) => (progress.push(trust.status().progress), mem.save(b)) },
      progressEveryMs: 0,
    });
    expect(trust.status()).toMatchObject({ level: 'secure', head: null, keyBlock: signed.init, alarm: null });
    expect(await trust.offer(honest.name, signed.init)).toBe(signed.init); // the init block needs no proof
    expect(honest.proofCalls()).toBe(0);

    const head = await offerHeads(trust, pool);
    expect(head && sameBlockId(head, signed.head)).toBe(true);
    const lastKey = signed.chain.masterchainSeqno - 2;
    expect(trust.status().keyBlock!.seqno).toBe(lastKey);
    expect(trust.status().progress).toBeNull();
    expect(mem.saved.at(-1)!.seqno).toBe(lastKey);
    expect(honest.proofCalls()).toBeGreaterThanOrEqual(4); // 53 links, at most 16 per reply
    expect(lines.some((l) => /key-block walk at \d+ of \d+/.test(l))).toBe(true);
    // While the walk was under way (saved after each reply), status said how far it had got. One more
    // getBlockProof is the backward link that shows the head descends from the head believed before (the init block).
    expect(progress.length).toBe(honest.proofCalls() - 1);
    expect(progress[0]).toEqual({ from: signed.init.seqno, at: mem.saved[0]!.seqno, to: signed.head.seqno });
    expect(progress.at(-1)).toBeNull();

    // The chain goes on: a new key block and a new head, proven from the newest trusted key block.
    signed.keyBlock();
    signed.blocks(3);
    honest.fake.advance();
    const before = honest.proofCalls();
    for (let i = 0; i < 100 && pool.status().servers[0]!.head!.seqno < signed.head.seqno; i++) await new Promise((r) => setTimeout(r, 20));
    expect(sameBlockId((await offerHeads(trust, pool))!, signed.head)).toBe(true);
    expect(honest.proofCalls() - before).toBe(2); // the forward links, and the backward link to the previous head
    expect(trust.status().keyBlock!.seqno).toBe(signed.chain.masterchainSeqno - 3);

    // A restart with the same memory starts from the remembered key block: one reply, no second walk.
    const again = await secure(pool, signed, { memory: mem });
    expect(again.trust.status().keyBlock!.seqno).toBe(signed.chain.masterchainSeqno - 3);
    const calls = honest.proofCalls();
    expect(sameBlockId((await offerHeads(again.trust, pool))!, signed.head)).toBe(true);
    expect(honest.proofCalls() - calls).toBe(1);
  });
});

describe('forged links are refused and the walk waits for an honest server', () => {
  const signed = chainOf(6, { label: 'forged', tail: 3 });
  const cases: [string, BlockProofLies, RegExp][] = [
    ['signatures of validators outside the set', { impostors: true }, /signatures\.signer/],
    ['signatures of the previous set', { previousSet: true }, /signatures\.(set_hash|cc_seqno)/],
    ['a simplex vote for another candidate', { otherCandidate: true }, /signatures\.candidate/],
    ['a backward link to a block that is no key block', { backToNonKey: true }, /link\.back\.key_block/],
  ];
  it.each(cases)('%s', async (_name, lie, check) => {
    const liar = await serve(signed, { lie });
    const honest = await serve(signed, { head: signed.init.seqno + 1 }); // behind, for now
    const pool = await poolOf(liar, honest);
    const { trust } = await secure(pool, signed);

    expect(await trust.offer(liar.name, signed.head)).toBeNull();
    expect(trust.status().waiting).toMatch(new RegExp(`reports \\(-1,8000000000000000,${signed.head.seqno}\\)`));
    const report = trust.report().find((r) => r.server === liar.name)!;
    expect(report.failedProofs).toBe(1);
    expect(report.lastFailure).toMatch(check);
    const liarStatus = pool.status().servers.find((s) => s.server === liar.name)!;
    expect(liarStatus).toMatchObject({ demoted: true, disproven: 1 });

    honest.fake.advance();
    for (let i = 0; i < 100 && pool.status().servers.find((s) => s.server === honest.name)!.head!.seqno < signed.head.seqno; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(sameBlockId((await trust.offer(honest.name, signed.head))!, signed.head)).toBe(true);
    expect(trust.status().waiting).toBeNull();
    expect(trust.report().find((r) => r.server === honest.name)).toMatchObject({ provenSeqno: signed.head.seqno, failedProofs: 0 });
    expect(trust.report().find((r) => r.server === liar.name)!.provenSeqno).toBeNull();
  });

  it('a forged head at a seqno, signed without the keys, is refused while the honest head is proven', async () => {
    const fork = chainOf(6, { label: 'forged', tail: 0 });
    fork.blocks(3, 2); // the same seqnos with other transactions
    expect(sameBlockId(fork.init, signed.init)).toBe(true);
    expect(sameBlockId(fork.head, signed.head)).toBe(false);
    const liar = await serve(fork, { lie: { impostors: true, links: (to) => to.seqno > signed.chain.masterchainSeqno - 3 } });
    const honest = await serve(signed);
    const pool = await poolOf(liar, honest);
    const { trust } = await secure(pool, signed);
    expect(await trust.offer(liar.name, fork.head)).toBeNull();
    expect(trust.report().find((r) => r.server === liar.name)!.lastFailure).toMatch(/signatures\.signer/);
    expect(sameBlockId((await trust.offer(honest.name, signed.head))!, signed.head)).toBe(true);
    expect(trust.status().alarm).toBeNull();
  });
});

it('refuses to start from a zero state, naming what to configure', () => {
  const signed = new SignedChain({ label: 'zero' });
  const pool = { queryWithServer: () => Promise.reject(new Error('unused')), demote: () => {}, status: () => ({ ready: false, servers: [] }) };
  expect(() => new SecureTrust({ pool, initBlock: { ...signed.init, seqno: 0 } })).toThrow(/zero state.*validator\.init_block/);
  expect(() => new SecureTrust({ pool, initBlock: signed.init, maxLagBlocks: 0 })).toThrow(/maxLagBlocks/);
});

/**
 * Two servers on two chains equal up to the main chain's two-block tail, then `forkBlocks` other blocks on the
 * fork, signed by the same validators (an equivocating or stolen-key majority): each head verifies by signatures.
 */
async function forked(label: string, forkBlocks: number) {
  const main = chainOf(4, { label });
  const fork = chainOf(4, { label, tail: 0 });
  fork.blocks(forkBlocks, 1);
  const split = main.chain.masterchainSeqno - 1;
  expect(sameBlockId(fork.id(split - 1), main.id(split - 1))).toBe(true);
  expect(sameBlockId(fork.id(split), main.id(split))).toBe(false);
  const a = await serve(main);
  const b = await serve(fork);
  const pool = await poolOf(a, b);
  return { main, fork, a, b, ...(await secure(pool, main)) };
}

/** Server a's head (the main chain) believed, then server b's (the fork) refused with the alarm naming both servers. */
async function alarmedByFork({ main, fork, a, b, trust }: Awaited<ReturnType<typeof forked>>) {
  expect(sameBlockId((await trust.offer(a.name, main.head))!, main.head)).toBe(true);
  const err = await trust.offer(b.name, fork.head).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(TrustAlarmError);
  const alarm = trust.status().alarm!;
  expect(alarm.servers).toEqual([a.name, b.name]);
  expect(sameBlockId(alarm.blocks[1], fork.head)).toBe(true);
  return { alarm, err: err as Error };
}

describe('disagreement and withholding between servers', () => {
  it('two servers that each prove a different block at one seqno raise the alarm with both ids', async () => {
    const servers = await forked('split-brain', 2);
    const { main, a, trust, lines } = servers;
    const { alarm, err } = await alarmedByFork(servers);
    expect(alarm.kind).toBe('seqno');
    expect(alarm.seqno).toBe(main.head.seqno);
    expect(sameBlockId(alarm.blocks[0], main.head)).toBe(true);
    expect(err.message).toContain(`seqno ${main.head.seqno}`);
    expect(lines.some((l) => l.includes('ALARM'))).toBe(true);
    // Raised for good: not even the first server's head is believed any more.
    await expect(trust.offer(a.name, main.head)).rejects.toBeInstanceOf(TrustAlarmError);
  });

  it('a proven head that does not descend from the believed head raises the alarm, whatever its seqno', async () => {
    const servers = await forked('fork-ahead', 3);
    const { main, fork, a, trust, lines } = servers;
    expect(fork.head.seqno).toBe(main.head.seqno + 1);

    const { alarm, err } = await alarmedByFork(servers);
    expect(alarm.kind).toBe('fork');
    expect(alarm.seqno).toBe(main.head.seqno);
    expect(sameBlockId(alarm.blocks[0], main.head)).toBe(true);
    expect(sameBlockId(alarm.ancestor!, fork.id(main.head.seqno))).toBe(true); // what the fork's head holds at the believed seqno
    expect(err.message).toContain(main.head.rootHash.toString('hex'));
    expect(err.message).toContain(fork.head.rootHash.toString('hex'));
    expect(err.message).toContain('does not descend from the believed head');
    expect(trust.status().head && sameBlockId(trust.status().head!, main.head)).toBe(true); // the fork's head was never believed
    expect(lines.some((l) => l.includes('ALARM'))).toBe(true);
    await expect(trust.offer(a.name, main.head)).rejects.toBeInstanceOf(TrustAlarmError);
  });

  it('a proven head below the believed one that is not in its history raises the alarm', async () => {
    const servers = await forked('fork-behind', 1);
    const { main, fork } = servers;
    expect(fork.head.seqno).toBe(main.head.seqno - 1);

    const { alarm } = await alarmedByFork(servers);
    expect(alarm).toMatchObject({ kind: 'seqno', seqno: fork.head.seqno });
    expect(sameBlockId(alarm.blocks[0], main.id(fork.head.seqno))).toBe(true);
  });

  it('a head of the same chain below the believed one is checked against its history and raises nothing', async () => {
    const signed = chainOf(3, { label: 'behind-honest' });
    const ahead = await serve(signed);
    const behind = await serve(signed, { head: signed.head.seqno - 1 });
    const pool = await poolOf(ahead, behind);
    const { trust } = await secure(pool, signed);
    expect(sameBlockId((await trust.offer(ahead.name, signed.head))!, signed.head)).toBe(true);
    const calls = ahead.proofCalls() + behind.proofCalls();
    expect(sameBlockId((await trust.offer(behind.name, signed.id(signed.head.seqno - 1)))!, signed.head)).toBe(true);
    expect(ahead.proofCalls() + behind.proofCalls() - calls).toBe(1); // one backward link from the believed head
    expect(trust.status()).toMatchObject({ alarm: null, waiting: null });
    expect(await trust.offer(behind.name, signed.id(signed.head.seqno - 1))).toBeTruthy();
    expect(ahead.proofCalls() + behind.proofCalls() - calls).toBe(1); // known now
  });

  it('a server that withholds its head is reported and demoted while the follower continues from the other', async () => {
    const signed = chainOf(3, { label: 'withhold', tail: 20 });
    const top = signed.chain.masterchainSeqno;
    const withholding = await serve(signed, { withholdAbove: top - 12 });
    const honest = await serve(signed);
    const pool = await poolOf(withholding, honest);
    const { trust } = await secure(pool, signed, { maxLagBlocks: 5 });

    expect(sameBlockId((await offerHeads(trust, pool))!, signed.head)).toBe(true);
    const report = trust.report().find((r) => r.server === withholding.name)!;
    expect(report.laggingBy).toBe(12);
    // Demoted and counted as lagging, not as a disproven reply: it proved nothing false.
    expect(pool.status().servers.find((s) => s.server === withholding.name)).toMatchObject({ demoted: true, lagging: 1, disproven: 0 });
    expect(trust.status().servers!.find((r) => r.server === withholding.name)).toMatchObject({ laggingBy: 12, failedProofs: 0 });
    expect(pool.status().servers.find((s) => s.server === honest.name)!.demoted).toBe(false);

    signed.blocks(4);
    honest.fake.advance();
    withholding.fake.advance();
    for (let i = 0; i < 100 && pool.status().servers.find((s) => s.server === honest.name)!.head!.seqno < signed.head.seqno; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(sameBlockId((await offerHeads(trust, pool))!, signed.head)).toBe(true);
    expect(trust.report().find((r) => r.server === withholding.name)!.laggingBy).toBe(16);
    // reported (demoted) once per episode
    expect(pool.status().servers.find((s) => s.server === withholding.name)).toMatchObject({ lagging: 1, disproven: 0 });
  });
});
