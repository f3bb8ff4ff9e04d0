// A Streaming v2 client written only from the documentation (docs/STREAMING.md "v2", docs.ton.org's SSE
// and WebSocket pages): SSE over fetch (v2 SSE is a POST, which EventSource cannot send) with
// reconnection by Last-Event-ID, and WebSocket with the `ws` package. No server code is imported.
import WebSocket from 'ws';

export interface V2Event {
  /** The SSE `event:` name (`connected`, `event`, `error`) or `ws`. */
  event: string;
  id: string | undefined;
  data: Record<string, unknown>;
}

/** Parses complete SSE frames out of `buffer`; returns them and the unparsed rest. Lines starting with `:` are comments. */
export function parseSse(buffer: string): { frames: Array<{ event: string; id?: string; data: string }>; rest: string } {
  const frames: Array<{ event: string; id?: string; data: string }> = [];
  let at: number;
  while ((at = buffer.indexOf('\n\n')) >= 0) {
    const block = buffer.slice(0, at);
    buffer = buffer.slice(at + 2);
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) frames.push({ event, id, data: data.join('\n') });
  }
  return { frames, rest: buffer };
}

export interface SseSession {
  status: number;
  /** Resolves when the stream ends (server close or abort). */
  done: Promise<void>;
  abort(): void;
}

/**
 * Opens one SSE subscription: POST `url` with the subscription as JSON; `lastEventId` resumes. Calls
 * `onEvent` per frame, `onComment` per `:` line. Resolves once the response headers arrived.
 */
export async function openSse(
  url: string,
  subscription: Record<string, unknown>,
  handlers: { onEvent: (e: V2Event) => void; onComment?: (text: string) => void },
  options: { lastEventId?: string; headers?: Record<string, string> } = {},
): Promise<SseSession & { error?: unknown }> {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(options.lastEventId ? { 'last-event-id': options.lastEventId } : {}), ...options.headers },
    body: JSON.stringify(subscription),
    signal: controller.signal,
  });
  if (res.status !== 200) {
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, done: Promise.resolve(), abort: () => undefined, error: body };
  }
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const done = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) return;
        buffer += value;
        for (const line of buffer.split('\n')) if (line.startsWith(':')) handlers.onComment?.(line);
        const parsed = parseSse(buffer);
        buffer = parsed.rest;
        for (const f of parsed.frames) handlers.onEvent({ event: f.event, id: f.id, data: JSON.parse(f.data) as Record<string, unknown> });
      }
    } catch {
      // aborted or reset: the caller reconnects with its last id
    }
  })();
  return { status: 200, done, abort: () => controller.abort() };
}

export interface WsSession {
  ws: WebSocket;
  /** Sends one operation and resolves with the reply that echoes its `id`. */
  request(op: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Every message that is not a reply to a request (notifications). */
  notifications: Array<Record<string, unknown>>;
  close(): void;
}

export async function openWs(url: string, headers: Record<string, string> = {}): Promise<WsSession> {
  const ws = new WebSocket(url, { headers });
  await new Promise<void>((ok, fail) => {
    ws.once('open', ok);
    ws.once('error', fail);
  });
  const waiting = new Map<string, (reply: Record<string, unknown>) => void>();
  const notifications: Array<Record<string, unknown>> = [];
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString()) as Record<string, unknown>;
    const id = typeof msg.id === 'string' ? msg.id : undefined;
    if (id && waiting.has(id) && ('status' in msg || 'error' in msg)) {
      waiting.get(id)!(msg);
      waiting.delete(id);
    } else notifications.push(msg);
  });
  let n = 0;
  return {
    ws,
    notifications,
    request: (op) =>
      new Promise((ok) => {
        const id = typeof op.id === 'string' ? op.id : `req-${++n}`;
        waiting.set(id, ok);
        ws.send(JSON.stringify({ ...op, id }));
      }),
    close: () => ws.close(),
  };
}
