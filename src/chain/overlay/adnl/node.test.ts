// Two (and more) of our ADNL nodes over real UDP on loopback: queries and answers, custom messages, a
// channel established and then used, huge messages in parts, retransmission and deadlines, and hostile
// datagrams (garbage, unsigned, badly signed, replayed) refused and counted while the node keeps serving.
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { type PacketContents, encodePacketContents, packetToSign } from '../tl/adnl-types.js';
import { identity, sealToKey, signEd25519 } from './crypto.js';
import { AdnlNode, AdnlQueryError } from './node.js';

const nodes: AdnlNode[] = [];
const start = async (opts: Parameters<typeof AdnlNode.listen>[0] = {}) => {
  const n = await AdnlNode.listen(opts);
  nodes.push(n);
  return n;
};
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Sends one raw datagram to a node from a throwaway socket. */
async function sendRaw(to: AdnlNode, datagram: Buffer): Promise<void> {
  const s = createSocket('udp4');
  await new Promise<void>((resolve) => s.send(datagram, to.address.port, '127.0.0.1', () => resolve()));
  s.close();
}

/** A packet to `to` from a throwaway identity, optionally unsigned or signed by another key. */
function craft(to: AdnlNode, opts: { sign?: 'ok' | 'none' | 'wrong'; seqno?: bigint; seed?: Buffer } = {}): Buffer {
  const me = identity(opts.seed);
  const p: PacketContents = {
    rand1: randomBytes(7), from: { kind: 'ed25519', key: me.publicKey }, messages: [{ kind: 'nop' }],
    seqno: opts.seqno ?? 1n, confirmSeqno: 0n, reinitDate: Math.floor(Date.now() / 1000), dstReinitDate: 0, rand2: randomBytes(7),
  };
  if (opts.sign !== 'none') p.signature = signEd25519(opts.sign === 'wrong' ? randomBytes(32) : me.secret, packetToSign(p));
  return Buffer.concat([to.identity.id, sealToKey(to.identity.publicKey, encodePacketContents(p))]);
}

describe('ADNL over UDP', () => {
  it('answers queries, delivers custom messages and moves to a confirmed channel', async () => {
    const a = await start();
    const b = await start();
    b.onQuery((_peer, q) => Buffer.concat([Buffer.from('re:'), q]));
    const got: string[] = [];
    b.onMessage((peer, data) => got.push(`${peer.id.equals(a.identity.id)}:${data}`));
    const bId = a.addPeer(b.identity.publicKey, b.address);
    expect((await a.query(bId, Buffer.from('one'))).toString()).toBe('re:one');
    // b answered with confirmChannel; a's channel is ready, b's becomes ready on a's first channel packet
    expect(a.channelReady(bId)).toBe(true);
    a.send(bId, Buffer.from('hello'));
    await until(() => got.length === 1);
    expect(got).toEqual(['true:hello']);
    expect(b.channelReady(a.identity.id)).toBe(true);
    // the query after the channel travels on it and is still answered
    expect((await a.query(bId, Buffer.from('two'))).toString()).toBe('re:two');
    // b can query a back (it learned a's key and address from a's packets)
    a.onQuery(() => Buffer.from('from a'));
    expect((await b.query(a.identity.id, Buffer.from('?'))).toString()).toBe('from a');
    expect(a.stats.dropped).toEqual({});
    expect(b.stats.dropped).toEqual({});
  });

  it('carries answers larger than the MTU in parts', async () => {
    const a = await start();
    const b = await start();
    const big = randomBytes(5000);
    b.onQuery(() => big);
    const bId = a.addPeer(b.identity.publicKey, b.address);
    expect((await a.query(bId, Buffer.from('big'))).equals(big)).toBe(true);
  });

  it("refuses a huge message above TON's 8 KiB limit", async () => {
    const a = await start({ retransmitMs: 5000 });
    const b = await start();
    b.onQuery(() => randomBytes(9000));
    const bId = a.addPeer(b.identity.publicKey, b.address);
    await expect(a.query(bId, Buffer.from('big'), 800)).rejects.toBeInstanceOf(AdnlQueryError);
    expect(a.stats.dropped['huge-message']).toBeGreaterThan(0);
  });

  it('resends an unanswered query and gives up at its deadline', async () => {
    const a = await start({ retransmitMs: 100 });
    const silent = createSocket('udp4');
    let heard = 0;
    silent.on('message', () => heard++);
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', () => r()));
    const peer = identity();
    const id = a.addPeer(peer.publicKey, { host: '127.0.0.1', port: silent.address().port });
    await expect(a.query(id, Buffer.from('x'), 550)).rejects.toBeInstanceOf(AdnlQueryError);
    silent.close();
    expect(heard).toBeGreaterThanOrEqual(4);
  });

  it('refuses and counts garbage, unsigned, badly signed and replayed packets, and keeps serving', async () => {
    const b = await start();
    b.onQuery(() => Buffer.from('still here'));
    await sendRaw(b, randomBytes(10)); // too short
    await sendRaw(b, randomBytes(200)); // to nobody we know
    await sendRaw(b, Buffer.concat([b.identity.id, randomBytes(200)])); // to us, undecryptable
    await sendRaw(b, Buffer.concat([b.identity.id, sealToKey(b.identity.publicKey, randomBytes(100))])); // decrypts to garbage TL
    await sendRaw(b, craft(b, { sign: 'none' }));
    await sendRaw(b, craft(b, { sign: 'wrong' }));
    const replay = craft(b, { seed: randomBytes(32), seqno: 5n });
    await sendRaw(b, replay);
    await sendRaw(b, replay);
    await until(() => b.stats.packetsIn === 8);
    expect(b.stats.dropped).toEqual({
      size: 1, 'unknown-destination': 1, decrypt: 1, malformed: 1, unsigned: 1, 'bad-signature': 1, replayed: 1,
    });
    const a = await start();
    const bId = a.addPeer(b.identity.publicKey, b.address);
    expect((await a.query(bId, Buffer.from('?'))).toString()).toBe('still here');
  });

  it('rate-limits datagrams per source IP before decrypting them', async () => {
    const b = await start({ packetsPerSecondPerIp: 20 });
    const s = createSocket('udp4');
    for (let i = 0; i < 100; i++) s.send(Buffer.concat([b.identity.id, randomBytes(200)]), b.address.port, '127.0.0.1');
    await until(() => b.stats.packetsIn === 100);
    s.close();
    expect(b.stats.dropped['rate-limited']).toBeGreaterThanOrEqual(70);
    expect((b.stats.dropped['rate-limited'] ?? 0) + (b.stats.dropped.decrypt ?? 0)).toBe(100);
  });

  it('keeps at most maxPeers peers', async () => {
    const b = await start({ maxPeers: 3 });
    for (let i = 0; i < 6; i++) await sendRaw(b, craft(b));
    await until(() => b.stats.packetsIn === 6);
    expect(b.stats.dropped).toEqual({});
    expect(b.peerCount).toBe(3);
  });

  it('refuses packets whose reinit dates are from the future', async () => {
    const b = await start();
    const me = identity();
    const p: PacketContents = {
      rand1: randomBytes(7), from: { kind: 'ed25519', key: me.publicKey }, messages: [{ kind: 'nop' }], seqno: 1n,
      reinitDate: Math.floor(Date.now() / 1000), dstReinitDate: b.reinitDate + 1000, rand2: randomBytes(7),
    };
    p.signature = signEd25519(me.secret, packetToSign(p));
    await sendRaw(b, Buffer.concat([b.identity.id, sealToKey(b.identity.publicKey, encodePacketContents(p))]));
    await until(() => b.stats.packetsIn === 1);
    expect(b.stats.dropped).toEqual({ 'reinit-too-new': 1 });
  });
});
