// Hostile input against one member over loopback UDP: a flooding neighbour at ten times the configured
// message rate mixing valid broadcasts, bogus FEC parts of many broadcasts and raw garbage datagrams, while
// an honest neighbour keeps broadcasting. The honest messages all arrive, the flood is dropped and counted,
// and every structure the flood could grow stays within its bound. Then the decoders are fuzzed.
import { Address, beginCell, storeMessage } from '@ton/core';
import { randomBytes, randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { TLError, TLReader, tlWrite } from '../../liteserver/tl/codec.js';
import { identity } from '../adnl/crypto.js';
import { AdnlNode } from '../adnl/node.js';
import { decodePacketContents, encodePacketContents } from '../tl/adnl-types.js';
import { decodeValueResult } from '../tl/dht-types.js';
import {
  type OverlayBroadcast, decodeOverlayMessage, encodeExternalMessageBroadcast, encodeOverlayMessage, readBroadcast, shardOverlayKey, writeBroadcast,
} from '../tl/overlay-types.js';
import { BroadcastReceiver, DEFAULT_BROADCAST_LIMITS } from './broadcasts.js';
import { type ExternalMessage, OverlayMember } from './member.js';
import { signedFecParts, signedSimpleBroadcast } from './send.js';

const overlayKey = shardOverlayKey(0, -(1n << 63n), Buffer.alloc(32, 0x33));
const closing: AdnlNode[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((n) => n.close()));
});

async function node(): Promise<AdnlNode> {
  const n = await AdnlNode.listen();
  n.setPublicAddress(n.address);
  closing.push(n);
  return n;
}

function extMessage(bytes: number): Buffer {
  let body = beginCell().endCell();
  for (let left = bytes; left > 0; left -= 120) body = beginCell().storeBuffer(randomBytes(Math.min(120, left))).storeRef(body).endCell();
  return beginCell().store(storeMessage({ info: { type: 'external-in', dest: new Address(0, randomBytes(32)), importFee: 0n }, body })).endCell().toBoc();
}

const until = async (cond: () => boolean, ms = 8000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('overlay member under a flood', () => {
  it('keeps taking honest broadcasts, drops and counts the flood, and stays within its bounds', async () => {
    const rate = 20;
    const limits = { messagesPerSecond: rate, burst: rate, maxFecInFlight: 4 };
    const bAdnl = await node();
    const got: ExternalMessage[] = [];
    const b = new OverlayMember(bAdnl, { overlayKey, onExternalMessage: (m) => got.push(m), limits });
    const honestAdnl = await node();
    const honest = new OverlayMember(honestAdnl, { overlayKey, onExternalMessage: () => {} });
    const floodAdnl = await node();
    const flooder = new OverlayMember(floodAdnl, { overlayKey, onExternalMessage: () => {} });
    for (const m of [honest, flooder]) {
      m.addPeer(b.self(), bAdnl.address);
      await m.refreshPeers();
    }
    expect(b.peerCount).toBe(2);

    const bogus = Array.from({ length: 60 }, () => signedFecParts(identity(), encodeExternalMessageBroadcast(extMessage(1500)))[1]!);
    const raw = createSocket('udp4');
    const started = Date.now();
    const honestSent: Buffer[] = [];
    const seconds = 2;
    let floodMessages = 0;
    for (let tick = 0; tick < seconds * 10; tick++) {
      // honest: 2 messages per 100 ms, well under the limit
      for (let i = 0; i < 2; i++) {
        const boc = extMessage(64);
        honestSent.push(boc);
        honest.broadcastExternalMessage(boc);
      }
      // flood: ten times the rate, a third valid, a third FEC parts of ever new broadcasts, a third garbage
      for (let i = 0; i < rate; i++) {
        const kind = i % 3;
        if (kind === 0) flooder.broadcastExternalMessage(extMessage(32));
        else if (kind === 1) {
          floodAdnl.send(bAdnl.identity.id, encodeOverlayMessage(b.overlayId, bogus[(tick * rate + i) % bogus.length]!));
        } else raw.send(Buffer.concat([bAdnl.identity.id, randomBytes(randomInt(40, 1400))]), bAdnl.address.port, '127.0.0.1');
        if (kind !== 2) floodMessages++;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    raw.close();
    const elapsed = (Date.now() - started) / 1000;
    await until(() => honestSent.every((boc) => got.some((g) => g.boc.equals(boc))));
    const stats = b.receiver.stats;
    // the flooder got about its allowance (rate × elapsed + burst, with a second's margin), the rest was dropped and counted
    expect(stats.dropped['rate-limited']).toBeGreaterThanOrEqual(floodMessages - rate * (elapsed + 1) - limits.burst);
    // every datagram the kernel delivered was accounted for (loopback UDP may still lose a few under load)
    const accounted = stats.received + stats.fecParts + (stats.dropped['rate-limited'] ?? 0);
    expect(accounted).toBeLessThanOrEqual(honestSent.length + floodMessages);
    expect(accounted).toBeGreaterThan(0.9 * (honestSent.length + floodMessages));
    expect(bAdnl.stats.dropped.decrypt).toBeGreaterThan(0);
    expect(b.receiver.fecInFlight).toBeLessThanOrEqual(limits.maxFecInFlight);
    expect(b.peerCount).toBe(2);
    expect(bAdnl.peerCount).toBe(2);
  }, 20_000);
});

describe('decoders under fuzzing', () => {
  const me = identity();
  const samples: Buffer[] = [
    encodePacketContents({ rand1: randomBytes(7), from: { kind: 'ed25519', key: me.publicKey }, messages: [{ kind: 'custom', data: randomBytes(50) }], seqno: 1n, rand2: randomBytes(7) }),
    encodeOverlayMessage(Buffer.alloc(32), signedSimpleBroadcast(me, randomBytes(100))),
    encodeOverlayMessage(Buffer.alloc(32), signedFecParts(me, randomBytes(2000))[0]!),
  ];
  const mutate = (b: Buffer): Buffer => {
    const out = Buffer.from(b);
    for (let n = randomInt(1, 6); n > 0; n--) out[randomInt(out.length)] = randomInt(256);
    return randomInt(4) === 0 ? out.subarray(0, randomInt(out.length)) : out;
  };

  it('throw only TLError on mutated input, never anything else', () => {
    const decoders = [decodePacketContents, decodeOverlayMessage, decodeValueResult];
    for (let i = 0; i < 3000; i++) {
      const input = mutate(samples[i % samples.length]!);
      for (const d of decoders) {
        try {
          d(input);
        } catch (e) {
          if (!(e instanceof TLError)) throw new Error(`${d.name} threw ${(e as Error).name}: ${(e as Error).message}`);
        }
      }
    }
  });

  it('a receiver takes mutated broadcasts without throwing', () => {
    const receiver = new BroadcastReceiver(Buffer.alloc(32), { ...DEFAULT_BROADCAST_LIMITS, burst: 1e9 }, () => {});
    let parsed = 0;
    let unchanged = 0;
    for (let i = 0; i < 2000; i++) {
      let b: OverlayBroadcast;
      const sample = samples[1 + (i % 2)]!;
      const input = mutate(sample);
      try {
        b = readBroadcast(new TLReader(input.subarray(36)));
      } catch {
        continue;
      }
      parsed++;
      // mutations in the overlay id or in padding leave the broadcast itself as it was
      if (tlWrite((w) => writeBroadcast(w, b)).equals(sample.subarray(36))) unchanged++;
      receiver.receive(randomBytes(32), b);
    }
    expect(parsed).toBeGreaterThan(100);
    // only a mutation that left the broadcast as it was may still verify
    expect(receiver.stats.valid).toBeLessThanOrEqual(unchanged);
  });
});
