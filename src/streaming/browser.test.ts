// Headless Chromium's own EventSource and WebSocket against the real service on the devnet:
// notifications arrive as browsers see them, heartbeat=data reaches a watchdog, and the browser's
// automatic reconnect (with its Last-Event-ID) gets the event it missed while disconnected.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../test/support/chromium.js';
import { startTestService, type TestService } from '../../test/support/service.js';
import type { TransactionEvent } from '../bus/events.js';
import { componentFactories } from '../components.js';
import type { StreamHub } from './hub.js';

/** What the page collects (the test's tsconfig has no DOM types: the page code reaches them through `globalThis`). */
interface Seen {
  sse: Array<{ id: string; data: string }>;
  heartbeats: number;
  ws: string[];
  errors: number;
  opens: number;
}
const seen = (): Seen => (globalThis as any).seen;

async function poll<T>(page: Page, read: () => T, cond: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await page.evaluate(read);
    if (cond(v)) return v;
    if (Date.now() > end) throw new Error(`browser state not reached: ${JSON.stringify(v).slice(0, 1000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('headless Chromium clients', () => {
  let svc: TestService;
  let browser: Browser;

  beforeAll(async () => {
    svc = await startTestService({ components: componentFactories.filter((c) => c.name === 'devnet' || c.name === 'streaming') });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  it("receives transactions over the browser's EventSource and WebSocket, and resumes after a dropped connection", async () => {
    const wallets = (await (await svc.api('/devnet/wallets')).json()) as Array<{ name: string; address: string }>;
    const bob = wallets.find((w) => w.name === 'bob')!.address;
    const page = await browser.newPage();
    await page.goto(`${svc.url}/healthz`);
    await page.evaluate(
      ({ bob }) => {
        const g = globalThis as any;
        const seen: Seen = (g.seen = { sse: [], heartbeats: 0, ws: [], errors: 0, opens: 0 });
        const es = new g.EventSource(`/v2/sse/accounts/transactions?accounts=${bob}&heartbeat=data`);
        es.addEventListener('message', (e: any) => seen.sse.push({ id: e.lastEventId, data: e.data }));
        es.addEventListener('heartbeat', () => seen.heartbeats++);
        es.addEventListener('open', () => seen.opens++);
        es.addEventListener('error', () => seen.errors++);
        const ws = new g.WebSocket(`ws://${g.location.host}/v2/websocket`);
        ws.onmessage = (e: any) => seen.ws.push(e.data);
        ws.onopen = () => ws.send(JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'subscribe_account', params: [bob] }));
      },
      { bob },
    );
    // heartbeat=data: the browser dispatches the heartbeat, so a page can run a watchdog on it.
    await poll(page, seen, (s) => s.heartbeats >= 1 && s.ws.length >= 1);
    expect(JSON.parse((await page.evaluate(() => (globalThis as any).seen.ws[0] as string)))).toEqual({ id: 1, jsonrpc: '2.0', method: 'subscribe_account', result: 'success! 1 new subscriptions created' });

    const start = svc.events.headPosition() ?? -1;
    await svc.api('/devnet/send', { method: 'POST', json: { from: 'alice', to: 'bob', amount: '2000000', comment: 'to the browser' } });
    await svc.settle();
    const first = await poll(page, seen, (s) => s.sse.length >= 1 && s.ws.length >= 2);
    const txs = async (after: number) =>
      (await svc.events.readAfter(after, 10_000))
        .flatMap((b) => b.events)
        .filter((e): e is TransactionEvent => e.position > after && e.type === 'transaction' && e.tx.account === bob);
    const [tx] = await txs(start);
    const payload = `{"account_id":"${bob}","lt":${tx!.tx.lt},"tx_hash":"${tx!.tx.hash}"}`;
    expect(first.sse).toEqual([{ id: String(tx!.position), data: payload }]);
    expect(first.ws[1]).toBe(`{"jsonrpc":"2.0","method":"account_transaction","params":${payload}}\n`);

    // Drop the SSE connection from the server side; a transaction happens while the browser is away.
    const streaming = svc.components.find((c) => c.name === 'streaming') as unknown as { hub: StreamHub };
    for (const c of [...streaming.hub.connections]) if (c.transport === 'sse') c.terminate('dead');
    await poll(page, () => (globalThis as any).seen.errors as number, (n) => n >= 1);
    await svc.api('/devnet/send', { method: 'POST', json: { from: 'carol', to: 'bob', amount: '3000000', comment: 'while away' } });
    await svc.settle();
    // EventSource reconnects by itself (about 3 s) sending Last-Event-ID: the missed transaction arrives once.
    const after = await poll(page, seen, (s) => s.sse.length >= 2 && s.opens >= 2, 30_000);
    const all = await txs(start);
    expect(all).toHaveLength(2);
    expect(after.sse.map((m) => m.id)).toEqual(all.map((e) => String(e.position)));
    expect(after.sse.map((m) => JSON.parse(m.data).tx_hash)).toEqual(all.map((e) => e.tx.hash));
    await page.close();
  });
});
