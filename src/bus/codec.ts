// Event payloads are stored with V8's structured-clone serialisation: exact for bigint,
// compact, and several times faster than JSON with revivers.
import v8 from 'node:v8';
import type { ChainEvent } from './events.js';

export function encodeEvents(events: ChainEvent[]): Buffer {
  return v8.serialize(events);
}

export function decodeEvents(payload: Uint8Array): ChainEvent[] {
  return v8.deserialize(payload) as ChainEvent[];
}
