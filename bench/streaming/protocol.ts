// Messages between bench/streaming.ts and its client processes (bench/streaming/clients.ts), and
// the clock they share. Kept apart from clients.ts, whose module body runs the client.
import { YOUNG_GENERATION_FLAGS } from '../../src/streaming/quiet-gc.js';

/** `sse-v2` / `ws-v2`: Streaming v2 (POST /streaming/v2/sse, /streaming/v2/ws). */
export type Transport = 'sse' | 'ws' | 'sse-v2' | 'ws-v2' | 'redis';

export type Command =
  /** Opens one connection per entry of `subscriptions` (account lists); answers `connected`. */
  | { type: 'connect'; transport: Transport; url: string; subscriptions: string[][]; token?: string }
  /** When the events of each key (masterchain seqno) were published, in ms on the shared clock. */
  | { type: 'published'; entries: Array<[number, number]> }
  /** Starts counting and measuring afresh. */
  | { type: 'reset' }
  /** Answers `report` with the counts and latencies since the last reset (latencies of keys up to `maxKey` only, when given). */
  | { type: 'report'; maxKey?: number }
  | { type: 'close' };

export type Reply =
  | { type: 'connected'; count: number; failed: number; firstError?: string }
  | { type: 'progress'; received: number }
  | { type: 'report'; received: number; latencies: number[]; keys: number[]; closedByServer: number }
  | { type: 'closed' };

/**
 * Flags for the client and floor processes: the parent's loader flags (tsx), without the ones for the
 * server the parent runs (memory samples' --expose-gc, the server's young generation).
 */
export function childExecArgv(): string[] {
  return process.execArgv.filter((a) => a !== '--expose-gc' && !YOUNG_GENERATION_FLAGS.includes(a));
}

/** Milliseconds on a clock that every process on the machine shares. */
export const sharedNow = () => performance.timeOrigin + performance.now();
