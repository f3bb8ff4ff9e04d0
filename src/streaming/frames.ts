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

/** The chunk of a text, cut from the frame slab (the fan-out's hot path: no byte count first, no Buffer in between). */
export function httpChunkOf(text: string): Buffer {
  const at = frameSpace(text, 2);
  const out = space;
  const from = at + HEAD_ROOM;
  const end = from + out.write(text, from);
  // the head goes in front of the text now that its byte count is known: hex digits, then CRLF
  let start = from - 2;
  out[start] = 0x0d;
  out[start + 1] = 0x0a;
  let n = end - from;
  do {
    out[--start] = HEX_DIGITS[n & 15]!;
    n >>>= 4;
  } while (n > 0);
  out[end] = 0x0d;
  out[end + 1] = 0x0a;
  return taken(out, start, end + 2);
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

/** The frame of a text, cut from the frame slab like httpChunkOf. */
export function wsTextFrameOf(text: string): Buffer {
  const at = frameSpace(text, 0);
  const out = space;
  const from = at + HEAD_ROOM;
  const end = from + out.write(text, from);
  const start = from - wsHeadLength(end - from);
  writeWsHead(out, end - from, start);
  return taken(out, start, end);
}

// Frames are cut from 16 KB slabs, as Buffer.allocUnsafe cuts small buffers from Node's 8 KB pool (and,
// like it, a frame a slow socket still holds keeps its slab alive): the text is written once, after room
// for the longest head, and the head, whose length depends on the text's byte count, goes in front of it.
const SLAB_BYTES = 16 * 1024;
/** Room in front of a frame's text for its longest head: 8 hex digits and CRLF, or a 10-byte WebSocket head. */
const HEAD_ROOM = 10;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
let slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
let slabUsed = 0;
/** Where frameSpace put the frame being built: the slab, or a buffer of its own for a large one. */
let space = slab;

/** Makes room for the frame of `text` (head room, the text, `tail` bytes) and returns its offset in `space`. */
function frameSpace(text: string, tail: number): number {
  // UTF-8 takes at most 3 bytes per UTF-16 unit: enough room without counting the bytes first
  const most = HEAD_ROOM + text.length * 3 + tail;
  if (most > SLAB_BYTES / 4) {
    // a large frame gets a buffer of its exact size, so the slab's room is not spent on it
    space = Buffer.allocUnsafe(HEAD_ROOM + Buffer.byteLength(text) + tail);
    return 0;
  }
  if (slabUsed + most > SLAB_BYTES) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabUsed = 0;
  }
  space = slab;
  return slabUsed;
}

/** The frame's bytes `out[start, end)`; the slab's free space starts after them. */
function taken(out: Buffer, start: number, end: number): Buffer {
  if (out === slab) slabUsed = end;
  return out.subarray(start, end);
}

function wsHeadLength(n: number): number {
  return n < 126 ? 2 : n < 65_536 ? 4 : 10;
}

/** Writes the head of an unmasked text frame of `n` payload bytes at `at`; returns its length. */
function writeWsHead(out: Buffer, n: number, at = 0): number {
  out[at] = 0x81;
  if (n < 126) {
    out[at + 1] = n;
    return 2;
  }
  if (n < 65_536) {
    out[at + 1] = 126;
    out.writeUInt16BE(n, at + 2);
    return 4;
  }
  out[at + 1] = 127;
  out.writeBigUInt64BE(BigInt(n), at + 2);
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
