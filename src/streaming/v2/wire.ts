// A notification's bytes on each transport, encoded once per tick however many connections write it:
// the hub hands every subscriber of one address the same payload text (shared.ts), so the SSE frame or
// WebSocket text is built and UTF-8 encoded once and the same Buffer goes to each socket.

interface Entry {
  id: string;
  bytes: Buffer;
}

/** Per transport form, by payload text (V8 keeps a string's hash: a repeated lookup of one text is cheap). */
const sse = new Map<string, Entry>();
const wsWithId = new Map<string, Entry>();
const wsPlain = new Map<string, Buffer>();
let clearing = false;

/** Forgets the tick's encodings once it ends (they are in the sockets' buffers by then). */
function clearLater(): void {
  if (clearing) return;
  clearing = true;
  setImmediate(() => {
    clearing = false;
    sse.clear();
    wsWithId.clear();
    wsPlain.clear();
  });
}

function cached(map: Map<string, Entry>, id: string, payload: string, make: () => string): Buffer {
  const hit = map.get(payload);
  if (hit !== undefined && hit.id === id) return hit.bytes;
  const bytes = Buffer.from(make());
  map.set(payload, { id, bytes });
  clearLater();
  return bytes;
}

/** `event: event` with the notification's id and its JSON as data. */
export const sseEventFrame = (id: string, payload: string): Buffer => cached(sse, id, payload, () => `event: event\nid: ${id}\ndata: ${payload}\n\n`);

/** The notification's JSON, with `event_id` as its last field when the client asked for ids. */
export function wsEventText(id: string, payload: string, eventIds: boolean): Buffer {
  if (eventIds) return cached(wsWithId, id, payload, () => `${payload.slice(0, -1)},"event_id":${JSON.stringify(id)}}`);
  let bytes = wsPlain.get(payload);
  if (bytes === undefined) {
    wsPlain.set(payload, (bytes = Buffer.from(payload)));
    clearLater();
  }
  return bytes;
}
