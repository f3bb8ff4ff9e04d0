// The parent's side of bench/streaming/clients.ts: a few client processes, commands to all of them,
// and the sum of what they received (for flow control and throughput).
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childExecArgv, type Command, type Reply, type Transport } from './protocol.js';

const CLIENTS = fileURLToPath(new URL('./clients.ts', import.meta.url));

class ClientProcess {
  readonly child: ChildProcess;
  received = 0;
  private waiters: Array<{ type: Reply['type']; resolve: (r: Reply) => void }> = [];

  constructor() {
    // tsx's loader flags come from the parent (the benchmark runs under tsx).
    this.child = fork(CLIENTS, [], { execArgv: childExecArgv(), serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('error', () => {}); // a send racing the child's exit; close() copes
    this.child.on('message', (reply: Reply) => {
      if (reply.type === 'progress') this.received = reply.received;
      const i = this.waiters.findIndex((w) => w.type === reply.type);
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(reply);
    });
  }

  send(cmd: Command): void {
    if (this.child.connected) this.child.send(cmd);
  }

  request<T extends Reply['type']>(cmd: Command, answer: T, timeoutMs = 120_000): Promise<Extract<Reply, { type: T }>> {
    if (!this.child.connected) return Promise.reject(new Error('client process is gone'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`client process did not answer ${cmd.type} in ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        type: answer,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r as Extract<Reply, { type: T }>);
        },
      });
      this.child.send(cmd);
    });
  }
}

export class ClientPool {
  private readonly processes: ClientProcess[];
  private closed = false;

  constructor(size: number) {
    this.processes = Array.from({ length: size }, () => new ClientProcess());
  }

  /** Connections spread evenly over the processes; resolves with how many opened. */
  async connect(transport: Transport, url: string, subscriptions: string[][], token?: string): Promise<{ count: number; failed: number; firstError?: string }> {
    const n = this.processes.length;
    const replies = await Promise.all(
      this.processes.map((p, i) => p.request({ type: 'connect', transport, url, token, subscriptions: subscriptions.filter((_, k) => k % n === i) }, 'connected')),
    );
    return {
      count: replies.reduce((s, r) => s + r.count, 0),
      failed: replies.reduce((s, r) => s + r.failed, 0),
      firstError: replies.find((r) => r.firstError)?.firstError,
    };
  }

  published(entries: Array<[number, number]>): void {
    for (const p of this.processes) p.send({ type: 'published', entries });
  }

  reset(): void {
    for (const p of this.processes) {
      p.received = 0;
      p.send({ type: 'reset' });
    }
  }

  /** Events received since the last reset, as last reported (every 20 ms). */
  received(): number {
    return this.processes.reduce((s, p) => s + p.received, 0);
  }

  /** Counts and latencies since the last reset, each latency's block key beside it; with `maxKey`, blocks up to that key only. */
  async report(maxKey?: number): Promise<{ received: number; latencies: number[]; keys: number[]; closedByServer: number }> {
    const replies = await Promise.all(this.processes.map((p) => p.request({ type: 'report', maxKey }, 'report')));
    return {
      received: replies.reduce((s, r) => s + r.received, 0),
      latencies: replies.flatMap((r) => r.latencies),
      keys: replies.flatMap((r) => r.keys),
      closedByServer: replies.reduce((s, r) => s + r.closedByServer, 0),
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.processes.map((p) => p.request({ type: 'close' }, 'closed', 10_000).catch(() => p.child.kill())));
    await Promise.all(this.processes.map((p) => (p.child.exitCode !== null ? null : new Promise((r) => p.child.once('exit', r)))));
  }
}

/** Waits until `cond` holds, polling; false when `ms` passed first. */
export async function until(cond: () => boolean, ms: number, pollMs = 5): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return true;
}
