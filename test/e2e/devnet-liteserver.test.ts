// Acceptance (issue #21): tonwatch follows a standalone devnet exactly as it follows mainnet. Two child
// processes: `tonwatch devnet serve` (manual blocks, its liteserver on a free port) and `tonwatch serve` with
// TONWATCH_CHAIN=liteserver, TONWATCH_TRUST=secure and the global config `tonwatch devnet global-config`
// printed. The service proves the devnet's head by its validators' signatures from the init block (block 1)
// and follows from block 2. One 1 TON payment of an invoice link, made through the devnet's control API
// (`/devnet/pay`), arrives on SSE, as a webhook, as a paid invoice and in the indexer's history; the ground
// truth is read from the devnet's liteserver with ton-lite-client, a client nobody here wrote.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Address, Cell } from '@ton/core';
import type { LiteClient, LiteSingleEngine } from 'ton-lite-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTransaction } from '../../src/chain/decode/transaction.js';
import type { TransactionModel } from '../../src/chain/model.js';
import { newestFirst, tonTruth } from '../support/indexer.js';
import { connectTheirClientByConfig } from '../support/liteserver.js';
import { ROOT, spawnService, spawnStandaloneDevnet, type SpawnedDevnet, type SpawnedService } from '../support/service.js';
import { openRawStream, sseMessages } from '../support/streaming.js';
import { Receiver, until } from '../support/webhooks.js';

const TON = 1_000_000_000n;

describe('tonwatch serve (TONWATCH_CHAIN=liteserver, TONWATCH_TRUST=secure) on a standalone `tonwatch devnet serve`', () => {
  let dir: string;
  let devnet: SpawnedDevnet;
  let service: SpawnedService;
  let globalConfig: string;
  let theirs: { client: LiteClient; engine: LiteSingleEngine };
  const receivers: Receiver[] = [];

  const devnetApi = async <T = any>(pathname: string, json?: unknown): Promise<T> => {
    const res = await fetch(`${devnet.url}${pathname}`, json === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) });
    if (!res.ok) throw new Error(`${pathname}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const api = (pathname: string, init: { method?: string; json?: unknown; auth?: string | null } = {}) => {
    const headers = new Headers();
    const auth = init.auth === undefined ? service.adminKey : init.auth;
    if (auth) headers.set('authorization', `Bearer ${auth}`);
    if (init.json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${service.url}${pathname}`, { method: init.method ?? (init.json === undefined ? 'GET' : 'POST'), headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
  };
  const readyz = async () => {
    const res = await fetch(`${service.url}/readyz`);
    return { status: res.status, ...((await res.json()) as { checks: Record<string, any> }) };
  };
  const devnetHead = async () => (await devnetApi<{ head: { seqno: number } }>('/devnet/info')).head.seqno;
  /** Waits until the service's follower has the devnet's head, saying where it is stuck otherwise. */
  const followed = async (seqno: number) => {
    await until(async () => (await readyz()).checks.follower.lastSeqno === seqno, 60_000, `the follower at devnet block ${seqno}`).catch(async (err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify((await readyz()).checks)}\n${service.output().slice(-4000)}`);
    });
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tonwatch-devnet-ls-e2e-'));
    devnet = await spawnStandaloneDevnet({
      dataDir: path.join(dir, 'devnet'),
      // each shard block shown 1.5 s before its masterchain block, so the service's poll sees it non-final
      env: { TONWATCH_DEVNET_MANUAL_BLOCKS: 'true', TONWATCH_DEVNET_LITESERVER_PORT: '0', TONWATCH_DEVNET_CONFIRMATION_LAG_MS: '1500', LOG_LEVEL: 'warn' },
    });
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'devnet', 'global-config', '--url', devnet.url], { cwd: ROOT, timeout: 60_000 });
    globalConfig = stdout;
    const configFile = path.join(dir, 'devnet.global.config.json');
    writeFileSync(configFile, globalConfig);
    theirs = await connectTheirClientByConfig(globalConfig);
    service = await spawnService({
      dataDir: path.join(dir, 'service'),
      env: {
        TONWATCH_CHAIN: 'liteserver',
        TONWATCH_TRUST: 'secure',
        TONWATCH_LITESERVER_CONFIG: configFile,
        TONWATCH_NETWORK: 'testnet',
        TONWATCH_START_SEQNO: '2',
        TONWATCH_WEBHOOK_ALLOW_LOOPBACK: 'true',
      },
    });
  }, 120_000);

  afterAll(async () => {
    theirs?.engine.close();
    for (const r of receivers) await r.close();
    if (service) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    if (devnet) {
      devnet.child.kill('SIGTERM');
      await devnet.exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('follows the devnet from its init block, block 1, proving heads by the devnet validators\' signatures', async () => {
    const config = JSON.parse(globalConfig) as { validator: { init_block: { seqno: number; root_hash: string } } };
    expect(config.validator.init_block.seqno).toBe(1);
    const head = await devnetHead();
    expect(head).toBeGreaterThanOrEqual(6); // genesis
    await followed(head);
    const ready = await readyz();
    expect(ready.status).toBe(200);
    expect(ready.checks.chain).toMatchObject({
      ok: true,
      network: 'testnet',
      trust: {
        level: 'secure',
        head: { seqno: head },
        key_block: { seqno: 1, root_hash: Buffer.from(config.validator.init_block.root_hash, 'base64').toString('hex') },
        alarm: null,
      },
    });
    // The walk started from the printed init block, not from anything remembered (a fresh store).
    expect(service.output()).toMatch(/secure trust starts from key block \(-1,8000000000000000,1\):[0-9a-f]+… \(the init block\)/);
    expect(ready.checks.chain.servers).toHaveLength(1);
    expect(ready.checks.chain.servers[0]).toMatchObject({ state: 'up', head_seqno: head, disproven: 0 });
  }, 90_000);

  it('a 1 TON invoice payment sent through the devnet arrives on SSE, as a webhook, as a paid invoice and in the indexer', async () => {
    const wallets = await devnetApi<Array<{ name: string; address: string }>>('/devnet/wallets');
    const raw = (name: string) => Address.parse(wallets.find((x) => x.name === name)!.address).toRawString();
    const merchant = raw('merchant');
    const alice = raw('alice');

    // Subscribers first: an SSE stream and a webhook on the merchant, an invoice app paying to it, the indexer tracking it.
    const stream = await openRawStream(`${service.url}/v2/sse/accounts/transactions?accounts=${merchant}`);
    expect(stream.status).toBe(200);
    const hooks = await new Receiver().listen(0);
    const invoiceHooks = await new Receiver().listen(0);
    receivers.push(hooks, invoiceHooks);
    const key = await api('/admin/keys', { json: { name: 'webhooks', scopes: ['webhooks'] } });
    expect(key.status).toBe(201);
    const webhooksKey = ((await key.json()) as { key: string }).key;
    const created = await api('/webhooks', { json: { endpoint: hooks.url }, auth: webhooksKey });
    expect(created.ok).toBe(true);
    const { webhook_id } = (await created.json()) as { webhook_id: number };
    const subscribed = await api(`/webhooks/${webhook_id}/account-tx/subscribe`, { json: { accounts: [{ account_id: merchant }] }, auth: webhooksKey });
    expect(subscribed.status).toBeLessThan(300);
    const app = await api('/api/v1/services/invoices/app', { json: { name: 'Shop', recipient_address: merchant, webhooks: [invoiceHooks.url] } });
    expect(app.status, await app.clone().text()).toBe(201);
    const { token } = (await app.json()) as { token: string };
    const invoiceRes = await api('/api/v1/services/invoices/invoice', { auth: token, json: { amount: String(TON), life_time: 600, currency: 'TON', description: 'order 1' } });
    expect(invoiceRes.status).toBe(201);
    const invoice = (await invoiceRes.json()) as { id: string; status: string; payment_link: string };
    const tracked = await api(`/account/${merchant}`, { method: 'POST' });
    expect(tracked.status).toBe(201);

    // alice pays the link through the standalone devnet; her transaction, then the merchant's credit.
    const before = await devnetHead();
    await devnetApi('/devnet/pay', { from: 'alice', link: invoice.payment_link });
    for (let i = 0; i < 3; i++) await devnetApi('/devnet/blocks', {});
    expect(await devnetHead()).toBe(before + 3);
    await followed(before + 3);

    // The devnet's own record, read with ton-lite-client: the merchant's transactions, newest first.
    const truth = await historyOf(theirs.client, merchant);
    const credit = truth[0]!;
    expect(credit.inMessage).toMatchObject({ type: 'internal', source: alice, value: TON });

    // SSE: the credit, as the TonAPI stream sends it.
    await stream.until((text) => text.includes(credit.hash), 15_000);
    stream.close();
    const frames = sseMessages(stream.text()).filter((f) => f.event === 'message').map((f) => JSON.parse(f.data!));
    expect(frames).toContainEqual({ account_id: merchant, lt: Number(credit.lt), tx_hash: credit.hash });

    // Webhook: the same transaction.
    await hooks.waitFor(1, 15_000);
    expect(hooks.bodies()).toContainEqual({ account_id: merchant, lt: Number(credit.lt), tx_hash: credit.hash });

    // Invoice: paid, with its webhook.
    await until(async () => ((await (await api(`/api/v1/services/invoices/${invoice.id}`, { auth: token })).json()) as { status: string }).status === 'paid', 15_000, 'invoice paid');
    expect(await (await api(`/api/v1/services/invoices/${invoice.id}`, { auth: token })).json()).toMatchObject({ status: 'paid', amount: String(TON) });
    await invoiceHooks.waitFor(1, 15_000);
    expect(invoiceHooks.bodies()).toContainEqual(expect.objectContaining({ id: invoice.id, status: 'paid' }));

    // Indexer: the merchant's whole TON history (backfilled and live) equals the devnet's record.
    const expected = newestFirst(truth.flatMap((t) => tonTruth(t, merchant)));
    expect(expected[0]).toMatchObject({ hash: credit.hash, direction: 'in', amount: String(TON), sender: alice });
    await until(async () => {
      const body = (await (await api(`/account/${merchant}/history?limit=1000`)).json()) as { transfers?: unknown[] };
      return (body.transfers?.length ?? 0) >= expected.length;
    }, 20_000, 'indexer history complete');
    const history = ((await (await api(`/account/${merchant}/history?limit=1000`)).json()) as { transfers: any[] }).transfers;
    expect(history.map((t) => ({ hash: t.hash, lt: t.lt, direction: t.direction, kind: t.kind, status: t.status, amount: t.amount, sender: t.sender, recipients: t.recipients, comment: t.comment, jetton: t.jetton }))).toEqual(expected);

    const ready = await readyz();
    expect(ready.checks.chain.trust).toMatchObject({ level: 'secure', alarm: null, head: { seqno: before + 3 } });
  }, 120_000);

  it('sees each shard block before the masterchain commits it (liteServer.nonfinal.*): traces confirmed, then finalized', async () => {
    await devnetApi('/devnet/send', { from: 'bob', to: 'carol', amount: '1000000', comment: 'finality over the liteserver protocol' });
    await devnetApi('/devnet/blocks', {});
    await followed(await devnetHead());
    const count = async (level: string) => Number(new RegExp(`tonwatch_finality_events_total\\{level="${level}"\\} (\\d+)`).exec(await (await fetch(`${service.url}/metrics`)).text())?.[1] ?? 0);
    // the devnet showed the shard block for TONWATCH_DEVNET_CONFIRMATION_LAG_MS before committing it
    expect(await count('confirmed')).toBeGreaterThanOrEqual(1);
    expect(await count('finalized')).toBeGreaterThanOrEqual(1);
    const ready = await readyz();
    expect(ready.checks.finality).toMatchObject({ ok: true, levels: ['pending', 'confirmed', 'finalized'] });
    expect(ready.checks.chain.non_final).toMatchObject({ state: 'supported', disproven: 0 });
  }, 90_000);
});

/** Every transaction of `account` on the devnet, newest first, as ton-lite-client reads them from its liteserver. */
async function historyOf(client: LiteClient, account: string): Promise<TransactionModel[]> {
  const address = Address.parse(account);
  const info = await client.getMasterchainInfo();
  const state = await client.getAccountState(address, info.last);
  const out: TransactionModel[] = [];
  let next = state.lastTx ? { lt: state.lastTx.lt.toString(), hash: Buffer.from(state.lastTx.hash.toString(16).padStart(64, '0'), 'hex') } : null;
  while (next) {
    const page = await client.getAccountTransactions(address, next.lt, next.hash, 16);
    const cells = Cell.fromBoc(page.transactions);
    cells.forEach((cell, i) => {
      const id = page.ids[i]!;
      out.push(decodeTransaction(cell, { block: { workchain: id.workchain, shard: BigInt.asUintN(64, BigInt(id.shard)).toString(16).padStart(16, '0'), seqno: id.seqno }, mcSeqno: 0 }));
    });
    const last = out[out.length - 1]!;
    next = last.prevLt === 0n ? null : { lt: last.prevLt.toString(), hash: Buffer.from(last.prevHash, 'hex') };
  }
  return out;
}
