// One v2 client (SSE or WebSocket): its subscription, where it is in the log, and its transport's writes.
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
  closed = false;
  lastWriteAt = Date.now();
  lastProgressAt = Date.now();
  lastBuffered = 0;
  /** The last write still waiting for its address book/metadata: later writes queue behind it (order per connection). */
  tail: Promise<void> | null = null;

  /** Writes one notification (its JSON object text); `id` is the event id (SSE `id:`; WS `event_id` when asked for). */
  abstract send(id: string, payload: string): void;
  abstract bufferedBytes(): number;
  /** Holds writes back until `uncork`: one block's notifications reach the socket in one write. */
  abstract cork(): void;
  abstract uncork(): void;
  abstract keepalive(): void;
  /** Tells the client it is too slow, then closes (never a silent drop). */
  abstract closeSlow(): void;
  abstract terminate(): void;
}
