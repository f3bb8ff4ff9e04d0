// The UDP packet cipher against code that already speaks to TON: the ADNL-TCP handshake of our liteserver
// client (liteserver/transport/frame.ts, checked against real liteservers and ton-lite-client) encrypts its
// session parameters exactly as keys/encryptor.cpp encrypts a packet to a key, so each side opens the other's.
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clientHandshake, serverHandshake } from '../../liteserver/transport/frame.js';
import { channelKeys, identity, openAes, openWithKey, sealAes, sealToKey, sharedSecret } from './crypto.js';

describe('ADNL UDP crypto', () => {
  it('computes the x25519 secret of two ed25519 keys as noble does, the same from both ends', () => {
    const a = identity();
    const b = identity();
    const want = Buffer.from(x25519.getSharedSecret(ed25519.utils.toMontgomerySecret(a.secret), ed25519.utils.toMontgomery(b.publicKey)));
    expect(sharedSecret(a.secret, b.publicKey)).toEqual(want);
    expect(sharedSecret(b.secret, a.publicKey)).toEqual(want);
  });

  it('opens what the TCP handshake seals to a key, and the TCP server opens what we seal', () => {
    const server = identity();
    const { packet, params } = clientHandshake(server.publicKey);
    expect(openWithKey(server.secret, packet.subarray(32))).toEqual(params);
    const ours = randomBytes(160);
    const sealed = Buffer.concat([server.id, sealToKey(server.publicKey, ours)]);
    expect(serverHandshake(sealed, server.secret, server.id)).toEqual(ours);
  });

  it('refuses a packet sealed to another key or altered in transit', () => {
    const me = identity();
    const sealed = sealToKey(me.publicKey, Buffer.from('hello'));
    expect(openWithKey(identity().secret, sealed)).toBeNull();
    const altered = Buffer.from(sealed);
    altered[66] = altered[66]! ^ 1;
    expect(openWithKey(me.secret, altered)).toBeNull();
    expect(openWithKey(me.secret, sealed.subarray(0, 63))).toBeNull();
  });

  it('gives both ends of a channel matching directional keys', () => {
    const a = identity();
    const b = identity();
    const chA = identity();
    const chB = identity();
    const ka = channelKeys(chA.secret, chB.publicKey, a.id, b.id);
    const kb = channelKeys(chB.secret, chA.publicKey, b.id, a.id);
    expect(ka.outKey).toEqual(kb.inKey);
    expect(ka.inKey).toEqual(kb.outKey);
    expect(ka.outId).toEqual(kb.inId);
    expect(ka.inKey).not.toEqual(ka.outKey);
    expect(openAes(kb.inKey, sealAes(ka.outKey, Buffer.from('via channel')))?.toString()).toBe('via channel');
    expect(openAes(ka.inKey, sealAes(ka.outKey, Buffer.from('x')))).toBeNull();
  });
});
