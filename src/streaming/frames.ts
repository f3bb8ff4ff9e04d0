// Wire forms of stream events (compat.md §2, §3). An event is serialised once: the JSON payload,
// the SSE frame and the WebSocket notification are built on first use and shared, as the same
// Buffer, by every connection that receives the event.
import type { BlockHeader, PendingMessage, TraceModel, TransactionModel } from '../chain/model.js';
import type { ChainEvent, ChainEventType, Position } from '../bus/events.js';

/** Mempool payload variant: plain `{"boc"}` or with `involved_accounts` (subscriptions with an accounts filter). */
export const PLAIN = 0;
export const WITH_INVOLVED = 1;
export type PayloadVariant = typeof PLAIN | typeof WITH_INVOLVED;

export const HEARTBEAT_FRAME = Buffer.from('event: heartbeat\n\n');
/** `?heartbeat=data`: a data line makes browsers dispatch it, so a watchdog can see it. */
export const HEARTBEAT_DATA_FRAME = Buffer.from('event: heartbeat\ndata: {}\n\n');
export const SLOW_CONSUMER_ERROR = '{"error":"slow consumer"}';
export const SSE_SLOW_CONSUMER_FRAME = Buffer.from(`event: error\ndata: ${SLOW_CONSUMER_ERROR}\n\n`);
export const WS_SLOW_CONSUMER_FRAME = Buffer.from(`{"jsonrpc":"2.0","method":"error","params":${SLOW_CONSUMER_ERROR}}\n`);

/**
 * An HTTP/1.1 chunk (`<hex length>\r\n<data>\r\n`). SSE streams write their chunks straight to the
 * socket, so the chunk framing is built once per event too, not once per recipient.
 */
export function httpChunk(data: Buffer): Buffer {
  const head = Buffer.from(`${data.length.toString(16)}\r\n`, 'latin1');
  const out = Buffer.allocUnsafe(head.length + data.length + 2);
  head.copy(out, 0);
  data.copy(out, head.length);
  out[out.length - 2] = 0x0d;
  out[out.length - 1] = 0x0a;
  return out;
}

/** The chunk of a text, built in one allocation (the fan-out's hot path: no intermediate Buffer). */
export function httpChunkOf(text: string): Buffer {
  const n = Buffer.byteLength(text);
  const head = `${n.toString(16)}\r\n`;
  const out = Buffer.allocUnsafe(head.length + n + 2);
  out.write(head, 0, 'latin1');
  out.write(text, head.length, 'utf8');
  out[out.length - 2] = 0x0d;
  out[out.length - 1] = 0x0a;
  return out;
}

/**
 * A complete WebSocket text frame (RFC 6455 §5.2: FIN, opcode 1, no mask — a server never masks), so
 * every recipient gets the same bytes and no per-recipient framing is done.
 */
export function wsTextFrame(payload: Buffer): Buffer {
  const n = payload.length;
  const out = Buffer.allocUnsafe(wsHeadLength(n) + n);
  payload.copy(out, writeWsHead(out, n));
  return out;
}

/** The frame of a text, built in one allocation. */
export function wsTextFrameOf(text: string): Buffer {
  const n = Buffer.byteLength(text);
  const out = Buffer.allocUnsafe(wsHeadLength(n) + n);
  out.write(text, writeWsHead(out, n), 'utf8');
  return out;
}

function wsHeadLength(n: number): number {
  return n < 126 ? 2 : n < 65_536 ? 4 : 10;
}

/** Writes the head of an unmasked text frame of `n` payload bytes; returns its length. */
function writeWsHead(out: Buffer, n: number): number {
  out[0] = 0x81;
  if (n < 126) {
    out[1] = n;
    return 2;
  }
  if (n < 65_536) {
    out[1] = 126;
    out.writeUInt16BE(n, 2);
    return 4;
  }
  out[1] = 127;
  out.writeBigUInt64BE(BigInt(n), 2);
  return 10;
}

/** JSON-RPC notification method of each event type. */
export const WS_METHOD: Record<ChainEventType, string> = {
  block: 'block',
  transaction: 'account_transaction',
  trace: 'trace',
  mempool: 'mempool_message',
};

export function blockPayload(b: BlockHeader): string {
  return `{"workchain":${b.workchain},"shard":${JSON.stringify(b.shard)},"seqno":${b.seqno},"root_hash":${JSON.stringify(b.rootHash)},"file_hash":${JSON.stringify(b.fileHash)}}`;
}

/** `lt` is a u64 emitted as a JSON integer, as the original does. */
export function transactionPayload(tx: TransactionModel): string {
  // raw account ids and hex hashes need no JSON escaping (the chain model normalises both)
  return `{"account_id":"${tx.account}","lt":${tx.lt.toString()},"tx_hash":"${tx.hash}"}`;
}

export function tracePayload(trace: TraceModel): string {
  return `{"accounts":${JSON.stringify(trace.accounts)},"hash":${JSON.stringify(trace.hash)}}`;
}

/** Accounts a pending message involves; the destination alone when the source could not emulate it. */
export function involvedAccounts(message: PendingMessage): string[] {
  return message.involvedAccounts ?? [message.destination];
}

export function mempoolPayload(message: PendingMessage, variant: PayloadVariant): string {
  const boc = `{"boc":${JSON.stringify(message.boc)}`;
  if (variant === PLAIN) return `${boc}}`;
  return `${boc},"involved_accounts":${JSON.stringify(involvedAccounts(message))}}`;
}

export function eventPayload(event: ChainEvent, variant: PayloadVariant): string {
  switch (event.type) {
    case 'block':
      return blockPayload(event.block);
    case 'transaction':
      return transactionPayload(event.tx);
    case 'trace':
      return tracePayload(event.trace);
    case 'mempool':
      return mempoolPayload(event.message, variant);
  }
}

export function sseMessageFrame(position: Position, payload: string): Buffer {
  return Buffer.from(sseMessageText(position, payload));
}

function sseMessageText(position: Position, payload: string): string {
  return `event: message\nid: ${position}\ndata: ${payload}\n\n`;
}

/** The original's notifications end with a newline (Go's json.Encoder); kept for byte compatibility. */
export function wsNotification(method: string, payload: string, eventId: Position | null): Buffer {
  return Buffer.from(wsNotificationText(method, payload, eventId));
}

function wsNotificationText(method: string, payload: string, eventId: Position | null): string {
  const id = eventId === null ? '' : `"event_id":"${eventId}",`;
  return `{"jsonrpc":"2.0","method":"${method}",${id}"params":${payload}}\n`;
}

/** `event: gap` says history after `lastEventId` is gone; its id lets a reconnect continue after it. */
export function sseGapFrame(lastEventId: Position | string, firstAvailable: Position): Buffer {
  return Buffer.from(`event: gap\nid: ${firstAvailable - 1}\ndata: ${gapPayload(lastEventId, firstAvailable)}\n\n`);
}

export function wsGapNotification(lastEventId: Position | string, firstAvailable: Position): Buffer {
  return Buffer.from(`{"jsonrpc":"2.0","method":"gap","params":${gapPayload(lastEventId, firstAvailable)}}\n`);
}

function gapPayload(lastEventId: Position | string, firstAvailable: Position): string {
  return `{"error":"history gap","last_event_id":${JSON.stringify(String(lastEventId))},"first_available_id":"${firstAvailable}"}`;
}

/** A JSON-RPC reply: `result` is always a string, also for errors (compat.md §3). */
export function wsReply(id: number | null, method: string, result: string): string {
  return `{"id":${id === null ? 'null' : id},"jsonrpc":"2.0","method":${JSON.stringify(method)},"result":${JSON.stringify(result)}}\n`;
}

/** Slots of PreparedEvent's forms (see there). */
const FORM_SLOTS = 14;

/**
 * One event with its wire forms, built on first use. Slots of `forms`: payload [variant], SSE frame
 * [2 + variant], SSE chunk [4 + variant], WebSocket notification [6 + variant * 2 + withEventId],
 * WebSocket frame [10 + variant * 2 + withEventId]. The dispatcher reuses one PreparedEvent for every
 * event (`reset`): a fan-out of thousands of events allocates their frames and nothing else.
 */
export class PreparedEvent {
  private readonly forms: Array<string | Buffer | undefined> = new Array<undefined>(FORM_SLOTS).fill(undefined);
  /** Whether a form of the current event is cached (reset then clears them). */
  private used = false;
  private current: ChainEvent;

  constructor(event: ChainEvent) {
    this.current = event;
  }

  /** Starts over with `event`; frames handed out before stay valid (they are the recipients' now). */
  reset(event: ChainEvent): this {
    this.current = event;
    if (this.used) {
      this.forms.fill(undefined);
      this.used = false;
    }
    return this;
  }

  /** Drops the cached forms, so an idle PreparedEvent keeps no frame alive. */
  release(): void {
    this.reset(this.current);
  }

  get event(): ChainEvent {
    return this.current;
  }

  get position(): Position {
    return this.current.position;
  }

  payload(variant: PayloadVariant): string {
    return (this.forms[variant] ?? this.keep(variant, eventPayload(this.current, variant))) as string;
  }

  sseFrame(variant: PayloadVariant): Buffer {
    const slot = 2 + variant;
    return (this.forms[slot] ?? this.keep(slot, sseMessageFrame(this.current.position, this.payload(variant)))) as Buffer;
  }

  /** The SSE frame as an HTTP chunk, ready for the socket (one allocation: no frame Buffer in between). */
  sseChunk(variant: PayloadVariant): Buffer {
    const slot = 4 + variant;
    return (this.forms[slot] ?? this.keep(slot, httpChunkOf(sseMessageText(this.current.position, this.payload(variant))))) as Buffer;
  }

  /** The JSON-RPC notification (the WebSocket message's payload). */
  wsFrame(variant: PayloadVariant, withEventId: boolean): Buffer {
    const slot = 6 + variant * 2 + (withEventId ? 1 : 0);
    const event = this.current;
    return (this.forms[slot] ??
      this.keep(slot, wsNotification(WS_METHOD[event.type], this.payload(variant), withEventId ? event.position : null))) as Buffer;
  }

  /** The notification as a complete WebSocket frame, ready for the socket (one allocation). */
  wsWire(variant: PayloadVariant, withEventId: boolean): Buffer {
    const slot = 10 + variant * 2 + (withEventId ? 1 : 0);
    const event = this.current;
    return (this.forms[slot] ??
      this.keep(slot, wsTextFrameOf(wsNotificationText(WS_METHOD[event.type], this.payload(variant), withEventId ? event.position : null)))) as Buffer;
  }

  private keep<T extends string | Buffer>(slot: number, form: T): T {
    this.forms[slot] = form;
    this.used = true;
    return form;
  }
}
