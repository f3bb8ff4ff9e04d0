// The whole product on the liteserver source (#19): the real service with TONWATCH_CHAIN=liteserver and
// TONWATCH_LITESERVER_CONFIG naming three fake liteservers over real ADNL TCP on loopback, serving a synthetic
// chain the test advances; one of them forges every block it serves. A transfer put into the chain streams
// over SSE, delivers its webhook to a loopback receiver, pays an invoice, and the indexer's history of the
// tracked address equals the builder's own transactions; /readyz and /metrics show the servers, the trust
// level, and the forger caught (disproven, demoted, logged). The synthetic chain here is unsigned, so these run
// at TONWATCH_TRUST=fast, set explicitly; liteserver-secure.test.ts runs `secure`, the default.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beginCell, type Address } from '@ton/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiteserverChain } from '../../src/chain/liteserver/index.js';
import { captureLogger } from '../support/app.js';
import { spawnService, startTestService, type TestService } from '../support/service.js';
import { refuseUntil, startLiteserverNetwork, type LiteserverNetwork } from '../support/liteserver-network.js';
import { openRawStream, sseMessages } from '../support/streaming.js';
import { Receiver, until } from '../support/webhooks.js';
import { newestFirst, tonTruth } from '../support/indexer.js';

const TON = 1_000_000_000n;

const SHARD = '8000000000000000';
const comment = (text: string) => beginCell().storeUint(0, 32).storeStringTail(text).endCell();

describe('tonwatch serve on liteservers (TONWATCH_CHAIN=liteserver)', () => {
  let dir: string;
  let network: LiteserverNetwork;
  let service: TestService;
  let payer: Address;
  let merchant: Address;
  let customer: Address;
  const receivers: Receiver[] = [];
  const FORGER = 2;
  const { logger, lines } = captureLogger('info');
  /** How often the service's source caught the forger so far. */
  const disproven = () => (service?.source as LiteserverChain | undefined)?.status().disproven[network.servers[FORGER]!.name] ?? 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tonwatch-ls-e2e-'));
    network = await startLiteserverNetwork({ dir, servers: 3, lie: { [FORGER]: { forgeBlock: () => true } } });
    // The honest servers refuse blocks until the forger is caught, so it is asked, whatever the latencies.
    for (const [i, s] of network.servers.entries()) if (i !== FORGER) refuseUntil(s, ['getBlock'], () => disproven() > 0);
    const { chain } = network;
    payer = chain.addressIn(SHARD, 1);
    merchant = chain.addressIn(SHARD, 2);
    customer = chain.addressIn(SHARD, 3);
    // The payer and the merchant are funded; the merchant sends once (an invoice recipient must have sent).
    chain.transfer({ from: customer, to: payer, amount: 100n * TON });
    chain.transfer({ from: customer, to: merchant, amount: 2n * TON });
    network.advance();
    chain.send({ from: merchant, to: customer, amount: TON / 10n, body: comment('activation') });
    network.advance(2);
    service = await startTestService({
      env: {
        TONWATCH_CHAIN: 'liteserver',
        TONWATCH_LITESERVER_CONFIG: network.configFile,
        TONWATCH_NETWORK: 'testnet',
        TONWATCH_TRUST: 'fast',
        TONWATCH_WEBHOOK_ALLOW_LOOPBACK: 'true',
      },
      logger,
    });
  }, 60_000);

  /** Waits for the follower, saying why it is stuck (the source's error) when it does not get there. */
  async function followed(seqno: number): Promise<void> {
    await service.follower!.waitForSeqno(seqno, 30_000).catch((err: Error) => {
      throw new Error(`${err.message}; follower error: ${service.follower!.status().error}; chain: ${JSON.stringify(service.source.identity())}`);
    });
  }

  afterAll(async () => {
    await service?.close();
    for (const r of receivers) await r.close();
    await network?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('follows the network from its head and says so in /readyz and /metrics; the forger is disproven, demoted and logged', async () => {
    const head = network.steps.length;
    expect(service.source.network).toBe('testnet');
    expect(service.source.identity().id).toBe(network.chain.zeroStates().masterchain.ref.rootHash.toString('hex'));
    // The profile is completed from the chain: the servers keep every block; this network has no config contract, so no DNS root.
    expect(service.profile).toMatchObject({ network: 'testnet', testOnly: true, startAt: 'head', oldestSeqno: 2, dnsRoot: null, usdtMaster: null });
    await followed(head);
    const ready = (await (await service.api('/readyz', { auth: null })).json()) as { ok: boolean; checks: Record<string, any> };
    expect(ready.checks.chain).toMatchObject({ ok: true, network: 'testnet', trust: { level: 'fast', head: { seqno: head }, alarm: null } });
    expect(ready.checks.chain.servers.map((s: { server: string }) => s.server).sort()).toEqual(network.servers.map((s) => s.name).sort());
    const forger = network.servers[FORGER]!.name;
    for (const s of ready.checks.chain.servers) {
      expect(s).toMatchObject({ state: 'up', head_seqno: head });
      if (s.server === forger) expect(s).toMatchObject({ demoted: true, disproven: expect.any(Number), last_error: expect.stringMatching(/^disproven: /) });
      else expect(s).toMatchObject({ demoted: false, disproven: 0, withheld: 0 });
    }
    expect(ready.checks.chain.servers.find((s: { server: string }) => s.server === forger).disproven).toBeGreaterThan(0);
    const metrics = await (await service.api('/metrics', { auth: null })).text();
    for (const s of network.servers) expect(metrics).toContain(`tonwatch_liteserver_head_seqno{server="${s.name}"} ${head}`);
    const caught = metrics.match(new RegExp(`^tonwatch_liteserver_disproven_total\\{server="${forger.replace(/\./g, '\\.')}"\\} (\\d+)$`, 'm'));
    expect(Number(caught?.[1])).toBeGreaterThan(0);
    expect(metrics).toContain(`tonwatch_liteserver_up{server="${forger}"} 0`);
    for (const s of network.servers.filter((_, i) => i !== FORGER)) expect(metrics).toContain(`tonwatch_liteserver_disproven_total{server="${s.name}"} 0`);
    expect(metrics).toContain(`tonwatch_chain_trusted_head_seqno ${head}`);
    expect(metrics).toMatch(/tonwatch_chain_lag_blocks 0/);
    // Each demotion is one warning in the service's log, naming the server and why.
    const warnings = lines.filter((l) => l.level === 40 && String(l.msg).startsWith(`liteserver ${forger} demoted (disproven): `));
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toMatchObject({ component: 'liteserver', server: forger, cause: 'disproven', reason: expect.any(String) });
  });

  it('a transfer streams over SSE, delivers its webhook, pays an invoice, and the indexer history equals the builder\'s', async () => {
    // Subscribers first: an SSE stream, a webhook on the customer, an invoice app on the merchant, the indexer on the customer.
    const stream = await openRawStream(`${service.url}/v2/sse/accounts/transactions?accounts=${customer.toRawString()}`);
    expect(stream.status).toBe(200);
    const hooks = await new Receiver().listen(0);
    const invoiceHooks = await new Receiver().listen(0);
    receivers.push(hooks, invoiceHooks);
    const webhooksKey = await service.key('webhooks');
    const created = await service.api('/webhooks', { method: 'POST', json: { endpoint: hooks.url }, auth: webhooksKey });
    expect(created.ok).toBe(true);
    const { webhook_id } = (await created.json()) as { webhook_id: number };
    const subscribed = await service.api(`/webhooks/${webhook_id}/account-tx/subscribe`, { method: 'POST', json: { accounts: [{ account_id: customer.toRawString() }] }, auth: webhooksKey });
    expect(subscribed.status).toBeLessThan(300);
    const app = await service.api('/api/v1/services/invoices/app', { method: 'POST', json: { name: 'Shop', recipient_address: merchant.toRawString(), webhooks: [invoiceHooks.url] } });
    expect(app.status, await app.clone().text()).toBe(201);
    const { token } = (await app.json()) as { token: string };
    const invoiceRes = await service.api('/api/v1/services/invoices/invoice', { method: 'POST', auth: token, json: { amount: String(3n * TON / 2n), life_time: 600, currency: 'TON', description: 'order 1' } });
    expect(invoiceRes.status).toBe(201);
    const invoice = (await invoiceRes.json()) as { id: string; status: string };
    const tracked = await service.api(`/account/${customer.toRawString()}`, { method: 'POST' });
    expect(tracked.status).toBe(201);

    // The chain moves: a transfer to the customer, the invoice paid by its comment, a send back from the customer.
    network.chain.transfer({ from: payer, to: customer, amount: 7n * TON, body: comment('hello liteserver') });
    network.chain.transfer({ from: payer, to: merchant, amount: 3n * TON / 2n, body: comment(invoice.id) });
    network.advance();
    network.chain.send({ from: customer, to: payer, amount: TON, body: comment('withdrawal 1') });
    network.advance(2);
    const truth = network.transactionsOf(customer);
    const [credit] = network.transactionsOf(customer).filter((t) => t.inMessage?.decoded.kind === 'text_comment' && t.inMessage.decoded.text === 'hello liteserver');
    expect(credit).toBeDefined();
    await followed(network.steps.length);

    // SSE: the credit, as the TonAPI stream sends it.
    await stream.until((text) => text.includes(credit!.hash), 15_000);
    stream.close();
    const frames = sseMessages(stream.text()).filter((f) => f.event === 'message');
    expect(frames.map((f) => JSON.parse(f.data!))).toContainEqual({ account_id: customer.toRawString(), lt: Number(credit!.lt), tx_hash: credit!.hash });

    // Webhook: one POST per transaction of the customer since the subscription.
    const since = truth.filter((t) => t.lt >= credit!.lt);
    await hooks.waitFor(since.length, 15_000);
    expect(hooks.bodies()).toEqual(expect.arrayContaining(since.map((t) => ({ account_id: customer.toRawString(), lt: Number(t.lt), tx_hash: t.hash }))));

    // Invoice: paid, by the payer, with its webhook.
    await until(async () => ((await (await service.api(`/api/v1/services/invoices/${invoice.id}`, { auth: token })).json()) as { status: string }).status === 'paid', 15_000, 'invoice paid');
    const paid = (await (await service.api(`/api/v1/services/invoices/${invoice.id}`, { auth: token })).json()) as Record<string, unknown>;
    expect(paid).toMatchObject({ status: 'paid', amount: String(3n * TON / 2n) });
    await invoiceHooks.waitFor(1, 15_000);
    expect(invoiceHooks.bodies()).toContainEqual(expect.objectContaining({ id: invoice.id, status: 'paid' }));

    // Indexer: the tracked customer's whole history (backfilled and live) equals the builder's transactions.
    const expected = newestFirst(truth.flatMap((t) => tonTruth(t, customer.toRawString())));
    await until(async () => {
      const res = await service.api(`/account/${customer.toRawString()}/history?limit=1000`);
      const body = (await res.json()) as { transfers?: unknown[] };
      return (body.transfers?.length ?? 0) >= expected.length;
    }, 20_000, 'indexer history complete');
    const history = ((await (await service.api(`/account/${customer.toRawString()}/history?limit=1000`)).json()) as { transfers: any[] }).transfers;
    expect(history.map((t) => ({ hash: t.hash, lt: t.lt, direction: t.direction, kind: t.kind, status: t.status, amount: t.amount, sender: t.sender, recipients: t.recipients, comment: t.comment, jetton: t.jetton }))).toEqual(expected);
    expect(expected.map((e) => e.comment)).toEqual(['withdrawal 1', 'hello liteserver', 'activation']);
  }, 120_000);
});

describe('tonwatch serve on liteservers that are all down at the first start', () => {
  let dir: string;
  let network: LiteserverNetwork;
  let service: TestService | undefined;

  afterAll(async () => {
    await service?.close();
    await network?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts anyway, /readyz says why it waits, and it follows once the servers are back', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tonwatch-ls-down-'));
    network = await startLiteserverNetwork({ dir, servers: 2, blocks: 3 });
    await network.stop(0);
    await network.stop(1);
    const { logger, lines } = captureLogger('info');
    service = await startTestService({
      env: { TONWATCH_CHAIN: 'liteserver', TONWATCH_LITESERVER_CONFIG: network.configFile, TONWATCH_NETWORK: 'testnet', TONWATCH_TRUST: 'fast' },
      components: [],
      logger,
    });
    // The start says where the config came from and warns about the fast trust level.
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'liteserver config loaded', origin: network.configFile, servers: 2, component: 'liteserver' }));
    expect(lines).toContainEqual(expect.objectContaining({ level: 40, msg: expect.stringMatching(/^TONWATCH_TRUST=fast: a masterchain head is believed when two liteservers/) }));
    const waiting = await service.api('/readyz', { auth: null });
    expect(waiting.status).toBe(503);
    const checks = ((await waiting.json()) as { checks: Record<string, any> }).checks;
    expect(checks.chain.ok).toBe(false);
    expect(checks.chain.problem).toMatch(/^no liteserver is ready \(/);
    for (const s of network.servers) expect(checks.chain.problem).toContain(s.name);
    expect(checks.follower).toMatchObject({ ok: false, lastSeqno: null, error: expect.stringContaining('no masterchain head is believed yet') });
    // The profile kept its constants: nothing could be proven.
    expect(service.profile).toMatchObject({ network: 'testnet', oldestSeqno: null, dnsRoot: null });

    network.advance();
    await network.restart(0);
    await network.restart(1);
    await service.follower!.waitForSeqno(network.steps.length, 60_000);
    const ready = await service.api('/readyz', { auth: null });
    expect(ready.status).toBe(200);
    expect(service.follower!.status()).toMatchObject({ lastSeqno: 4, error: null });
  }, 120_000);
});

describe('tonwatch serve as a child process on liteservers', () => {
  let dir: string;
  let network: LiteserverNetwork;

  afterAll(async () => {
    await network?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('starts with TONWATCH_CHAIN=liteserver, says how to look at the liteservers, follows, and stops on SIGTERM', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tonwatch-ls-child-'));
    network = await startLiteserverNetwork({ dir, servers: 2, blocks: 3 });
    const child = await spawnService({
      dataDir: path.join(dir, 'data'),
      env: { TONWATCH_CHAIN: 'liteserver', TONWATCH_LITESERVER_CONFIG: network.configFile, TONWATCH_NETWORK: 'testnet', TONWATCH_TRUST: 'fast' },
    });
    try {
      await until(() => child.output().includes('tonwatch is running on the'), 30_000, 'the start banner');
      expect(child.output()).toContain('tonwatch is running on the testnet chain');
      expect(child.output()).toContain('  liteservers      npm run tonwatch -- chain info   (trust level fast)');
      expect(child.output()).toContain('TONWATCH_TRUST=fast: a masterchain head is believed when two liteservers report the same block');
      network.advance(2);
      const readyz = async () => {
        const res = await fetch(`${child.url}/readyz`);
        return { status: res.status, ...((await res.json()) as { checks: Record<string, any> }) };
      };
      await until(async () => (await readyz()).checks.follower.lastSeqno === 5, 30_000, 'the follower at block 5');
      const ready = await readyz();
      expect(ready.status).toBe(200);
      expect(ready.checks.chain).toMatchObject({ ok: true, network: 'testnet', trust: { level: 'fast', head: { seqno: 5 } } });
    } finally {
      child.child.kill('SIGTERM');
    }
    expect(await child.exited).toBe(0);
  }, 90_000);
});
