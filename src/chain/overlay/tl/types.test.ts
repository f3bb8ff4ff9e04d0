// Byte-exact checks of the overlay-side TL: constructor ids against values the references publish,
// a DHT value serialized exactly as TON's C++ does (vector from xssnick/tonutils-go
// adnl/dht/dht_serialization_test.go, "MatchesCPPReferenceBytes"), a real mainnet dht.node whose
// signature only verifies if our serialization is exact (docs.ton.org "ADNL UDP - Internode", the
// global config's first DHT node), the createChannel example of the same page, and round trips.
import { ed25519 } from '@noble/curves/ed25519.js';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TLError, TLReader, tlWrite } from '../../liteserver/tl/codec.js';
import { type PacketContents, decodePacketContents, encodePacketContents, packetToSign, publicKeyBytes, writeAdnlMessage } from './adnl-types.js';
import { type DhtNode, type DhtValue, decodeValueResult, dhtNodeToSign, dhtValueToSign, encodeValueResult, keyDescriptionToSign } from './dht-types.js';
import {
  type OverlayBroadcast, decodeOverlayMessage, decodeTonNodeBroadcast, encodeExternalMessageBroadcast, encodeOverlayMessage,
  readBroadcast, shardOverlayKey, writeBroadcast,
} from './overlay-types.js';
import { DECLARATIONS, ID } from './schema.js';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();
const hex = (n: number) => n.toString(16).padStart(8, '0');

describe('overlay TL constructor ids', () => {
  it('match the ids the references print', () => {
    // tonutils-go adnl/quic/tl_test.go: pub.ed25519 = 0x4813b4c6.
    expect(hex(ID['pub.ed25519'])).toBe('4813b4c6');
    // tonutils-go's C++ reference bytes (below) start e40cf774 | 90ad27cb and carry cc9f31f7 for the update rule.
    expect(hex(ID['dht.valueFound'])).toBe('e40cf774');
    expect(hex(ID['dht.value'])).toBe('90ad27cb');
    expect(hex(ID['dht.updateRule.signature'])).toBe('cc9f31f7');
    // ton_api.tl states tonNode.capabilities#f5bf60c0 explicitly.
    expect(hex(ID['tonNode.capabilities'])).toBe('f5bf60c0');
  });

  it('are crc32 of the normalized line, the multi-line declarations included', () => {
    // Pinned so a change in normalization fails; these are the ids TON nodes put on the wire
    // (docs.ton.org ADNL UDP shows 89cd42d1 = d142cd89 little-endian for adnl.packetContents).
    expect(Object.fromEntries(Object.entries(ID).map(([k, v]) => [k, hex(v)]))).toMatchObject({
      'adnl.packetContents': 'd142cd89',
      'adnl.message.createChannel': 'e673c3bb',
      'adnl.message.confirmChannel': '60dd1d69',
      'adnl.message.custom': '204818f5',
      'adnl.message.nop': '17f8dfda',
      'adnl.message.reinit': '10c20520',
      'adnl.message.query': 'b48bf97a',
      'adnl.message.answer': '0fac8416',
      'adnl.message.part': 'fd452d39',
      'adnl.address.udp': '670da6e7',
      'adnl.addressList': '2227e658',
      'dht.node': '84533248',
      'dht.nodes': '7974a0be',
      'dht.findNode': '6ce2ce6b',
      'dht.findValue': 'ae4b6011',
      'dht.valueNotFound': 'a2620568',
      'overlay.broadcast': 'b15a2b6b',
      'overlay.broadcastFec': 'bad7c36a',
      'overlay.broadcastFecShort': 'f1881342',
      'overlay.getRandomPeers': '48ee64ab',
      'overlay.nodes': 'e487290e',
      'overlay.query': 'ccfd8443',
      'overlay.message': '75252420',
      'overlay.emptyCertificate': '32dabccf',
      'fec.raptorQ': '8b93a7e0',
      'tonNode.shardPublicOverlayId': '4d9ed329',
      'tonNode.externalMessageBroadcast': '3d1b1867',
    });
    expect(new Set(Object.values(ID)).size).toBe(Object.keys(DECLARATIONS).length);
  });
});

describe('DHT values', () => {
  // tonutils-go TestValueFoundResultMatchesCPPReferenceBytes: seed 0x22×32, key name "interop-test",
  // idx 7, value "hello-from-cpp", ttl 1234567890; want = the bytes TON's C++ serializer produced.
  const CPP_REFERENCE =
    '74f70ce4cb27ad90241c2d6d00b9d9d5a0e321dc955c1ef0be909991becba314f06cb896662fed140c696e7465726f702d7465737400000007000000c6b41348a09aa5f47a6759802ff955f8dc2d2a14a5c99d23be97f864127ff9383455a4f0f7319fcc406b3e72debecf49c8e664e737b8614b093d438ba0640b6ae264859f73346da919cef8b408834c598bee23fc076afcd2b707094359b260c9b16631b5836af7c8050000000e68656c6c6f2d66726f6d2d63707000d202964940f75760f93c39d1c77c7905e43d28272361aaabadf446fe7ef1989d7033eaefc579b4b665600e805ed8ce87f09207b6d34556e885e18c7ab347bfad8a690f910b000000';

  it('serializes and signs a dht.valueFound byte for byte as TON does', () => {
    const seed = Buffer.alloc(32, 0x22);
    const pub = Buffer.from(ed25519.getPublicKey(seed));
    const id = { kind: 'ed25519', key: pub } as const;
    const value: DhtValue = {
      key: { key: { id: sha256(publicKeyBytes(id)), name: Buffer.from('interop-test'), idx: 7 }, id, updateRule: 'signature', signature: Buffer.alloc(0) },
      value: Buffer.from('hello-from-cpp'),
      ttl: 1234567890,
      signature: Buffer.alloc(0),
    };
    value.key.signature = Buffer.from(ed25519.sign(keyDescriptionToSign(value.key), seed));
    value.signature = Buffer.from(ed25519.sign(dhtValueToSign(value), seed));
    const bytes = encodeValueResult({ found: true, value });
    expect(bytes.toString('hex')).toBe(CPP_REFERENCE);
    const back = decodeValueResult(Buffer.from(CPP_REFERENCE, 'hex'));
    expect(back.found && back.value.value.toString()).toBe('hello-from-cpp');
    expect(encodeValueResult(back).toString('hex')).toBe(CPP_REFERENCE);
  });

  it("verifies a real mainnet DHT node's signature over our serialization", () => {
    // docs.ton.org/develop/network/adnl-udp, the dht.nodes entry of the mainnet global config.
    const node: DhtNode = {
      id: { kind: 'ed25519', key: Buffer.from('fZnkoIAxrTd4xeBgVpZFRm5SvVvSx7eN3Vbe8c83YMk=', 'base64') },
      addrList: { addrs: [{ kind: 'udp', ip: 1091897261, port: 15813 }], version: 0, reinitDate: 0, priority: 0, expireAt: 0 },
      version: -1,
      signature: Buffer.from('cmaMrV/9wuaHOOyXYjoxBnckJktJqrQZ2i+YaY3ehIyiL3LkW81OQ91vm8zzsx1kwwadGZNzgq4hI4PCB/U5Dw==', 'base64'),
    };
    const key = node.id.kind === 'ed25519' ? node.id.key : Buffer.alloc(0);
    expect(ed25519.verify(node.signature, dhtNodeToSign(node), key)).toBe(true);
    expect(ed25519.verify(node.signature, dhtNodeToSign({ ...node, version: 0 }), key)).toBe(false);
  });
});

describe('ADNL messages and packets', () => {
  it('writes the createChannel example of docs.ton.org ADNL UDP', () => {
    const key = Buffer.from('d59d8e3991be20b54dde8b78b3af18b379a62fa30e64af361c75452f6af019d7', 'hex');
    const bytes = tlWrite((w) => writeAdnlMessage(w, { kind: 'createChannel', key, date: 0x63875c55 }));
    expect(bytes.toString('hex')).toBe('bbc373e6d59d8e3991be20b54dde8b78b3af18b379a62fa30e64af361c75452f6af019d7555c8763');
  });

  const full: PacketContents = {
    rand1: Buffer.alloc(7, 1),
    from: { kind: 'ed25519', key: Buffer.alloc(32, 2) },
    fromShort: Buffer.alloc(32, 3),
    messages: [{ kind: 'custom', data: Buffer.from('hi') }, { kind: 'query', queryId: Buffer.alloc(32, 4), query: Buffer.alloc(300, 5) }],
    address: { addrs: [{ kind: 'udp', ip: 0x7f000001, port: 30303 }], version: 5, reinitDate: 6, priority: 0, expireAt: 0 },
    seqno: 7n,
    confirmSeqno: 6n,
    recvAddrListVersion: 1,
    recvPriorityAddrListVersion: 2,
    reinitDate: 100,
    dstReinitDate: 99,
    signature: Buffer.alloc(64, 9),
    rand2: Buffer.alloc(15, 8),
  };

  it('round-trips adnl.packetContents with every flag, the flags word laid out as adnl-packet.h says', () => {
    const bytes = encodePacketContents(full);
    expect(bytes.readUInt32LE(0)).toBe(ID['adnl.packetContents']);
    // rand1: 1 length byte + 7 bytes, then flags = from|from_short|messages|address|seqno|confirm|versions|reinit|signature.
    expect(bytes.readUInt32LE(12).toString(16)).toBe('fdb');
    expect(decodePacketContents(bytes)).toEqual(full);
    const one = { ...full, messages: [{ kind: 'nop' as const }] };
    expect(encodePacketContents(one).readUInt32LE(12) & 0xc).toBe(0x4);
    // the signature covers the packet with flag 0x800 and the field removed
    expect(decodePacketContents(packetToSign(full)).signature).toBeUndefined();
  });

  it('refuses every truncation and unknown flags with a TLError', () => {
    const bytes = encodePacketContents(full);
    for (let n = 0; n < bytes.length; n++) expect(() => decodePacketContents(bytes.subarray(0, n))).toThrow(TLError);
    const bad = Buffer.from(bytes);
    bad.writeUInt32LE(0x2000 | bad.readUInt32LE(12), 12);
    expect(() => decodePacketContents(bad)).toThrow(/unknown flags/);
  });
});

describe('overlay broadcasts', () => {
  const src = { kind: 'ed25519', key: Buffer.alloc(32, 1) } as const;
  const cases: OverlayBroadcast[] = [
    { kind: 'broadcast', src, certificate: { kind: 'empty' }, flags: 0, data: Buffer.from('x'), date: 1700000000, signature: Buffer.alloc(64, 2) },
    {
      kind: 'broadcastFec', src, certificate: { kind: 'v1', issuedBy: src, expireAt: 5, maxSize: 1 << 20, signature: Buffer.alloc(64) },
      dataHash: Buffer.alloc(32, 3), dataSize: 2000, flags: 1, data: Buffer.alloc(768, 4), seqno: 3,
      fec: { kind: 'raptorQ', dataSize: 2000, symbolSize: 768, symbolsCount: 3 }, date: 1700000001, signature: Buffer.alloc(64, 5),
    },
    { kind: 'broadcastFecShort', src, certificate: { kind: 'v2', issuedBy: src, expireAt: 1, maxSize: 2, flags: 3, signature: Buffer.alloc(64) }, broadcastHash: Buffer.alloc(32, 6), partDataHash: Buffer.alloc(32, 7), seqno: 9, signature: Buffer.alloc(64, 8) },
    { kind: 'fecReceived', hash: Buffer.alloc(32, 9) },
    { kind: 'fecCompleted', hash: Buffer.alloc(32, 10) },
    { kind: 'unicast', data: Buffer.from('u') },
  ];

  it('round-trips each kind inside overlay.message', () => {
    const overlay = Buffer.alloc(32, 0xaa);
    for (const b of cases) {
      const bytes = encodeOverlayMessage(overlay, b);
      expect(bytes.subarray(0, 4).toString('hex')).toBe('20242575');
      expect(decodeOverlayMessage(bytes)).toEqual({ overlay, broadcast: b });
      const r = new TLReader(tlWrite((w) => writeBroadcast(w, b)));
      expect(readBroadcast(r)).toEqual(b);
    }
  });

  it('reads the overlay.messageWithExtra prefix newer nodes may send, with or without a member certificate', () => {
    const overlay = Buffer.alloc(32, 0xbb);
    const body = tlWrite((w) => writeBroadcast(w, cases[4]!));
    const bare = tlWrite((w) => w.id(ID['overlay.messageWithExtra']).int256(overlay).uint32(0).raw(body));
    expect(decodeOverlayMessage(bare)).toEqual({ overlay, broadcast: cases[4] });
    const withCert = tlWrite((w) => {
      w.id(ID['overlay.messageWithExtra']).int256(overlay).uint32(1).id(ID['overlay.memberCertificate']).id(ID['pub.ed25519']).int256(Buffer.alloc(32, 1));
      w.int32(0).int32(3).int32(1_900_000_000).bytes(Buffer.alloc(64, 2)).raw(body);
    });
    expect(decodeOverlayMessage(withCert)).toEqual({ overlay, broadcast: cases[4] });
    expect(hex(ID['overlay.messageWithExtra'])).not.toBe(hex(ID['overlay.message']));
  });

  it('lays out overlay.broadcast field by field', () => {
    const bytes = tlWrite((w) => writeBroadcast(w, cases[0]!));
    const want = ['6b2b5ab1', 'c6b41348', '01'.repeat(32), 'cfbcda32', '00000000', '01780000', '00f15365', '40' + '02'.repeat(64) + '000000'].join('');
    expect(bytes.toString('hex')).toBe(want);
  });

  it('names the shard overlay by pub.overlay{tonNode.shardPublicOverlayId}', () => {
    const key = shardOverlayKey(0, -(1n << 63n), Buffer.alloc(32, 0x5e));
    const name = key.kind === 'overlay' ? key.name : Buffer.alloc(0);
    expect(name.toString('hex')).toBe('29d39e4d' + '00000000' + '0000000000000080' + '5e'.repeat(32));
    expect(publicKeyBytes(key).toString('hex')).toBe('cb45ba34' + '30' + name.toString('hex') + '000000');
  });

  it('reads a tonNode.externalMessageBroadcast and leaves other broadcasts aside', () => {
    const boc = Buffer.from('b5ee9c72', 'hex');
    const bytes = encodeExternalMessageBroadcast(boc);
    expect(bytes.toString('hex')).toBe('67181b3d' + '04b5ee9c72000000');
    expect(decodeTonNodeBroadcast(bytes)).toEqual({ kind: 'externalMessage', data: boc });
    expect(decodeTonNodeBroadcast(Buffer.from('01020304', 'hex'))).toEqual({ kind: 'other', id: 0x04030201 });
  });
});
