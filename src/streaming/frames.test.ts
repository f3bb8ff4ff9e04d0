// The wire forms cut from the frame slab are byte for byte the ones built in two steps (frame, then
// chunk or WebSocket framing), for every length class of RFC 6455 and for non-ASCII text, and stay so
// while later frames fill the slab and the next ones.
import { describe, expect, it } from 'vitest';
import { account, hashOf } from '../../test/support/model.js';
import { makePosition, type ChainEvent } from '../bus/events.js';
import { PLAIN, PreparedEvent, WITH_INVOLVED, httpChunk, httpChunkOf, sseMessageFrame, wsNotification, wsTextFrame, wsTextFrameOf } from './frames.js';

const mempool = (boc: string): ChainEvent => ({
  type: 'mempool',
  position: makePosition(7, 500_001),
  mcSeqno: 7,
  message: { hash: hashOf('m'), boc, destination: account(1), receivedAt: 1, involvedAccounts: [account(1), account(2)] },
});

describe('PreparedEvent wire forms', () => {
  it('equal the two-step frames for short, 16-bit and 64-bit lengths and non-ASCII text', () => {
    for (const boc of ['te6cc', 'x'.repeat(200), 'y'.repeat(70_000), 'é€'.repeat(50)]) {
      const event = mempool(boc);
      for (const variant of [PLAIN, WITH_INVOLVED] as const) {
        const prepared = new PreparedEvent(event);
        const payload = prepared.payload(variant);
        expect(prepared.sseChunk(variant).equals(httpChunk(sseMessageFrame(event.position, payload)))).toBe(true);
        for (const withId of [false, true]) {
          const two = wsTextFrame(wsNotification('mempool_message', payload, withId ? event.position : null));
          expect(prepared.wsWire(variant, withId).equals(two), `${boc.length} ${variant} ${withId}`).toBe(true);
        }
      }
    }
  });

  it('keeps every frame intact while thousands more are cut after it, of every size class', () => {
    // sizes that end the slab at many offsets, a few of their own (5,000+ chars), empty and multi-byte texts
    const texts = Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? 'é'.repeat(i % 300) : 'a'.repeat((i * 37) % 1200)) + (i % 500 === 0 ? 'z'.repeat(5000) : ''));
    const built = texts.map((t, i) => (i % 2 === 0 ? httpChunkOf(t) : wsTextFrameOf(t)));
    texts.forEach((t, i) => {
      const expected = i % 2 === 0 ? httpChunk(Buffer.from(t)) : wsTextFrame(Buffer.from(t));
      expect(built[i]!.equals(expected), `frame ${i} of ${t.length} chars`).toBe(true);
    });
  });
});
