// The client side of the churn benchmark (bench/churn.ts), in its own process so the server's memory
// is its own: `workers` loops, each opening and closing one connection after another — plain HTTP with
// `Connection: close`, a keep-alive connection carrying a few requests, an SSE stream read to its first
// frame, a WebSocket subscribed then closed (cleanly or cut), and a request cut mid-headers — until told to stop.
import http from 'node:http';
import net from 'node:net';
import WebSocket from 'ws';

export type ChurnKind = 'http-close' | 'http-keepalive' | 'sse' | 'websocket' | 'cut';
export const CHURN_KINDS: readonly ChurnKind[] = ['http-close', 'http-keepalive', 'sse', 'websocket', 'cut'];
export type ChurnCommand = { type: 'report' } | { type: 'stop' };
export type ChurnReply = { type: 'report' | 'stopped'; done: Record<ChurnKind, number>; errors: number; firstError: string | null };

const [url, key, workersArg] = process.argv.slice(2) as [string, string, string];
const target = new URL(url);
const auth = { authorization: `Bearer ${key}` };
const done = Object.fromEntries(CHURN_KINDS.map((k) => [k, 0])) as Record<ChurnKind, number>;
let errors = 0;
let firstError: string | null = null;
let stopping = false;
/** A fresh account per stream, so the server's subscription index adds and removes entries as it churns. */
let accountSeq = 0;
const nextAccount = () => `0:${(accountSeq++ % 1_000_000).toString(16).padStart(64, '0')}`;

function get(path: string, agent: http.Agent | false, headers: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: target.hostname, port: target.port, path, agent, headers: { ...auth, ...headers } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode && res.statusCode < 500 ? resolve() : reject(new Error(`GET ${path}: ${res.statusCode}`))));
    });
    req.on('error', reject);
  });
}

async function httpClose(): Promise<void> {
  await get('/healthz', false, { connection: 'close' });
}

async function httpKeepAlive(): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (const path of ['/healthz', '/readyz', '/webhooks', '/no/such/route']) await get(path, agent);
  } finally {
    agent.destroy();
  }
}

function sse(): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: target.hostname, port: target.port, path: `/v2/sse/accounts/transactions?accounts=${nextAccount()}`, agent: false, headers: auth }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE: ${res.statusCode}`));
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
  });
}

let wsClean = false;
function websocket(): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/v2/websocket?token=${key}`, { perMessageDeflate: false });
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, jsonrpc: '2.0', method: 'subscribe_account', params: [nextAccount()] })));
    ws.once('message', () => {
      // Half close with the closing handshake, half cut the socket.
      wsClean = !wsClean;
      if (wsClean) ws.close();
      else ws.terminate();
    });
    ws.on('close', () => resolve());
    ws.on('error', (err) => reject(err));
  });
}

/** A request whose headers never finish: the connection is cut after a moment. */
function cut(): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(target.port), target.hostname, () => {
      socket.write(`GET /healthz HTTP/1.1\r\nHost: ${target.host}\r\nX-Partial: `);
      setTimeout(() => socket.destroy(), 5);
    });
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

const RUN: Record<ChurnKind, () => Promise<void>> = { 'http-close': httpClose, 'http-keepalive': httpKeepAlive, sse, websocket, cut };

async function worker(offset: number): Promise<void> {
  for (let i = offset; !stopping; i++) {
    const kind = CHURN_KINDS[i % CHURN_KINDS.length]!;
    try {
      await RUN[kind]();
      done[kind]++;
    } catch (err) {
      errors++;
      firstError ??= `${kind}: ${err instanceof Error ? err.message : String(err)}`;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const workers = Array.from({ length: Number(workersArg) }, (_v, i) => worker(i));
process.on('message', (cmd: ChurnCommand) => {
  if (cmd.type === 'report') process.send!({ type: 'report', done, errors, firstError } satisfies ChurnReply);
  else {
    stopping = true;
    void Promise.allSettled(workers).then(() => process.send!({ type: 'stopped', done, errors, firstError } satisfies ChurnReply, () => process.exit(0)));
  }
});
