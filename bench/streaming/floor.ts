// The parent's side of bench/streaming/floor-server.ts: a bare writer in its own process that the same
// client processes connect to as to the real server, to measure what the machine's writes alone cost.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childExecArgv } from './protocol.js';

const FLOOR_SERVER = fileURLToPath(new URL('./floor-server.ts', import.meta.url));

export interface FloorRun {
  /** Blocks to write, one every `blockMs`. */
  blocks: number;
  blockMs: number;
  /**
   * Connections written per block (chosen at random each block), by frames each: [k, n] = n connections
   * get k frames in one write, as the hub writes a connection's frames of a batch.
   */
  byFrames: Array<[frames: number, connections: number]>;
  /** Bytes of the SSE frame (as an HTTP chunk) and of the WebSocket frame, as on the wire. */
  sseBytes: number;
  wsBytes: number;
  /** Key (event id / POSITION_STRIDE) of the first block; the clients map keys to publish times. */
  firstKey: number;
}

export type FloorCommand = ({ type: 'run' } & FloorRun) | { type: 'close' };
export type FloorReply =
  | { type: 'listening'; url: string }
  /** A block written: when (its key, published at), and how long its writes took in the floor's process (wall, CPU). */
  | { type: 'published'; entries: Array<[number, number]>; writeMs: number; writeCpuMs: number }
  | { type: 'done' };

export interface FloorServer {
  url: string;
  /** Called with [key, published at] entries as the blocks are written. */
  onPublished(listener: (entries: Array<[number, number]>) => void): void;
  /** Per block written so far: ms from the choice made to the last write handed to the kernel. */
  readonly writeMs: number[];
  /** Per block written so far: the floor process's CPU ms in those writes. */
  readonly writeCpuMs: number[];
  /** Resolves once the last block is written. */
  run(options: FloorRun): Promise<void>;
  close(): Promise<void>;
}

export async function startFloorServer(): Promise<FloorServer> {
  // Forked like the client processes: tsx's loader flags come from the parent.
  const child: ChildProcess = fork(FLOOR_SERVER, [], { execArgv: childExecArgv(), serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.on('error', () => {}); // a send racing the child's exit; close() copes
  let listener: (entries: Array<[number, number]>) => void = () => {};
  let done: (() => void) | null = null;
  const writeMs: number[] = [];
  const writeCpuMs: number[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`floor server exited with ${code} before listening`)));
    child.on('message', (reply: FloorReply) => {
      if (reply.type === 'listening') resolve(reply.url);
      else if (reply.type === 'published') {
        writeMs.push(reply.writeMs);
        writeCpuMs.push(reply.writeCpuMs);
        listener(reply.entries);
      }
      else done?.();
    });
  });
  return {
    url,
    writeMs,
    writeCpuMs,
    onPublished: (l) => {
      listener = l;
    },
    run: (options) =>
      new Promise<void>((resolve) => {
        done = resolve;
        child.send({ type: 'run', ...options } satisfies FloorCommand);
      }),
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      if (child.connected) child.send({ type: 'close' } satisfies FloorCommand);
      const timer = setTimeout(() => child.kill(), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
