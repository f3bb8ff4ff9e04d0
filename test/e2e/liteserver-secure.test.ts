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
import type { MasterchainStep } from '../../src/chain/blocks/testing/synthetic.js';
import { SignedChain } from '../../src/chain/liteserver/testing/signed-chain.js';
import type { StoreEventLog } from '../../src/bus/store-log.js';
import { run as chainCommand } from '../../src/cli/commands/chain.js';
import { captureLogger } from '../support/app.js';
import { runCli } from '../support/cli.js';
import { startTestService, type TestService } from '../support/service.js';
import { startLiteserverNetwork, type LiteserverNetwork, type LiteserverNetworkOptions } from '../support/liteserver-network.js';
import { until } from '../support/webhooks.js';
import { freePort } from '../support/ports.js';

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

/** The newest key block of the chain. */
const lastKeyBlockOf = (signed: SignedChain): number => signed.steps.filter((s) => s.masterchain.info.keyBlock).at(-1)!.masterchain.id.seqno;

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

/** Delays each getBlockProof answer of `fake` by `ms` (0: back to normal), so a walk is seen under way. */
const honestProofs = new WeakMap<object, (r: unknown) => unknown>();
function slowProofs(fake: LiteserverNetwork['servers'][number]['fake'], ms: number): void {
  const methods = fake.methods as Record<string, (r: unknown) => unknown>;
  if (!honestProofs.has(fake)) honestProofs.set(fake, methods.getBlockProof!);
  const honest = honestProofs.get(fake)!;
  methods.getBlockProof = ms === 0 ? honest : async (r) => (await new Promise((ok) => setTimeout(ok, ms)), honest(r));
}

const proofCalls = (network: LiteserverNetwork) => network.servers.reduce((n, s) => n + s.fake.calls.filter((c) => c === 'getBlockProof').length, 0);
const messages = (lines: Record<string, unknown>[]) => lines.map((l) => String(l.msg));

/** A describe's network, made in a temp dir, and tonwatch serve on it; both closed after the describe's tests. */
interface OnNetwork {
  network: LiteserverNetwork;
  /** The running service (the last one started). */
  service: TestService;
  /** Starts tonwatch serve (closing the one before; same data dir: a restart) with the default trust level; its log lines. */
  start(env?: Record<string, string>): Promise<Record<string, unknown>[]>;
}

function onNetwork(prefix: string, options: () => Omit<LiteserverNetworkOptions, 'dir'>): OnNetwork {
  let dir = '';
  let running: TestService | undefined;
  const fixture = {
    network: undefined as unknown as LiteserverNetwork,
    get service() {
      return running!;
    },
    async start(env: Record<string, string> = {}) {
      await running?.close();
      running = undefined;
      const { logger, lines } = captureLogger('info');
      running = await startTestService({
        env: { ...LITESERVER_ENV, TONWATCH_LITESERVER_CONFIG: fixture.network.configFile, ...env },
        dataDir: path.join(dir, 'data'),
        logger,
        components: [],
      });
      return lines;
    },
  };
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), prefix));
    fixture.network = await startLiteserverNetwork({ ...options(), dir });
  }, 60_000);
  afterAll(async () => {
    await running?.close();
    await fixture.network?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return fixture;
}

describe('tonwatch serve with secure trust (the default) on a signed chain', () => {
  const signed = signedChain(50, { label: 'e2e-follow' });
  const lastKeyBlock = signed.chain.masterchainSeqno - 2;
  // Four links a reply: the walk from the init block takes several replies, as hundreds of key blocks do on mainnet.
  const on = onNetwork('tonwatch-ls-secure-', () => ({ servers: 2, signed, maxLinks: 4 }));

  it('walks the signatures from the init block to the head, follows it, and says so in /readyz and the log', async () => {
    // 50 key blocks, each with a new validator set after the init block's; links half ordinary, half simplex.
    expect(new Set(signed.sessions.map((s) => s.setHash)).size).toBe(51);
    const formats = signed.sessions.map((s) => s.format);
    expect(formats.filter((f) => f === 'simplex').length).toBeGreaterThanOrEqual(25);
    expect(formats.filter((f) => f === 'ordinary').length).toBeGreaterThanOrEqual(25);
    const { network } = on;
    const lines = await on.start();
    const service = on.service;
    const firstStartProofs = proofCalls(network);

    // The start walked from the configured init block, reply by reply, and said how far it had got.
    const log = messages(lines);
    expect(log).toContainEqual(expect.stringMatching(new RegExp(`^secure trust starts from key block \\(-1,${SHARD},${signed.init.seqno}\\).* \\(the init block\\)$`)));
    expect(log).toContainEqual(expect.stringMatching(/^secure trust: key-block walk at \d+ of \d+ \(from \d+, \d+ key blocks proven\)$/));
    expect(log).toContainEqual(expect.stringMatching(new RegExp(`^secure trust: walked from ${signed.init.seqno} to \\d+ in \\d+ replies, [\\d.]+ s; 50 key blocks proven$`)));
    expect(log.filter((l) => l.startsWith('TONWATCH_TRUST=fast'))).toEqual([]); // no fast-trust warning
    expect(firstStartProofs).toBeGreaterThanOrEqual(13); // 51 links, four a reply

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
    await until(async () => (await readyz(service)).checks.chain.trust.key_block.seqno === signed.chain.masterchainSeqno - 2, 10_000, 'the new key block trusted');

    // A long walk while the service runs (12 key blocks at once, replies slowed down) shows in /readyz as it goes.
    for (const s of network.servers) slowProofs(s.fake, 150);
    const keyBefore = lastKeyBlockOf(signed);
    for (let k = 0; k < 12; k++) {
      signed.blocks(1);
      signed.keyBlock();
    }
    network.advance();
    const seen: unknown[] = [];
    await until(async () => {
      const trust = (await readyz(service)).checks.chain.trust;
      if (trust.progress) seen.push(trust.progress);
      return trust.head.seqno === signed.chain.masterchainSeqno;
    }, 30_000, 'the head after 12 key blocks');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]).toMatchObject({ from: keyBefore, to: signed.chain.masterchainSeqno });
    expect((await readyz(service)).checks.chain.trust).toMatchObject({ progress: null, key_block: { seqno: lastKeyBlockOf(signed) } });
    for (const s of network.servers) slowProofs(s.fake, 0);
    await service.follower!.waitForSeqno(signed.chain.masterchainSeqno, 30_000);
  }, 120_000);

  it('after a restart on the same store, walks from the remembered key block, not from the init block', async () => {
    const { network } = on;
    const remembered = lastKeyBlockOf(signed);
    const before = proofCalls(network);
    const lines = await on.start();
    const service = on.service;
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

describe('tonwatch serve with secure trust: the first start answers /readyz while it walks', () => {
  const signed = signedChain(10, { label: 'e2e-first-walk' });
  const on = onNetwork('tonwatch-ls-first-walk-', () => ({ servers: 2, signed, maxLinks: 2 }));

  it('says how far the key-block walk has got (503) before the API is up, then serves the API on the same port', async () => {
    for (const s of on.network.servers) slowProofs(s.fake, 200);
    const port = await freePort();
    const starting = on.start({ PORT: String(port) });
    // An API call, then /readyz: when /readyz still shows the walk, the API call before it was made during the start too.
    const seen: Array<{ status: number; body: any; api: { status: number; body: any } }> = [];
    await until(async () => {
      const api = await fetch(`http://127.0.0.1:${port}/v2/webhooks`).catch(() => null);
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null);
      if (api && res) seen.push({ status: res.status, body: await res.json(), api: { status: api.status, body: await api.json() } });
      return seen.some((r) => r.body.checks?.chain?.trust?.progress);
    }, 30_000, 'the walk\'s progress on /readyz during the start');
    const during = seen.find((r) => r.body.checks?.chain?.trust?.progress)!;
    expect(during.status).toBe(503);
    expect(during.body).toMatchObject({ ok: false, starting: true, checks: { chain: { ok: false, trust: { level: 'secure', head: null, progress: { from: signed.init.seqno } } } } });
    // Everything but the probes waits for the start: 503 with what it waits for.
    expect(during.api).toMatchObject({ status: 503, body: { error_code: 'starting' } });
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);

    for (const s of on.network.servers) slowProofs(s.fake, 0);
    await starting;
    expect(on.service.port).toBe(port);
    await on.service.follower!.waitForSeqno(signed.chain.masterchainSeqno, 30_000);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as any).checks.chain.trust).toMatchObject({ level: 'secure', progress: null, head: { seqno: signed.chain.masterchainSeqno } });
  }, 120_000);
});

describe('tonwatch serve with secure trust: liteservers that forge links are demoted and counted', () => {
  // The honest server starts 3 blocks behind; the liars serve every block but forge the links to the newest ones.
  const signed = signedChain(6, { label: 'e2e-forged', tail: 0 });
  signed.blocks(4, 2);
  const honestHead = signed.chain.masterchainSeqno - 3;
  const honestLie: { withholdAbove?: number } = { withholdAbove: honestHead };
  const newest = (to: { seqno: number }) => to.seqno > honestHead;
  const lies = {
    1: { impostors: true, links: newest },
    2: { previousSet: true, links: newest },
    3: { otherCandidate: true, links: newest },
    4: { backToNonKey: true },
  };
  const checks: Record<number, RegExp> = { 1: /signatures\.signer/, 2: /signatures\.(set_hash|cc_seqno)/, 3: /signatures\.candidate/, 4: /link\.back\.key_block/ };

  const on = onNetwork('tonwatch-ls-forged-', () => ({ servers: 5, signed, lie: { 0: honestLie }, proofLies: lies }));

  it('refuses every forged link, demotes and counts its server, and follows the honest one with no gap', async () => {
    const { network } = on;
    const lines = await on.start();
    const service = on.service;
    const [honest, ...liars] = network.servers.map((s) => s.name);
    // Each liar's head was offered, its proof refused, the server demoted; the honest server's head is believed.
    await until(async () => {
      const listed = (await readyz(service)).checks.chain.servers as Array<Record<string, any>>;
      return liars.every((l) => listed.find((s) => s.server === l)!.failed_proofs >= 1);
    }, 20_000, 'every liar refused');
    const before = await readyz(service);
    expect(before.checks.chain.trust).toMatchObject({ level: 'secure', head: { seqno: honestHead }, alarm: null });
    const listed = new Map((before.checks.chain.servers as Array<Record<string, any>>).map((s) => [s.server, s]));
    liars.forEach((name, i) => {
      expect(listed.get(name)).toMatchObject({ demoted: true, lagging: 0, proven_seqno: null });
      expect(listed.get(name)!.disproven).toBeGreaterThanOrEqual(1);
      expect(listed.get(name)!.last_failed_proof).toMatch(checks[i + 1]!);
    });
    expect(listed.get(honest)).toMatchObject({ demoted: false, disproven: 0, failed_proofs: 0, proven_seqno: honestHead });
    expect(messages(lines).filter((l) => /^liteserver .* demoted \(disproven\): proof toward .* failed: /.test(l)).length).toBeGreaterThanOrEqual(4);
    expect(messages(lines).filter((l) => l.startsWith('secure trust: ') && l.includes(' proof toward '))).toEqual([]); // logged once, as the demotion

    // The honest server catches up; the follower goes on through it, over the blocks only the liars served before.
    delete honestLie.withholdAbove;
    signed.chain.transfer({ from: signed.chain.addressIn(SHARD, 3), to: signed.chain.addressIn(SHARD, 4), amount: 77_000n });
    network.advance(2);
    const head = signed.chain.masterchainSeqno;
    await service.follower!.waitForSeqno(head, 30_000);
    const { blocks, transactions } = await logged(service.events);
    expect(blocks).toEqual(Array.from({ length: head - blocks[0]! + 1 }, (_, i) => blocks[0]! + i));
    expect(blocks[0]).toBeLessThanOrEqual(honestHead);
    expect(transactions.length).toBeGreaterThanOrEqual(9); // 2 transfers in each of the 4 newest blocks of the start, and one more
    expect(transactions).toEqual(truth(network.steps, blocks[0]!, head));

    const metrics = await (await service.api('/metrics', { auth: null })).text();
    for (const liar of liars) {
      expect(metrics).toMatch(new RegExp(`tonwatch_liteserver_demotions_total\\{server="${liar}",reason="disproven"\\} [1-9]`));
      expect(metrics).toMatch(new RegExp(`tonwatch_chain_trust_failed_proofs_total\\{server="${liar}"\\} [1-9]`));
      expect(metrics).toContain(`tonwatch_liteserver_demotions_total{server="${liar}",reason="lagging"} 0`);
    }
    expect(metrics).toContain(`tonwatch_liteserver_disproven_total{server="${honest}"} 0`);
    expect(metrics).toContain(`tonwatch_chain_trusted_head_seqno ${head}`);

    // tonwatch chain info says the same in words.
    const info = await runCli(chainCommand, ['info', '--url', service.url]);
    expect(info.out).toMatch(new RegExp(`^trust      secure: head ${head} `, 'm'));
    expect(info.out).toMatch(/^key block  \d+ \(root [0-9a-f]{8}…\): its validators sign the blocks after it$/m);
    for (const liar of liars) expect(info.out).toMatch(new RegExp(`^  ${liar.replace(/\./g, '\\.')} .*disproven [1-9]\\d*, withheld 0, failed proofs [1-9]\\d*, lagging 0 DEMOTED`, 'm'));
  }, 120_000);
});

describe('tonwatch serve with secure trust: two liteservers on two chains signed by the same validators', () => {
  const startUtime = Math.floor(Date.now() / 1000) - 300;
  // Two chains equal up to here; from the next block on the same validators sign both (stolen keys, an equivocating majority).
  const main = signedChain(3, { label: 'e2e-fork', startUtime });
  const fork = signedChain(3, { label: 'e2e-fork', startUtime });

  const on = onNetwork('tonwatch-ls-fork-', () => ({ servers: 2, signed: main, serves: { 1: fork } }));

  it('stops publishing when a proven head does not descend from the believed one; /readyz fails naming both blocks', async () => {
    expect(main.head.rootHash).toEqual(fork.head.rootHash);
    const { network } = on;
    const lines = await on.start();
    const service = on.service;
    const [mainServer, forkServer] = network.servers;
    // The main chain goes on and is followed.
    main.chain.transfer({ from: main.chain.addressIn(SHARD, 1), to: main.chain.addressIn(SHARD, 2), amount: 1_000n });
    network.advance(2);
    await service.follower!.waitForSeqno(main.chain.masterchainSeqno, 30_000);
    const believed = main.head;
    const before = await logged(service.events);

    // The fork's server reports a head one block further, on its own chain.
    fork.blocks(3, 1);
    forkServer!.fake.advance();
    await until(async () => (await readyz(service)).checks.chain.trust.alarm !== null, 20_000, 'the trust alarm');
    const alarmed = await readyz(service);
    expect(alarmed.status).toBe(503);
    expect(alarmed.checks.chain.ok).toBe(false);
    expect(alarmed.checks.chain.trust.alarm).toMatchObject({
      kind: 'fork', seqno: believed.seqno, servers: [mainServer!.name, forkServer!.name],
      blocks: [{ seqno: believed.seqno, root_hash: believed.rootHash.toString('hex') }, { seqno: fork.head.seqno, root_hash: fork.head.rootHash.toString('hex') }],
      ancestor: { seqno: believed.seqno, root_hash: fork.id(believed.seqno).rootHash.toString('hex') },
    });
    expect(alarmed.checks.chain.problem).toContain(believed.rootHash.toString('hex'));
    expect(alarmed.checks.chain.problem).toContain(fork.head.rootHash.toString('hex'));
    expect(lines).toContainEqual(expect.objectContaining({ level: 50, msg: expect.stringMatching(/^secure trust ALARM: liteserver .* does not descend from the believed head/) }));
    expect(await (await service.api('/metrics', { auth: null })).text()).toContain('tonwatch_chain_trust_alarm 1');

    // The main chain goes on; nothing more is believed or published.
    main.chain.transfer({ from: main.chain.addressIn(SHARD, 2), to: main.chain.addressIn(SHARD, 1), amount: 500n });
    network.advance(2);
    await until(async () => (await readyz(service)).checks.chain.servers.find((s: { server: string }) => s.server === mainServer!.name).head_seqno === main.head.seqno, 10_000, 'the main server reports its new head');
    await new Promise((r) => setTimeout(r, 1000)); // time for anything that would still be published
    expect(await logged(service.events)).toEqual(before);
    expect((await readyz(service)).checks.chain.trust.head.seqno).toBe(believed.seqno);
    const info = await runCli(chainCommand, ['info', '--url', service.url]);
    expect(info.code).toBe(3);
    expect(info.out).toMatch(/^ALARM      liteserver .* does not descend from the believed head/m);
  }, 120_000);
});

describe('tonwatch serve with secure trust: a liteserver that withholds its head', () => {
  const signed = signedChain(3, { label: 'e2e-withhold' });
  const withheldAt = signed.chain.masterchainSeqno;

  const on = onNetwork('tonwatch-ls-withhold-', () => ({ servers: 2, signed, lie: { 1: { withholdAbove: withheldAt } } }));

  it('is reported and demoted as lagging (TONWATCH_LITESERVER_MAX_LAG_BLOCKS) while following goes on', async () => {
    const { network } = on;
    const lines = await on.start({ TONWATCH_LITESERVER_MAX_LAG_BLOCKS: '4' });
    const service = on.service;
    const [honest, withholding] = network.servers.map((s) => s.name);
    for (let i = 0; i < 6; i++) signed.chain.transfer({ from: signed.chain.addressIn(SHARD, 5), to: signed.chain.addressIn(SHARD, 20 + i), amount: 1_000n });
    network.advance(6);
    const head = signed.chain.masterchainSeqno;
    await service.follower!.waitForSeqno(head, 30_000);
    await until(async () => (await readyz(service)).checks.chain.servers.find((s: { server: string }) => s.server === withholding).lagging_by !== null, 10_000, 'the withholding server reported');
    const ready = await readyz(service);
    expect(ready.status).toBe(200); // the follower goes on through the other
    expect(ready.checks.chain.trust).toMatchObject({ head: { seqno: head }, max_lag_blocks: 4 });
    const listed = new Map((ready.checks.chain.servers as Array<Record<string, any>>).map((s) => [s.server, s]));
    expect(listed.get(withholding)).toMatchObject({ head_seqno: withheldAt, lagging_by: 6, lagging: 1, disproven: 0, failed_proofs: 0, demoted: true });
    expect(listed.get(honest)).toMatchObject({ lagging_by: null, lagging: 0, demoted: false });
    // one warning, the demotion's
    expect(messages(lines).filter((l) => l.includes('lags the best proven head'))).toEqual([`liteserver ${withholding} demoted (lagging): head ${withheldAt} lags the best proven head ${head} by 6 blocks (more than 4): withholding or stuck`]);
    const metrics = await (await service.api('/metrics', { auth: null })).text();
    expect(metrics).toContain(`tonwatch_liteserver_demotions_total{server="${withholding}",reason="lagging"} 1`);
    expect(metrics).toContain(`tonwatch_liteserver_demotions_total{server="${withholding}",reason="disproven"} 0`);
    expect(metrics).toContain(`tonwatch_liteserver_disproven_total{server="${withholding}"} 0`);
    expect(metrics).toContain(`tonwatch_liteserver_behind_proven_blocks{server="${withholding}"} 6`);
    const { blocks, transactions } = await logged(service.events);
    expect(transactions.length).toBeGreaterThanOrEqual(6);
    expect(transactions).toEqual(truth(network.steps, blocks[0]!, head));
    const info = await runCli(chainCommand, ['info', '--url', service.url]);
    expect(info.out).toMatch(new RegExp(`^  ${withholding!.replace(/\./g, '\\.')} .*lagging 1 LAGGING 6 blocks behind the best proven head DEMOTED`, 'm'));
  }, 120_000);
});
