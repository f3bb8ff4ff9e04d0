// Several of our DHT nodes over real UDP on loopback: a client walks from one static node to a value
// stored three hops away, checks its signatures and caches it; a lying node (tampered values, nodes with
// bad signatures) is refused and counted while the walk still finds the true value.
import { afterEach, describe, expect, it } from 'vitest';
import { identity, signEd25519 } from '../adnl/crypto.js';
import { AdnlNode } from '../adnl/node.js';
import { type DhtNode, decodeDhtQuery, encodeDhtNodes, encodeValueResult } from '../tl/dht-types.js';
import { encodeOverlayNodes, overlayNodeToSign, shardOverlayKey } from '../tl/overlay-types.js';
import { DhtClient } from './client.js';
import { DhtServer } from './server.js';
import { checkDhtValue, overlayNodesValue, shortId, signedAddressValue, signedDhtNode } from './values.js';

const nodes: AdnlNode[] = [];
afterEach(async () => {
  await Promise.all(nodes.splice(0).map((n) => n.close()));
});

async function adnl(): Promise<AdnlNode> {
  const n = await AdnlNode.listen({ queryTimeoutMs: 1500, retransmitMs: 300 });
  n.setPublicAddress(n.address);
  nodes.push(n);
  return n;
}

async function server(): Promise<DhtServer> {
  return new DhtServer(await adnl());
}

const ttl = () => Math.floor(Date.now() / 1000) + 600;

describe('DHT', () => {
  it('walks from a static node to a value three hops away, checks it and caches it', async () => {
    const [a, b, c, d] = [await server(), await server(), await server(), await server()];
    a.table.add(b.self());
    b.table.add(c.self());
    c.table.add(d.self());
    const x = identity();
    const xAddr = { addrs: [{ kind: 'udp' as const, ip: 0x7f000001, port: 4242 }], version: 7, reinitDate: 7, priority: 0, expireAt: 0 };
    expect(d.store(signedAddressValue(x, xAddr, ttl()))).toBe(true);

    const client = new DhtClient(await adnl(), { staticNodes: [a.self()] });
    expect(await client.resolveAddress(x.id)).toEqual(xAddr);
    expect(client.stats.queries).toBeGreaterThanOrEqual(4);
    expect(client.stats.refusedValues).toBe(0);
    const queries = client.stats.queries;
    expect(await client.resolveAddress(x.id)).toEqual(xAddr);
    expect(client.stats).toMatchObject({ queries, cacheHits: 1 });
    // an unknown key: the walk ends without a value
    expect(await client.resolveAddress(identity().id)).toBeNull();
  });

  it('refuses a lying node (tampered value, badly signed nodes), counts it, and still finds the truth', async () => {
    const honest = await server();
    const x = identity();
    const xAddr = { addrs: [{ kind: 'udp' as const, ip: 0x7f000001, port: 5555 }], version: 1, reinitDate: 1, priority: 0, expireAt: 0 };
    const truth = signedAddressValue(x, xAddr, ttl());
    honest.store(truth);

    // the liar is a bare ADNL node answering DHT queries with lies
    const liarAdnl = await adnl();
    const liarSelf = signedDhtNode(liarAdnl.identity, liarAdnl.addressList());
    const forged: DhtNode = { ...signedDhtNode(identity(), liarAdnl.addressList()), signature: Buffer.alloc(64, 1) };
    const lies: string[] = [];
    liarAdnl.onQuery((_peer, q) => {
      const { query } = decodeDhtQuery(q);
      lies.push(query.kind);
      // a value for the right key whose payload was swapped (its signature no longer holds)
      if (query.kind === 'findValue') return encodeValueResult({ found: true, value: { ...truth, value: signedAddressValue(identity(), { ...xAddr, version: 2 }, ttl()).value } });
      // nodes nobody signed
      return encodeDhtNodes([forged]);
    });

    const client = new DhtClient(await adnl(), { staticNodes: [liarSelf, honest.self()], a: 2 });
    expect(await client.resolveAddress(x.id)).toEqual(xAddr);
    expect(lies).toEqual(['findValue']);
    expect(client.stats.refusedValues).toBe(1);
    expect(client.refusedNodes).toBe(0);
    await client.findNodes(identity().id);
    expect(lies).toEqual(['findValue', 'findNode']);
    expect(client.refusedNodes).toBe(1);
    expect(client.table.size).toBe(2);
  });

  it('finds an overlay’s published members, every node signature checked', async () => {
    const s = await server();
    const overlayKey = shardOverlayKey(0, -(1n << 63n), Buffer.alloc(32, 7));
    const overlay = shortId(overlayKey);
    const members = [identity(), identity()].map((m) => ({
      id: { kind: 'ed25519' as const, key: m.publicKey }, overlay, version: 100,
      signature: signEd25519(m.secret, overlayNodeToSign(m.id, overlay, 100)),
    }));
    expect(s.store(overlayNodesValue(overlayKey, encodeOverlayNodes(members), ttl()))).toBe(true);
    // a second DHT node holds another member: the walk joins both lists
    const s2 = await server();
    const third = identity();
    const member3 = { id: { kind: 'ed25519' as const, key: third.publicKey }, overlay, version: 5, signature: signEd25519(third.secret, overlayNodeToSign(third.id, overlay, 5)) };
    expect(s2.store(overlayNodesValue(overlayKey, encodeOverlayNodes([member3]), ttl()))).toBe(true);
    const client = new DhtClient(await adnl(), { staticNodes: [s.self(), s2.self()] });
    const found = await client.overlayNodes(overlayKey);
    expect(found).toHaveLength(3);
    expect(found).toEqual(expect.arrayContaining([...members, member3]));
    // one member badly signed: the whole value is refused by the store
    const bad = [members[0]!, { ...members[1]!, signature: Buffer.alloc(64) }];
    expect(checkDhtValue(overlayNodesValue(overlayKey, encodeOverlayNodes(bad), ttl()))).toBe('bad overlay node signature');
    expect(s.store(overlayNodesValue(overlayKey, encodeOverlayNodes(bad), ttl()))).toBe(false);
  });

  it('checks values the way TON does', () => {
    const x = identity();
    const addr = { addrs: [], version: 0, reinitDate: 0, priority: 0, expireAt: 0 };
    const v = signedAddressValue(x, addr, ttl());
    expect(checkDhtValue(v)).toBeNull();
    expect(checkDhtValue({ ...v, ttl: 1 })).toBe('value expired');
    expect(checkDhtValue({ ...v, value: Buffer.alloc(769) })).toBe('value too big');
    expect(checkDhtValue({ ...v, signature: Buffer.alloc(64) })).toBe('bad value signature');
    expect(checkDhtValue({ ...v, key: { ...v.key, key: { ...v.key.key, id: identity().id } } })).toBe('key hash mismatch');
    expect(checkDhtValue({ ...v, key: { ...v.key, updateRule: 'anybody' } })).toBe('bad key description signature');
  });
});
