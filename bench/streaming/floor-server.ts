// The bare writer floor of bench/streaming.ts, run in its own process (see floor.ts): accepts SSE and
// WebSocket clients on the real server's paths with the same handshake, then per block writes prebuilt
// frames to randomly chosen connections, as many per connection (in one write) as the replay gave. No
// matching, no serialisation per recipient: what is left is the cost of the writes themselves, on this
// machine, as the same clients see it.
import http from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { POSITION_STRIDE } from '../../src/bus/events.js';
import { httpChunk, sseMessageFrame, wsNotification, wsTextFrame } from '../../src/streaming/frames.js';
import type { FloorCommand, FloorReply, FloorRun } from './floor.js';
import { sharedNow } from './protocol.js';

const SSE_PATH = '/v2/sse/accounts/transactions';
const WS_PATH = '/v2/websocket';

/** Open connections: the socket and whether it speaks WebSocket. */
const connections: Array<{ socket: Socket; ws: boolean }> = [];

function send(reply: FloorReply): void {
  process.send!(reply);
}

/** A frame of the real wire form (the same helpers the hub uses), padded to `bytes` on the wire. */
function paddedFrame(bytes: number, make: (payload: string) => Buffer): Buffer {
  const frame = (pad: number) => make(`{"pad":"${'x'.repeat(Math.max(0, pad))}"}`);
  let pad = bytes - frame(0).length;
  // The length prefix (chunk size, WebSocket length) may grow with the padding: correct once more.
  pad -= frame(pad).length - bytes;
  return frame(pad);
}

/** Writable from now on; forgotten once closed. */
function track(socket: Socket, ws: boolean, closes: { once(event: 'close', listener: () => void): unknown }): void {
  const entry = { socket, ws };
  connections.push(entry);
  closes.once('close', () => {
    const i = connections.indexOf(entry);
    if (i >= 0) connections.splice(i, 1);
  });
}

const server = http.createServer((req, res) => {
  if (req.method !== 'GET' || !req.url?.startsWith(`${SSE_PATH}?`)) {
    res.writeHead(404).end();
    return;
  }
  // The real server's SSE headers; frames then go straight to the socket as HTTP chunks, as there.
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'transfer-encoding': 'chunked' });
  res.flushHeaders();
  const socket = req.socket;
  socket.write(httpChunk(Buffer.from('event: heartbeat\n\n')));
  track(socket, false, res);
});

const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
server.on('upgrade', (req, duplex, head) => {
  const socket = duplex as Socket; // an http.Server's upgrade stream is its net.Socket
  if (!req.url?.startsWith(WS_PATH)) {
    socket.destroy();
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    // The clients send one subscribe_account and wait for a reply of the real server's form.
    ws.once('message', (data) => {
      const id = (JSON.parse(String(data)) as { id?: number }).id ?? null;
      ws.send(`{"id":${id},"jsonrpc":"2.0","method":"subscribe_account","result":"success! 1 new subscriptions created"}\n`);
      track(socket, true, ws);
    });
  });
});

async function run(options: FloorRun): Promise<void> {
  const started = performance.now();
  for (let b = 0; b < options.blocks; b++) {
    // On the block clock, like the timed replay source (no drift from the writes).
    const wait = started + b * options.blockMs - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const key = options.firstKey + b;
    const position = key * POSITION_STRIDE;
    const sse = paddedFrame(options.sseBytes, (p) => httpChunk(sseMessageFrame(position, p)));
    const ws = paddedFrame(options.wsBytes, (p) => wsTextFrame(wsNotification('account_transaction', p, position)));
    // k frames of a connection go in one write, as the hub writes a batch's frames to a connection
    const writes = options.byFrames.map(([k, n]) => ({ n, sse: Buffer.concat(Array(k).fill(sse)), ws: Buffer.concat(Array(k).fill(ws)) }));
    // Partial Fisher-Yates: the first `n` entries become a fresh random choice of distinct connections.
    const n = Math.min(writes.reduce((s, w) => s + w.n, 0), connections.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(Math.random() * (connections.length - i));
      [connections[i], connections[j]] = [connections[j]!, connections[i]!];
    }
    // Published now: the choice is made, what follows is only the writes.
    const at = sharedNow();
    const cpu = process.cpuUsage();
    let i = 0;
    for (const w of writes) {
      for (const end = Math.min(n, i + w.n); i < end; i++) {
        const c = connections[i]!;
        if (!c.socket.destroyed) c.socket.write(c.ws ? w.ws : w.sse);
      }
    }
    const used = process.cpuUsage(cpu);
    send({ type: 'published', entries: [[key, at]], writeMs: sharedNow() - at, writeCpuMs: (used.user + used.system) / 1000 });
  }
}

// Orphaned (the benchmark died): leave instead of holding the runner's output open.
process.on('disconnect', () => process.exit(0));

process.on('message', (cmd: FloorCommand) => {
  if (cmd.type === 'run') void run(cmd).then(() => send({ type: 'done' }));
  else {
    for (const c of connections) c.socket.destroy();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  }
});

server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const address = server.address();
  send({ type: 'listening', url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
});
