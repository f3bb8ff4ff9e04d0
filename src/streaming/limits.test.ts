// Anonymous concurrency limit, the 5-second heartbeat, metrics, the OpenAPI description and shutdown.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { account, blockHeader, transaction } from '../../test/support/model.js';
import { dropTestStore, openTestStore } from '../../test/support/stores.js';
import { blockBatch, blockEvent, openRawStream, startStreamTestbed, txEvent, type StreamTestbed } from '../../test/support/streaming.js';

describe('streaming limits and lifecycle', () => {
  let bed: StreamTestbed | undefined;
  afterEach(async () => {
    if (!bed) return;
    await bed.close();
    await dropTestStore(bed.store);
    bed = undefined;
  });

  it('limits anonymous streams per client address (401 "limit of streaming"); a streaming key is not limited', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite'), config: { streamAnonLimit: 2 } });
    const url = `${bed.url}/v2/sse/blocks`;
    const one = await openRawStream(url);
    const ws = new WebSocket(`${bed.url.replace('http', 'ws')}/v2/websocket`);
    await new Promise((r) => ws.once('open', r));
    const third = await fetch(url);
    expect(third.status).toBe(401);
    expect(await third.text()).toContain('limit of streaming');
    const wsThird = new WebSocket(`${bed.url.replace('http', 'ws')}/v2/websocket`);
    const refused = await new Promise<string>((resolve) => wsThird.once('unexpected-response', (_req, res) => resolve(String(res.statusCode))));
    expect(refused).toBe('401');
    const key = await bed.key('streaming');
    const keyed = await Promise.all([1, 2, 3].map(() => openRawStream(url, { headers: { authorization: `Bearer ${key}` } })));
    expect(keyed.map((s) => s.status)).toEqual([200, 200, 200]);
    const withToken = await openRawStream(`${url}?token=${key}`);
    expect(withToken.status).toBe(200);
    // A key without the scope is refused; a closed anonymous stream frees its slot.
    const other = await bed.key('webhooks');
    expect((await fetch(url, { headers: { authorization: `Bearer ${other}` } })).status).toBe(403);
    one.close();
    await one.ended;
    const end = Date.now() + 5000;
    let again = await fetch(url, { signal: AbortSignal.timeout(2000) }).catch(() => null);
    while (again?.status !== 200 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 20));
      again = await fetch(url, { signal: AbortSignal.timeout(2000) }).catch(() => null);
    }
    expect(again?.status).toBe(200);
    await again?.body?.cancel();
    for (const s of [...keyed, withToken]) s.close();
    ws.close();
  });

  it('health probes and metrics answer from an address holding its whole cap of streams, and take no slot (issue 35)', async () => {
    const cap = 12;
    bed = await startStreamTestbed({ store: await openTestStore('sqlite'), config: { clientConnectionLimit: cap, streamAnonLimit: 2 } });
    const url = `${bed.url}/v2/sse/blocks`;
    const key = await bed.key('streaming');
    // Anonymous streams up to their own limit, WebSockets and keyed streams up to the per-client cap.
    const anon = await Promise.all([1, 2].map(() => openRawStream(url)));
    const sockets = await Promise.all(
      [1, 2].map(async () => {
        const ws = new WebSocket(`${bed!.url.replace('http', 'ws')}/v2/websocket?token=${key}`);
        await new Promise((r) => ws.once('open', r));
        return ws;
      }),
    );
    const keyed = await Promise.all(Array.from({ length: cap - 4 }, () => openRawStream(url, { headers: { authorization: `Bearer ${key}` } })));
    expect([...anon, ...keyed].map((s) => s.status)).toEqual(Array(cap - 2).fill(200));
    await expect.poll(() => bed!.app.clientRequests.inUse('127.0.0.1')).toBe(cap);
    const over = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    expect(over.status).toBe(429);
    // Many probes at once, more than the cap: every one answers, none refused.
    const probes = await Promise.all(Array.from({ length: cap + 3 }, (_v, i) => fetch(`${bed!.url}${['/healthz', '/readyz', '/metrics'][i % 3]}`)));
    expect(probes.map((r) => r.status)).toEqual(Array(cap + 3).fill(200));
    expect(await probes[2]!.text()).toContain('tonwatch_http_requests_total');
    expect(bed.app.clientRequests.inUse('127.0.0.1')).toBe(cap);
    for (const s of [...anon, ...keyed]) s.close();
    for (const ws of sockets) ws.close();
  });

  it('sends a heartbeat at once and again after 5 s of silence, counted from the last event', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite') });
    const stream = await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=${account(1)}`);
    const connectedAt = Date.now();
    await stream.until((t) => t === 'event: heartbeat\n\n', 1000);
    // An event 1.5 s in restarts the silence: the next heartbeat comes 5 s after it, not after connect.
    await new Promise((r) => setTimeout(r, 1500));
    await bed.append(blockBatch(1, [blockEvent(blockHeader(1)), txEvent(transaction({ account: account(1), lt: 1n }))]));
    const eventAt = Date.now();
    await stream.until((t) => t.includes('event: message'));
    const text = await stream.until((t) => t.endsWith('event: heartbeat\n\n') && t.includes('event: message'), 8000);
    const silence = Date.now() - eventAt;
    expect(text.match(/event: heartbeat/g)).toHaveLength(2);
    expect(silence).toBeGreaterThanOrEqual(4900);
    expect(silence).toBeLessThan(7000);
    expect(Date.now() - connectedAt).toBeGreaterThan(6400);
    stream.close();
  });

  it('exposes metrics, documents the routes in OpenAPI, and closes streams on shutdown', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite') });
    const sse = await openRawStream(`${bed.url}/v2/sse/accounts/transactions?accounts=ALL`);
    const ws = new WebSocket(`${bed.url.replace('http', 'ws')}/v2/websocket`);
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'subscribe_block' }));
    await new Promise((r) => ws.once('message', r));
    await bed.append(blockBatch(1, [blockEvent(blockHeader(1)), txEvent(transaction({ account: account(1), lt: 1n }))]));
    await sse.until((t) => t.includes('event: message'));
    const metrics = await (await fetch(`${bed.url}/metrics`)).text();
    expect(metrics).toMatch(/tonwatch_stream_connections\{transport="sse"\} 1/);
    expect(metrics).toMatch(/tonwatch_stream_connections\{transport="ws"\} 1/);
    expect(metrics).toMatch(/tonwatch_stream_events_sent_total\{type="transaction"\} 1/);
    expect(metrics).toMatch(/tonwatch_stream_events_sent_total\{type="block"\} 1/);
    expect(metrics).toContain('tonwatch_stream_slow_consumer_closes_total');
    expect(metrics).toContain('tonwatch_stream_resume_gaps_total');

    const doc = (await (await fetch(`${bed.url}/docs/json`)).json()) as { paths: Record<string, Record<string, any>> };
    for (const path of ['/v2/sse/accounts/transactions', '/v2/sse/accounts/traces', '/v2/sse/mempool', '/v2/sse/blocks']) {
      expect(Object.keys(doc.paths[path] ?? {}).sort(), path).toEqual(['get', 'post']);
      expect(Object.keys(doc.paths[path]!.get.responses[200].content)).toEqual(['text/event-stream']);
    }
    expect(doc.paths['/v2/websocket']?.get?.summary).toMatch(/JSON-RPC/);
    const plain = await fetch(`${bed.url}/v2/websocket`);
    expect(plain.status).toBe(426);

    // Stopping the component ends every stream: SSE responses finish, WebSockets close with 1001.
    const wsClosed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    await bed.streaming.stop!();
    await sse.ended;
    expect(await wsClosed).toBe(1001);
    const end = Date.now() + 5000;
    while (bed.streaming.hub.connections.size > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    expect(bed.streaming.hub.connections.size).toBe(0);
    // A stopped hub turns new streams away at once instead of leaving them idle.
    const late = await openRawStream(`${bed.url}/v2/sse/blocks`);
    await late.ended;
    expect(late.text()).toBe('event: heartbeat\n\n');
  });

  it('closing the app does not hang on open streams', async () => {
    bed = await startStreamTestbed({ store: await openTestStore('sqlite') });
    const sse = await openRawStream(`${bed.url}/v2/sse/blocks`);
    const ws = new WebSocket(`${bed.url.replace('http', 'ws')}/v2/websocket`);
    await new Promise((r) => ws.once('open', r));
    const wsClosed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
    const started = Date.now();
    await bed.close();
    await sse.ended;
    await wsClosed;
    expect(Date.now() - started).toBeLessThan(5000);
    await dropTestStore(bed.store);
    bed = undefined;
  });
});
