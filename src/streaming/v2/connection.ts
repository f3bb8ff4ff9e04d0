// One v2 client (SSE or WebSocket): its subscription, where it is in the log, the provisional traces
// it was told about (they may be withdrawn with `trace_invalidated`), and its transport's writes.
import type { V2Cursor } from './notices.js';
import { LAST_KIND } from './notices.js';
import type { V2Subscription } from './request.js';

export abstract class V2Connection {
  abstract readonly transport: 'sse-v2' | 'ws-v2';
  subscription: V2Subscription | null = null;
  /** The last finalized notification id considered for this client (sent or filtered out). */
  cursor: V2Cursor = { position: -1, kind: LAST_KIND, provisional: null };
  /** Replaying history: live batches are not for it yet (it reads them from the log). */
  replaying = false;
  /** Provisional traces it was sent, hex norm: a later invalidation is its business. */
  readonly provisionalTraces = new Set<string>();
  closed = false;
  lastWriteAt = Date.now();
  lastProgressAt = Date.now();
  lastBuffered = 0;

  /** Writes one notification; `id` is the event id (SSE `id:`; WS `event_id` when asked for). */
  abstract send(id: string, payload: Record<string, unknown>): void;
  abstract bufferedBytes(): number;
  abstract keepalive(): void;
  /** Tells the client it is too slow, then closes (never a silent drop). */
  abstract closeSlow(): void;
  abstract terminate(): void;
}
