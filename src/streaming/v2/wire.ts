// A notification's bytes on each transport, built once per tick however many connections write it: the
// hub hands every subscriber of one address the same payload text (shared.ts), so the SSE frame (as an
// HTTP chunk) or the WebSocket text frame is encoded once and the same Buffer goes to each socket, as
// the legacy streams write their prebuilt frames (../frames.ts).
import { httpChunkOf, wsTextFrameOf } from '../frames.js';

interface Entry {
  id: string;
  bytes: Buffer;
}

/** One cache per wire form, by payload text (V8 keeps a string's hash: a repeated lookup of one text is cheap). */
class TickCache {
  private readonly entries = new Map<string, Entry>();
  private clearing = false;

  get(id: string, payload: string, make: () => Buffer): Buffer {
    const hit = this.entries.get(payload);
    if (hit !== undefined && hit.id === id) return hit.bytes;
    const bytes = make();
    this.entries.set(payload, { id, bytes });
    if (!this.clearing) {
      // forgotten once the tick ends: the bytes are in the sockets' buffers by then
      this.clearing = true;
      setImmediate(() => {
        this.clearing = false;
        this.entries.clear();
      });
    }
    return bytes;
  }
}

const sseChunks = new TickCache();
const sseFrames = new TickCache();
const wsWithIds = new TickCache();
const wsPlain = new TickCache();
const wsFramesWithIds = new TickCache();
const wsFramesPlain = new TickCache();

const sseText = (id: string, payload: string) => `event: event\nid: ${id}\ndata: ${payload}\n\n`;
/** The notification's JSON, with `event_id` as its last field when the client asked for ids. */
const wsText = (id: string, payload: string, eventIds: boolean) => (eventIds ? `${payload.slice(0, -1)},"event_id":${JSON.stringify(id)}}` : payload);

/** `event: event` with the notification's id and its JSON as data: as an HTTP/1.1 chunk, or bare (HTTP/1.0). */
export function sseEvent(id: string, payload: string, chunked: boolean): Buffer {
  return chunked ? sseChunks.get(id, payload, () => httpChunkOf(sseText(id, payload))) : sseFrames.get(id, payload, () => Buffer.from(sseText(id, payload)));
}

/** The WebSocket notification: a complete text frame (`framed`, for the socket), or its text for ws.send. */
export function wsEvent(id: string, payload: string, eventIds: boolean, framed: boolean): Buffer {
  if (framed) return (eventIds ? wsFramesWithIds : wsFramesPlain).get(id, payload, () => wsTextFrameOf(wsText(id, payload, eventIds)));
  return (eventIds ? wsWithIds : wsPlain).get(id, payload, () => Buffer.from(wsText(id, payload, eventIds)));
}
