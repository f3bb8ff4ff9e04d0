// Streaming clients for bench/streaming.ts, run in child processes so that the server's process holds
// only the server. Opens many SSE, WebSocket or Redis PUBSUB subscriber connections, counts what
// they receive, and measures publish → receive latency from the event ids (the parent sends when
// each block's events were published). Driven over the IPC channel (messages: see `Command`).
import http from 'node:http';
import { createClient } from 'redis';
import WebSocket from 'ws';

import { sharedNow, type Command, type Reply } from './protocol.js';

const POSITION_STRIDE = 1_000_000;

let received = 0;
let closedByServer = 0;
let latencies: number[] = [];
/** Key (masterchain seqno) of each latency, in the same order. */
let latencyKeys: number[] = [];
const published = new Map<number, number>();
/** Receipts whose publish time had not arrived yet: [key, receivedAt]. */
let waiting: Array<[number, number]> = [];
const closers: Array<() => void> = [];

function send(reply: Reply): void {
  process.send!(reply);
}

/** One received event with id `position`, at `at`. */
function receivedEvent(position: number, at: number): void {
  received++;
  const key = Math.floor(position / POSITION_STRIDE);
  const t = published.get(key);
  if (t === undefined) waiting.push([key, at]);
  else record(key, at - t);
}

function record(key: number, latency: number): void {
  latencies.push(latency);
  latencyKeys.push(key);
}

function openSse(url: string, accounts: string[], token?: string): Promise<void> {
  const query = `accounts=${accounts.length === 0 ? 'ALL' : accounts.join(',')}${token ? `&token=${token}` : ''}`;
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/v2/sse/accounts/transactions?${query}`, { agent: false }, (res) => {
      readSseEvents(req, res, 'event: message', Number, resolve, reject);
    });
    req.on('error', reject);
  });
}

/**
 * Reads an SSE answer's frames as they arrive, timing each `eventLine` frame by its `id:` (parsed by `idOf`);
 * resolves once the stream is open, rejects on a status other than 200.
 */
function readSseEvents(
  req: http.ClientRequest,
  res: http.IncomingMessage,
  eventLine: string,
  idOf: (id: string) => number,
  resolve: () => void,
  reject: (err: Error) => void,
): void {
  if (res.statusCode !== 200) {
    reject(new Error(`${req.path} answered ${res.statusCode}`));
    res.resume();
    return;
  }
  res.setEncoding('latin1');
  let carry = '';
  res.on('data', (chunk: string) => {
    const at = sharedNow();
    let text = carry + chunk;
    let end: number;
    while ((end = text.indexOf('\n\n')) >= 0) {
      if (text.startsWith(eventLine)) {
        const idAt = text.indexOf('id: ') + 4;
        receivedEvent(idOf(text.slice(idAt, text.indexOf('\n', idAt))), at);
      }
      text = text.slice(end + 2);
    }
    carry = text;
  });
  res.on('close', () => closedByServer++);
  closers.push(() => req.destroy());
  resolve();
}

function openWs(url: string, accounts: string[], token?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v2/websocket?event_ids=true${token ? `&token=${token}` : ''}`, { perMessageDeflate: false });
    let subscribed = false;
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'subscribe_account', params: accounts })));
    ws.on('message', (data: Buffer) => {
      const at = sharedNow();
      if (!subscribed) {
        subscribed = true;
        const reply = JSON.parse(data.toString());
        if (typeof reply.result === 'string' && reply.result.startsWith('success!')) resolve();
        else reject(new Error(`subscribe_account answered ${reply.result}`));
        return;
      }
      const i = data.indexOf('"event_id":"');
      if (i < 0) return;
      const start = i + 12;
      receivedEvent(Number(data.toString('latin1', start, data.indexOf(34, start))), at);
    });
    ws.on('close', () => {
      if (subscribed) closedByServer++;
    });
    ws.on('error', (err) => {
      if (!subscribed) reject(err);
    });
    closers.push(() => ws.terminate());
  });
}

/** Streaming v2 SSE: one POST whose body is the subscription; `event: event` frames carry `id: <position>.<kind>`. */
function openSseV2(url: string, accounts: string[], token?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ types: ['transactions'], addresses: accounts });
    const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
    const req = http.request(`${url}/streaming/v2/sse`, { method: 'POST', agent: false, headers }, (res) => {
      readSseEvents(req, res, 'event: event', Number.parseFloat, resolve, reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Streaming v2 WebSocket: a `subscribe` op asking for `event_ids`. */
function openWsV2(url: string, accounts: string[], token?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/streaming/v2/ws${token ? `?token=${token}` : ''}`, { perMessageDeflate: false });
    let subscribed = false;
    ws.on('open', () => ws.send(JSON.stringify({ operation: 'subscribe', id: 's', types: ['transactions'], addresses: accounts, event_ids: true })));
    ws.on('message', (data: Buffer) => {
      const at = sharedNow();
      if (!subscribed) {
        subscribed = true;
        const reply = JSON.parse(data.toString());
        if (reply.status === 'subscribed') resolve();
        else reject(new Error(`subscribe answered ${JSON.stringify(reply)}`));
        return;
      }
      const i = data.indexOf('"event_id":"');
      if (i < 0) return;
      const start = i + 12;
      receivedEvent(Number.parseFloat(data.toString('latin1', start, data.indexOf(34, start))), at);
    });
    ws.on('close', () => {
      if (subscribed) closedByServer++;
    });
    ws.on('error', (err) => {
      if (!subscribed) reject(err);
    });
    closers.push(() => ws.terminate());
  });
}

async function openRedis(url: string, accounts: string[]): Promise<void> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  // Redis carries no event id: the payload's lt is enough to count; latency is not measured here.
  await client.subscribe(accounts, () => {
    received++;
  });
  closers.push(() => void client.destroy());
}

async function connect(cmd: Extract<Command, { type: 'connect' }>): Promise<void> {
  const opens = { sse: openSse, ws: openWs, 'sse-v2': openSseV2, 'ws-v2': openWsV2, redis: openRedis };
  const open = opens[cmd.transport];
  let count = 0;
  let failed = 0;
  let firstError: string | undefined;
  // Waves keep the listen backlog and the event loop comfortable.
  const wave = 500;
  for (let i = 0; i < cmd.subscriptions.length; i += wave) {
    const results = await Promise.allSettled(cmd.subscriptions.slice(i, i + wave).map((accounts) => open(cmd.url, accounts, cmd.token)));
    for (const r of results) {
      if (r.status === 'fulfilled') count++;
      else {
        failed++;
        firstError ??= String(r.reason?.message ?? r.reason);
      }
    }
  }
  send({ type: 'connected', count, failed, firstError });
}

let lastReported = -1;
const ticker = setInterval(() => {
  if (received !== lastReported) {
    lastReported = received;
    send({ type: 'progress', received });
  }
}, 20);

// Orphaned (the benchmark died): leave instead of holding the runner's output open.
process.on('disconnect', () => process.exit(0));

process.on('message', (cmd: Command) => {
  switch (cmd.type) {
    case 'connect':
      void connect(cmd).catch((err) => send({ type: 'connected', count: 0, failed: cmd.subscriptions.length, firstError: String(err) }));
      break;
    case 'published': {
      for (const [key, t] of cmd.entries) published.set(key, t);
      const still: Array<[number, number]> = [];
      for (const [key, at] of waiting) {
        const t = published.get(key);
        if (t === undefined) still.push([key, at]);
        else record(key, at - t);
      }
      waiting = still;
      break;
    }
    case 'reset':
      received = 0;
      lastReported = -1;
      closedByServer = 0;
      latencies = [];
      latencyKeys = [];
      waiting = [];
      break;
    case 'report': {
      const maxKey = cmd.maxKey;
      const keep = (_: number, i: number) => maxKey === undefined || latencyKeys[i]! <= maxKey;
      send({ type: 'report', received, latencies: latencies.filter(keep), keys: latencyKeys.filter(keep), closedByServer });
      break;
    }
    case 'close':
      for (const close of closers.splice(0)) close();
      clearInterval(ticker);
      send({ type: 'closed' });
      setTimeout(() => process.exit(0), 200);
      break;
  }
});
