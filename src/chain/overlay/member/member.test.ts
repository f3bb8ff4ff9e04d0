// Overlay members over real UDP on loopback: peers exchanged with overlay.getRandomPeers, the queries a
// member must answer, external messages broadcast simple and by FEC and handed over once as message BoCs,
// a member found through the DHT, and forged, stale, oversized or flooding broadcasts refused and counted.
import { Address, beginCell, storeMessage } from '@ton/core';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { identity, sha256, signEd25519 } from '../adnl/crypto.js';
import { AdnlNode } from '../adnl/node.js';
import { DhtClient } from '../dht/client.js';
import { DhtServer } from '../dht/server.js';
import { overlayNodesValue, signedAddressValue } from '../dht/values.js';
import {
  broadcastToSign, decodeCapabilities, encodeExternalMessageBroadcast, encodeGetRandomPeers, encodeOverlayMessage, encodeOverlayNodes, encodeOverlayQuery,
  fecBroadcastHash, fecPartHash, shardOverlayKey,
} from '../tl/overlay-types.js';
import { ID } from '../tl/schema.js';
import { tlWrite } from '../../liteserver/tl/codec.js';
import { type ExternalMessage, OverlayMember, type OverlayMemberOptions } from './member.js';
import { signedFecParts, signedSimpleBroadcast } from './send.js';

const overlayKey = shardOverlayKey(0, -(1n << 63n), Buffer.alloc(32, 0x5a));
const closing: AdnlNode[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((n) => n.close()));
});

async function member(opts: Partial<OverlayMemberOptions> = {}): Promise<{ m: OverlayMember; adnl: AdnlNode; got: ExternalMessage[] }> {
  const adnl = await AdnlNode.listen({ queryTimeoutMs: 2000, retransmitMs: 300 });
  adnl.setPublicAddress(adnl.address);
  closing.push(adnl);
  const got: ExternalMessage[] = [];
  const m = new OverlayMember(adnl, { overlayKey, onExternalMessage: (x) => got.push(x), ...opts });
  return { m, adnl, got };
}

/** An external-in message BoC with a body of about `bodyBytes` random bytes. */
function extMessage(bodyBytes: number): Buffer {
  let body = beginCell().endCell();
  for (let left = bodyBytes; left > 0; left -= 120) body = beginCell().storeBuffer(randomBytes(Math.min(120, left))).storeRef(body).endCell();
  const info = { type: 'external-in' as const, dest: new Address(0, randomBytes(32)), importFee: 0n };
  return beginCell().store(storeMessage({ info, body })).endCell().toBoc();
}

const until = async (cond: () => boolean, ms = 4000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Two members that know each other (a learned b by address, b learned a from a's getRandomPeers). */
async function pair(opts: Partial<OverlayMemberOptions> = {}) {
  const a = await member(opts);
  const b = await member(opts);
  expect(a.m.addPeer(b.m.self(), b.adnl.address)).toBe(true);
  await a.m.refreshPeers();
  return { a, b };
}

describe('overlay member', () => {
  it('exchanges peers and answers getRandomPeers, overlay.ping and tonNode.getCapabilities', async () => {
    const { a, b } = await pair();
    expect(b.m.peerCount).toBe(1);
    expect(a.m.peerCount).toBe(1);
    const ask = (fn: Buffer) => a.adnl.query(b.adnl.identity.id, encodeOverlayQuery(a.m.overlayId, fn));
    expect(decodeCapabilities(await ask(tlWrite((w) => w.id(ID['tonNode.getCapabilities']))))).toEqual({ versionMajor: 3, versionMinor: 2, flags: 0 });
    expect((await ask(tlWrite((w) => w.id(ID['overlay.ping'])))).readUInt32LE(0)).toBe(ID['overlay.pong']);
    // a badly signed member in a getRandomPeers is refused
    const forged = { ...a.m.self(), id: { kind: 'ed25519' as const, key: identity().publicKey } };
    await ask(encodeGetRandomPeers([forged]));
    expect(b.m.stats.refusedPeers).toBe(1);
  });

  it('hands each external message over once, simple and by FEC, as the BoC that was broadcast', async () => {
    const { a, b } = await pair();
    const small = extMessage(200);
    const large = extMessage(6000);
    expect(encodeExternalMessageBroadcast(small).length).toBeLessThanOrEqual(768);
    expect(a.m.broadcastExternalMessage(small)).toBe(1);
    expect(a.m.broadcastExternalMessage(large)).toBe(1);
    await until(() => b.got.length === 2);
    const byVia = Object.fromEntries(b.got.map((g) => [g.via, g.boc]));
    expect(byVia.simple?.equals(small)).toBe(true);
    expect(byVia.fec?.equals(large)).toBe(true);
    expect(b.got.every((g) => g.source.equals(a.adnl.identity.id))).toBe(true);
    expect(b.m.receiver.stats.fecDecodes).toBe(1);
    // the same broadcast again is a duplicate broadcast; the same BoC from another source a duplicate message
    a.m.broadcastExternalMessage(small);
    await until(() => b.m.receiver.stats.duplicate > 0);
    a.adnl.send(b.adnl.identity.id, encodeOverlayMessage(a.m.overlayId, signedSimpleBroadcast(identity(), encodeExternalMessageBroadcast(small))));
    await until(() => b.m.stats.duplicateMessages === 1);
    expect(b.got.length).toBe(2);
    expect(b.m.receiver.stats.dropped).toEqual({});
  });

  it('refuses forged, stale, foreign, oversized and non-message broadcasts, counting each', async () => {
    const { a, b } = await pair();
    const me = a.adnl.identity;
    const to = b.adnl.identity.id;
    const send = (overlay: Buffer, x: Parameters<typeof encodeOverlayMessage>[1]) => a.adnl.send(to, encodeOverlayMessage(overlay, x));
    const payload = encodeExternalMessageBroadcast(extMessage(100));
    send(a.m.overlayId, { ...signedSimpleBroadcast(me, payload), signature: Buffer.alloc(64, 1) });
    send(a.m.overlayId, signedSimpleBroadcast(me, payload, Math.floor(Date.now() / 1000) - 120));
    send(randomBytes(32), signedSimpleBroadcast(me, payload));
    send(a.m.overlayId, signedSimpleBroadcast(me, encodeExternalMessageBroadcast(Buffer.from('not a boc'))));
    const bigParts = signedFecParts(me, randomBytes(300_000), undefined, 0, 1 << 20);
    send(a.m.overlayId, bigParts[0]!);
    // small symbols (TON always uses 768) that would buy a large K
    const small = signedFecParts(me, randomBytes(3000))[0]!;
    send(a.m.overlayId, { ...small, data: small.data.subarray(0, 64), fec: { ...small.fec, symbolSize: 64, symbolsCount: Math.ceil(3000 / 64) } });
    // parts, properly signed, whose data decodes but does not match the hash the source announced
    const liar = signedFecParts(me, encodeExternalMessageBroadcast(extMessage(3000))).map((p) => {
      const dataHash = sha256(Buffer.from('other'));
      const hash = fecBroadcastHash(me.id, p.fec, dataHash, p.dataSize, p.flags);
      return { ...p, dataHash, signature: signEd25519(me.secret, broadcastToSign(fecPartHash(hash, sha256(p.data), p.seqno), p.date)) };
    });
    for (const p of liar) send(a.m.overlayId, p);
    await until(() => (b.m.receiver.stats.dropped['fec-hash-mismatch'] ?? 0) === 1);
    expect(b.m.receiver.stats.dropped).toMatchObject({ 'bad-signature': 1, 'stale-date': 1, 'bad-fec': 2, 'fec-hash-mismatch': 1 });
    expect(b.m.stats).toMatchObject({ otherOverlay: 1, badMessages: 1, externalMessages: 0 });
    expect(b.got).toEqual([]);
    // and a valid message still gets through
    a.m.broadcastExternalMessage(extMessage(50));
    await until(() => b.got.length === 1);
  });

  it('rate-limits a flooding neighbour and still takes its messages within the limit', async () => {
    const { a, b } = await pair({ limits: { messagesPerSecond: 5, burst: 10 } });
    const sent = Array.from({ length: 40 }, () => extMessage(20));
    for (const boc of sent) a.m.broadcastExternalMessage(boc);
    await until(() => b.m.receiver.stats.received + (b.m.receiver.stats.dropped['rate-limited'] ?? 0) === 40);
    expect(b.got.length).toBeGreaterThanOrEqual(10);
    expect(b.got.length).toBeLessThan(20);
    expect(b.m.receiver.stats.dropped['rate-limited']).toBe(40 - b.got.length);
  });

  it('joins through the DHT: finds the published members and their addresses', async () => {
    const dhtAdnl = await AdnlNode.listen();
    dhtAdnl.setPublicAddress(dhtAdnl.address);
    closing.push(dhtAdnl);
    const dhtNode = new DhtServer(dhtAdnl);
    const b = await member();
    const ttl = Math.floor(Date.now() / 1000) + 600;
    dhtNode.store(overlayNodesValue(overlayKey, encodeOverlayNodes([b.m.self()]), ttl));
    dhtNode.store(signedAddressValue(b.adnl.identity, b.adnl.addressList(), ttl));
    const aAdnl = await AdnlNode.listen();
    aAdnl.setPublicAddress(aAdnl.address);
    closing.push(aAdnl);
    const got: ExternalMessage[] = [];
    const a = new OverlayMember(aAdnl, { overlayKey, dht: new DhtClient(aAdnl, { staticNodes: [dhtNode.self()] }), onExternalMessage: (x) => got.push(x) });
    await a.join();
    expect(a.peerCount).toBe(1);
    expect(b.m.peerCount).toBe(1);
    const boc = extMessage(300);
    expect(a.broadcastExternalMessage(boc)).toBe(1);
    await until(() => b.got.length === 1);
    expect(b.got[0]!.boc.equals(boc)).toBe(true);
  });

  it('refreshes its peers on a timer and forgets the silent ones', async () => {
    const { a, b } = await pair();
    const c = await member();
    a.m.addPeer(c.m.self(), c.adnl.address);
    await c.adnl.close();
    expect(a.m.peerCount).toBe(2);
    a.m.start(100, 250);
    await until(() => a.m.peerCount === 1, 3000);
    // b still lists c (it heard of c from a): hearing the same node again second-hand does not revive it
    await new Promise((r) => setTimeout(r, 400));
    expect(a.m.peerCount).toBe(1);
    a.m.stop();
    // b answered every refresh, so it stayed (a broadcast still reaches it); c, closed, went silent and was forgotten
    const boc = extMessage(40);
    expect(a.m.broadcastExternalMessage(boc)).toBe(1);
    await until(() => b.got.some((g) => g.boc.equals(boc)));
  });

  it('announces itself through the DHT so that another member can join it', async () => {
    const servers = await Promise.all([0, 1, 2].map(async () => {
      const n = await AdnlNode.listen();
      n.setPublicAddress(n.address);
      closing.push(n);
      return new DhtServer(n);
    }));
    servers[0]!.table.add(servers[1]!.self());
    servers[1]!.table.add(servers[2]!.self());
    const withDht = async () => {
      const adnl = await AdnlNode.listen({ queryTimeoutMs: 1500, retransmitMs: 300 });
      adnl.setPublicAddress(adnl.address);
      closing.push(adnl);
      const got: ExternalMessage[] = [];
      const m = new OverlayMember(adnl, { overlayKey, dht: new DhtClient(adnl, { staticNodes: [servers[0]!.self()] }), onExternalMessage: (x) => got.push(x) });
      return { m, adnl, got };
    };
    const b = await withDht();
    const stored = await b.m.announce();
    expect(stored.address).toBe(3);
    expect(stored.overlay).toBe(3);
    const a = await withDht();
    await a.m.join();
    expect(a.m.peerCount).toBe(1);
    const boc = extMessage(100);
    expect(a.m.broadcastExternalMessage(boc)).toBe(1);
    await until(() => b.got.length === 1);
    expect(b.got[0]!.boc.equals(boc)).toBe(true);
  });
});
