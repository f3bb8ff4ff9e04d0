// The SQLite store fills up while the follower appends: SQLite's page limit (`max_page_count`) is set to
// the file's current size, which fails every write that needs a new page with SQLITE_FULL — the
// error a full disk gives. Writes fail cleanly (503, the service keeps running), /readyz says why,
// and once there is room again the service continues from its last commit with nothing lost.
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../src/bus/events.js';
import { until } from '../support/webhooks.js';
import { startTestService, type TestService } from '../support/service.js';
import { logTransactions, readWholeLog } from './log.js';

let service: TestService | undefined;
afterAll(() => service?.close());

describe('SQLite store full', () => {
  it('writes fail with 503, /readyz says the disk is full, and after space returns nothing is lost', { timeout: 180_000 }, async () => {
    service = await startTestService({
      env: { TONWATCH_WEBHOOK_ALLOW_LOOPBACK: 'true' },
      logger: pino({ level: 'warn' }, pino.destination(process.env.TONWATCH_FAULT_LOG ?? '/dev/null')),
    });
    const s = service;
    const webhooksKey = await s.key('webhooks');
    const hook = (await (await s.api('/webhooks', { method: 'POST', auth: webhooksKey, json: { endpoint: 'http://127.0.0.1:9/hook' } })).json()) as { webhook_id: number };
    const sentHashes: string[] = [];
    const send = async (to: string) => {
      const res = await s.api('/devnet/send', { method: 'POST', json: { from: 'alice', to, amount: '1000000', comment: `full ${sentHashes.length} ${'x'.repeat(100)}` } });
      expect(res.status).toBe(200);
      sentHashes.push(((await res.json()) as { message_hash: string }).message_hash);
    };
    await send('bob');
    await s.settle();
    const firstSeqno = (await s.source.getMasterchainHead()).seqno;

    const pages = Number((await sql<{ page_count: number }>`pragma page_count`.execute(s.store.db)).rows[0]!.page_count);
    await sql.raw(`pragma max_page_count = ${pages}`).execute(s.store.db);
    let ready: { status: number; body: unknown } = { status: 200, body: null };
    for (let i = 0; i < 60 && ready.status === 200; i++) {
      await send(i % 2 ? 'bob' : 'carol');
      await s.api('/devnet/blocks', { method: 'POST' });
      const res = await s.api('/readyz', { auth: null });
      ready = { status: res.status, body: await res.json() };
    }
    expect(ready.status).toBe(503);
    expect(JSON.stringify(ready.body)).toMatch(/database or disk is full/);
    // An API write fails cleanly while the store is full (a thousand subscriptions need new pages), and the process keeps serving.
    const accounts = Array.from({ length: 1000 }, (_, i) => ({ account_id: `0:${i.toString(16).padStart(64, '0')}` }));
    const write = await s.api(`/webhooks/${hook.webhook_id}/account-tx/subscribe`, { method: 'POST', auth: webhooksKey, json: { accounts } });
    expect(write.status).toBe(503);
    expect(write.headers.get('retry-after')).toBe('5');
    expect(((await write.json()) as { error_code: string }).error_code).toBe('store_unavailable');
    expect((await s.api('/healthz', { auth: null })).status).toBe(200);

    // Space returns: the follower continues by itself from its last commit.
    await sql.raw('pragma max_page_count = 1073741823').execute(s.store.db);
    for (let i = 0; i < 3; i++) await s.api('/devnet/blocks', { method: 'POST' });
    const head = (await s.source.getMasterchainHead()).seqno;
    await s.follower!.waitForSeqno(head, 60_000);
    await until(async () => (await s.api('/readyz', { auth: null })).status === 200, 30_000, '/readyz ok again');

    const batches = await readWholeLog(s.events);
    const seqnos = batches.filter((b) => b.kind === 'block').map((b) => b.mcSeqno);
    expect(new Set(seqnos).size).toBe(seqnos.length);
    const inLog = logTransactions(batches);
    let lost = 0;
    let repeated = 0;
    let transactions = 0;
    for (let seqno = firstSeqno; seqno <= head; seqno++) {
      expect(seqnos).toContain(seqno);
      for (const tx of (await s.source.getFinalizedBlock(seqno))!.transactions) {
        transactions++;
        const n = inLog.get(tx.hash) ?? 0;
        if (n === 0) lost++;
        if (n > 1) repeated++;
      }
    }
    const pending = batches.filter((b) => b.kind === 'mempool').map((b) => (b.events[0] as Extract<ChainEvent, { type: 'mempool' }>).message.hash);
    lost += sentHashes.filter((h) => !pending.includes(h)).length;
    repeated += pending.length - new Set(pending).size;
    console.log(
      `SQLite full at ${pages} pages: ${head - firstSeqno + 1} blocks, ${transactions} transactions, ${sentHashes.length} pending messages; ` +
        `events lost ${lost}, repeated in the log ${repeated}; an API write while full answered ${write.status}`,
    );
    expect(lost).toBe(0);
    expect(repeated).toBe(0);
    // With room again the same write goes through.
    expect((await s.api(`/webhooks/${hook.webhook_id}/account-tx/subscribe`, { method: 'POST', auth: webhooksKey, json: { accounts } })).status).toBe(200);
  });
});
