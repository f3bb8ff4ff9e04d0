// The store goes away while the follower appends and webhooks deliver: every PostgreSQL connection is
// reset (a proxy on loopback is cut, as a database restart or a network cut would) for a few seconds.
// The service says it is not ready, waits, and resumes: no event lost, none repeated in the log, and
// each account's webhooks in order.
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../src/bus/events.js';
import { parseAccountId } from '../../src/chain/address.js';
import { Receiver, until } from '../support/webhooks.js';
import { startTestService, type TestService } from '../support/service.js';
import { PG_URL, postgresAvailable, uniqueSchema } from '../support/stores.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { logTransactions, readWholeLog } from './log.js';

const OUTAGE_MS = 4000;
const available = await postgresAvailable();
const cleanup: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => {});
});

describe.skipIf(!available)('PostgreSQL outage', () => {
  it('not ready while the store is gone, then resumes with 0 events lost, 0 repeated, webhooks in per-account order', { timeout: 180_000 }, async () => {
    const schema = uniqueSchema('outage');
    const upstream = new URL(PG_URL);
    const proxy = await TcpProxy.start({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    cleanup.push(() => proxy.close());
    cleanup.push(async () => {
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    });
    const viaProxy = new URL(PG_URL);
    viaProxy.port = String(proxy.port);
    viaProxy.searchParams.set('options', `-c search_path=${schema}`);
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();

    const receiver = await new Receiver().listen(0);
    cleanup.push(() => receiver.close());
    const service: TestService = await startTestService({
      env: { DATABASE_URL: viaProxy.toString(), TONWATCH_WEBHOOK_ALLOW_LOOPBACK: 'true' },
      logger: pino({ level: 'warn' }, pino.destination(process.env.TONWATCH_FAULT_LOG ?? '/dev/null')),
    });
    cleanup.push(() => service.close());
    const key = await service.key('webhooks');
    const wallets = (await (await service.api('/devnet/wallets')).json()) as Array<{ name: string; address: string }>;
    const accounts = ['bob', 'carol', 'dave'].map((n) => wallets.find((w) => w.name === n)!.address);
    const hook = (await (await service.api('/webhooks', { method: 'POST', auth: key, json: { endpoint: receiver.url } })).json()) as { webhook_id: number };
    const subscribed = await service.api(`/webhooks/${hook.webhook_id}/account-tx/subscribe`, { method: 'POST', auth: key, json: { accounts: accounts.map((a) => ({ account_id: a })) } });
    expect(subscribed.status).toBe(200);
    const subscribedAt = (await service.source.getMasterchainHead()).seqno;

    const sentHashes: string[] = [];
    const send = async (to: string) => {
      const res = await service.api('/devnet/send', { method: 'POST', json: { from: 'alice', to, amount: '1000000', comment: `outage ${sentHashes.length}` } });
      expect(res.status).toBe(200);
      sentHashes.push(((await res.json()) as { message_hash: string }).message_hash);
    };
    const produce = () => service.api('/devnet/blocks', { method: 'POST' });

    // Before: deliveries flow.
    for (const to of ['bob', 'carol', 'dave']) await send(to);
    await service.settle();
    const firstSeqno = (await service.source.getMasterchainHead()).seqno;

    // The cut: blocks keep coming (the chain does not need our store), transfers keep going.
    proxy.cut();
    const cutAt = Date.now();
    for (const to of ['bob', 'carol', 'dave', 'bob', 'carol']) {
      await send(to);
      expect((await produce()).status).toBe(200);
    }
    let notReady: { status: number; body: any } | null = null;
    await until(async () => {
      const res = await service.api('/readyz', { auth: null });
      notReady = { status: res.status, body: await res.json() };
      return res.status === 503;
    }, OUTAGE_MS, '/readyz to say not ready during the outage');
    expect(JSON.stringify(notReady!.body)).toMatch(/store|follower/);
    while (Date.now() - cutAt < OUTAGE_MS) {
      expect((await produce()).status).toBe(200);
      await new Promise((r) => setTimeout(r, 300));
    }

    // Back: the service catches up by itself.
    proxy.restore();
    for (const to of ['dave', 'bob']) await send(to);
    for (let i = 0; i < 12; i++) expect((await produce()).status).toBe(200);
    const head = (await service.source.getMasterchainHead()).seqno;
    await service.follower!.waitForSeqno(head, 60_000);
    await until(async () => (await service.api('/readyz', { auth: null })).status === 200, 30_000, '/readyz ok again');

    // The log: one batch per masterchain block, in order, holding exactly the chain's transactions.
    const batches = await readWholeLog(service.events);
    const seqnos = batches.filter((b) => b.kind === 'block').map((b) => b.mcSeqno);
    expect(new Set(seqnos).size).toBe(seqnos.length);
    expect(seqnos).toEqual([...seqnos].sort((a, b) => a - b));
    const blocks = seqnos.filter((s) => s >= firstSeqno);
    expect(blocks[blocks.length - 1]).toBe(head);
    let lost = 0;
    let repeated = 0;
    const inLog = logTransactions(batches);
    const seen = new Set<string>();
    for (const seqno of blocks) {
      const block = (await service.source.getFinalizedBlock(seqno))!;
      for (const tx of block.transactions) {
        const count = inLog.get(tx.hash) ?? 0;
        if (count === 0) lost++;
        if (count > 1) repeated++;
        seen.add(tx.hash);
      }
    }
    const pendingInLog = batches.filter((b) => b.kind === 'mempool').map((b) => (b.events[0] as Extract<ChainEvent, { type: 'mempool' }>).message.hash);
    const mempoolLost = sentHashes.filter((h) => !pendingInLog.includes(h)).length;
    const mempoolRepeated = pendingInLog.length - new Set(pendingInLog).size;
    const positions = batches.flatMap((b) => b.events.map((e: ChainEvent) => e.position));
    expect(new Set(positions).size).toBe(positions.length);

    // Webhooks: every transaction of a subscribed account arrives, each account's in lt order; repeats keep their id.
    const wanted = new Set<string>();
    for (const seqno of seqnos.filter((s) => s > subscribedAt)) {
      for (const tx of (await service.source.getFinalizedBlock(seqno))!.transactions) {
        if (accounts.some((a) => parseAccountId(a) === tx.account)) wanted.add(tx.hash);
      }
    }
    await until(async () => [...wanted].every((h) => receiver.requests.some((r) => JSON.parse(r.body).tx_hash === h)), 60_000, 'every webhook delivered');
    const firstIds = new Map<string, string>();
    let webhookRepeats = 0;
    const lastLt = new Map<string, number>();
    for (const r of receiver.requests) {
      const body = JSON.parse(r.body) as { account_id: string; lt: number; tx_hash: string };
      const id = r.headers['webhook-id'] as string;
      if (firstIds.has(body.tx_hash)) {
        webhookRepeats++;
        expect(id).toBe(firstIds.get(body.tx_hash));
        continue;
      }
      firstIds.set(body.tx_hash, id);
      expect(body.lt).toBeGreaterThan(lastLt.get(body.account_id) ?? 0);
      lastLt.set(body.account_id, body.lt);
    }
    console.log(
      `PostgreSQL outage of ${OUTAGE_MS} ms: ${blocks.length} blocks, ${seen.size} transactions, ${sentHashes.length} pending messages; ` +
        `events lost ${lost + mempoolLost}, repeated in the log ${repeated + mempoolRepeated}; ` +
        `webhooks ${wanted.size} wanted, ${firstIds.size} delivered, ${webhookRepeats} repeats; connections cut or refused ${proxy.refused}`,
    );
    expect(lost + mempoolLost).toBe(0);
    expect(repeated + mempoolRepeated).toBe(0);
    expect(firstIds.size).toBe(wanted.size);
  });
});
