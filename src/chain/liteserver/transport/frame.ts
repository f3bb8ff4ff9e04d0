// ADNL over TCP, the parts both ends share: the 256-byte handshake that carries the session keys,
// AES-256-CTR stream ciphers, and frames of [length][32-byte nonce][payload][sha256(nonce ‖ payload)].
// Facts: docs.ton.org "ADNL TCP - Liteserver"; ton tonlib/adnl/adnl-ext-connection.cpp.
import { createCipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { ID } from '../tl/lite-schema.js';

/** Largest frame we accept (length field: nonce + payload + checksum). Full blocks run to a few MB. */
export const MAX_FRAME_BYTES = 1 << 26;
export const HANDSHAKE_BYTES = 256;

export const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

/** ADNL short id of an ed25519 key: sha256 of the boxed TL `pub.ed25519 key:int256`. */
export function keyId(publicKey: Uint8Array): Buffer {
  const boxed = Buffer.alloc(36);
  boxed.writeUInt32LE(ID['pub.ed25519'], 0);
  boxed.set(publicKey, 4);
  return sha256(boxed);
}

/** An ed25519 key pair from a 32-byte seed (the form global configs and our server keys use). */
export function ed25519KeyPair(seed: Uint8Array = randomBytes(32)): { secret: Buffer; publicKey: Buffer } {
  if (seed.length !== 32) throw new Error(`ed25519 seed must be 32 bytes, got ${seed.length}`);
  return { secret: Buffer.from(seed), publicKey: Buffer.from(ed25519.getPublicKey(seed)) };
}

/** x25519 agreement between an ed25519 secret seed and a peer's ed25519 public key. */
function sharedSecret(secretSeed: Uint8Array, peerPublic: Uint8Array): Buffer {
  const mine = ed25519.utils.toMontgomerySecret(secretSeed);
  const theirs = ed25519.utils.toMontgomery(peerPublic);
  return Buffer.from(x25519.getSharedSecret(mine, theirs));
}

type Cipheriv = ReturnType<typeof createCipheriv>;

const aesCtr = (key: Uint8Array, iv: Uint8Array): Cipheriv => createCipheriv('aes-256-ctr', key, iv);

/** The handshake cipher: key = shared[0:16] ‖ h[16:32], iv = h[0:4] ‖ shared[20:32], h = sha256(params). */
function handshakeCipher(shared: Buffer, paramsHash: Buffer): Cipheriv {
  const key = Buffer.concat([shared.subarray(0, 16), paramsHash.subarray(16, 32)]);
  const iv = Buffer.concat([paramsHash.subarray(0, 4), shared.subarray(20, 32)]);
  return aesCtr(key, iv);
}

/** Both directions of a session. The client decrypts with params[0:32]/[64:80], the server encrypts with them. */
export type { Cipheriv };
export interface SessionCiphers {
  rx: Cipheriv;
  tx: Cipheriv;
}
export function sessionCiphers(params: Buffer, side: 'client' | 'server'): SessionCiphers {
  const a = aesCtr(params.subarray(0, 32), params.subarray(64, 80));
  const b = aesCtr(params.subarray(32, 64), params.subarray(80, 96));
  return side === 'client' ? { rx: a, tx: b } : { rx: b, tx: a };
}

/** Client: the handshake packet for a server's public key, and the 160 random session params inside it. */
export function clientHandshake(serverPublicKey: Uint8Array): { packet: Buffer; params: Buffer } {
  if (serverPublicKey.length !== 32) throw new Error(`liteserver key must be 32 bytes, got ${serverPublicKey.length}`);
  const params = randomBytes(160);
  const eph = ed25519KeyPair();
  const hash = sha256(params);
  const encrypted = handshakeCipher(sharedSecret(eph.secret, serverPublicKey), hash).update(params);
  return { packet: Buffer.concat([keyId(serverPublicKey), eph.publicKey, hash, encrypted]), params };
}

/** Server: the session params from a client's handshake packet, or an error saying what did not match. */
export function serverHandshake(packet: Buffer, serverSecret: Uint8Array, serverKeyId: Buffer): Buffer {
  if (packet.length !== HANDSHAKE_BYTES) throw new Error(`handshake must be ${HANDSHAKE_BYTES} bytes, got ${packet.length}`);
  if (!timingSafeEqual(packet.subarray(0, 32), serverKeyId)) {
    throw new Error(`handshake is for key id ${packet.subarray(0, 32).toString('hex')}, not this server's ${serverKeyId.toString('hex')}`);
  }
  const hash = packet.subarray(64, 96);
  let shared: Buffer;
  try {
    shared = sharedSecret(serverSecret, packet.subarray(32, 64));
  } catch (e) {
    throw new Error(`handshake carries an invalid client key: ${(e as Error).message}`);
  }
  const params = handshakeCipher(shared, Buffer.from(hash)).update(packet.subarray(96, 256));
  if (!timingSafeEqual(sha256(params), hash)) throw new Error('handshake params do not match their sha256 (wrong server key?)');
  return params;
}

/** One plaintext frame around `payload`, ready for the tx cipher. */
export function encodeFrame(payload: Uint8Array): Buffer {
  const nonce = randomBytes(32);
  const out = Buffer.allocUnsafe(4 + 32 + payload.length + 32);
  out.writeUInt32LE(32 + payload.length + 32, 0);
  nonce.copy(out, 4);
  out.set(payload, 36);
  sha256(nonce, payload).copy(out, 36 + payload.length);
  return out;
}

/**
 * Collects decrypted bytes and cuts them into frames, checking each checksum. Chunks are joined once
 * per frame, so a multi-megabyte block arriving in many TCP segments is copied only once.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Adds decrypted bytes; returns the payloads of every frame now complete. */
  push(plain: Buffer): Buffer[] {
    this.chunks.push(plain);
    this.buffered += plain.length;
    const out: Buffer[] = [];
    for (;;) {
      if (this.buffered < 4) return out;
      const size = this.peekLength();
      if (size < 64 || size > MAX_FRAME_BYTES) throw new Error(`ADNL frame length ${size} is out of range (64..${MAX_FRAME_BYTES})`);
      if (this.buffered < 4 + size) return out;
      const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
      const frame = all.subarray(4, 4 + size);
      const rest = all.subarray(4 + size);
      this.chunks = rest.length ? [rest] : [];
      this.buffered = rest.length;
      const nonce = frame.subarray(0, 32);
      const payload = frame.subarray(32, size - 32);
      if (!sha256(nonce, payload).equals(frame.subarray(size - 32))) throw new Error('ADNL frame checksum mismatch');
      out.push(Buffer.from(payload));
    }
  }

  private peekLength(): number {
    // Merge once so the length prefix sits in the first chunk (it may arrive split).
    if (this.chunks[0]!.length < 4) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    return this.chunks[0]!.readUInt32LE(0);
  }
}
