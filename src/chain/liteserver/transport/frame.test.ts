import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FrameDecoder, clientHandshake, ed25519KeyPair, encodeFrame, keyId, serverHandshake, sessionCiphers } from './frame.js';

describe('ADNL frames and handshake', () => {
  it('cuts frames split anywhere across chunks, and several frames in one chunk', () => {
    const payloads = [Buffer.alloc(0), randomBytes(1), randomBytes(70_000), randomBytes(3)];
    const wire = Buffer.concat(payloads.map(encodeFrame));
    for (const step of [1, 3, 4, 37, 4096, wire.length]) {
      const d = new FrameDecoder();
      const got: Buffer[] = [];
      for (let i = 0; i < wire.length; i += step) got.push(...d.push(wire.subarray(i, i + step)));
      expect(got.map((b) => b.toString('hex')), `chunks of ${step}`).toEqual(payloads.map((b) => b.toString('hex')));
    }
  });

  it('refuses a frame whose checksum or length is wrong', () => {
    const f = encodeFrame(Buffer.from('hello'));
    f[40] ^= 1;
    expect(() => new FrameDecoder().push(f)).toThrow('ADNL frame checksum mismatch');
    const short = Buffer.alloc(8);
    short.writeUInt32LE(10, 0);
    expect(() => new FrameDecoder().push(short)).toThrow('ADNL frame length 10 is out of range');
  });

  it('the server recovers the client params only with the right key, and both ends derive matching ciphers', () => {
    const server = ed25519KeyPair();
    const { packet, params } = clientHandshake(server.publicKey);
    expect(packet).toHaveLength(256);
    expect(packet.subarray(0, 32)).toEqual(keyId(server.publicKey));
    expect(serverHandshake(packet, server.secret, keyId(server.publicKey))).toEqual(params);
    const other = ed25519KeyPair();
    expect(() => serverHandshake(packet, other.secret, keyId(server.publicKey))).toThrow(/do not match their sha256/);
    expect(() => serverHandshake(packet, server.secret, keyId(other.publicKey))).toThrow(/handshake is for key id/);
    const c = sessionCiphers(params, 'client');
    const s = sessionCiphers(params, 'server');
    const msg = randomBytes(100);
    expect(s.rx.update(c.tx.update(msg))).toEqual(msg);
    expect(c.rx.update(s.tx.update(msg))).toEqual(msg);
  });
});
