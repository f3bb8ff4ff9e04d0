// ADNL-over-UDP cryptography (ton keys/encryptor.cpp, adnl/adnl-channel.cpp): a packet to a key is
// `ephemeral pub (32) | sha256(plain) (32) | aes-256-ctr(plain)` under x25519(ephemeral, peer), a channel
// packet is `sha256(plain) | aes-256-ctr(plain)` under the channel's directional key; in both the AES key
// is secret[0:16] ‖ digest[16:32] and the iv digest[0:4] ‖ secret[20:32] (as in the TCP handshake).
import { type KeyObject, createCipheriv, createPrivateKey, createPublicKey, diffieHellman, randomBytes, sign, timingSafeEqual, verify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { LRUCache } from 'lru-cache';
import { ed25519KeyPair, keyId, sha256 } from '../../liteserver/transport/frame.js';
import { publicKeyBytes } from '../tl/adnl-types.js';

/** A local ADNL identity: the ed25519 seed, its public key and short id (sha256 of pub.ed25519). */
export interface Identity {
  secret: Buffer;
  publicKey: Buffer;
  id: Buffer;
}

export function identity(seed: Uint8Array = randomBytes(32)): Identity {
  const { secret, publicKey } = ed25519KeyPair(seed);
  return { secret, publicKey, id: keyId(publicKey) };
}

/**
 * x25519 agreement of an ed25519 seed with a peer's ed25519 public key (TON's compute_shared_secret):
 * both keys mapped to Montgomery form by @noble/curves, the scalar multiplication done by node:crypto
 * (some 30 times faster than in JavaScript, which matters when every packet to us costs one).
 */
export function sharedSecret(seed: Uint8Array, peerPublic: Uint8Array): Buffer {
  return diffieHellman({ privateKey: x25519Private(seed), publicKey: x25519Public(peerPublic) });
}

// Bounded memos, the oldest made leaving first: our own few secrets and the keys of peers we talk to again and again.
const privates = new LRUCache<string, KeyObject>({ max: 64 });
const publics = new LRUCache<string, KeyObject>({ max: 4096 });

function memo(cache: LRUCache<string, KeyObject>, key: string, make: () => KeyObject): KeyObject {
  let k = cache.peek(key);
  if (k) return k;
  k = make();
  cache.set(key, k);
  return k;
}

function x25519Private(seed: Uint8Array): KeyObject {
  const make = () => createPrivateKey({ key: Buffer.concat([PKCS8_X25519, ed25519.utils.toMontgomerySecret(seed)]), format: 'der', type: 'pkcs8' });
  return memo(privates, Buffer.from(seed).toString('hex'), make);
}

function x25519Public(edPublic: Uint8Array): KeyObject {
  const make = () => createPublicKey({ key: Buffer.concat([SPKI_X25519, ed25519.utils.toMontgomery(edPublic)]), format: 'der', type: 'spki' });
  return memo(publics, Buffer.from(edPublic).toString('hex'), make);
}

/** A fresh ed25519 key pair made by node:crypto (an ephemeral key per packet). */
function ephemeral(): { secret: Buffer; publicKey: Buffer } {
  const secret = randomBytes(32);
  const pub = createPublicKey(createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, secret]), format: 'der', type: 'pkcs8' }));
  return { secret, publicKey: pub.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519.length) };
}

function aesCtr(secret: Uint8Array, digest: Uint8Array, data: Uint8Array): Buffer {
  const key = Buffer.concat([secret.subarray(0, 16), digest.subarray(16, 32)]);
  const iv = Buffer.concat([digest.subarray(0, 4), secret.subarray(20, 32)]);
  const c = createCipheriv('aes-256-ctr', key, iv);
  return Buffer.concat([c.update(data), c.final()]);
}

/** Encrypts to an ed25519 key with a fresh ephemeral key: `eph pub | digest | ciphertext`. */
export function sealToKey(peerPublic: Uint8Array, plain: Uint8Array): Buffer {
  const eph = ephemeral();
  const digest = sha256(plain);
  // the ephemeral secret is used once: kept out of the memo of our own secrets
  const secret = diffieHellman({ privateKey: createPrivateKey({ key: Buffer.concat([PKCS8_X25519, ed25519.utils.toMontgomerySecret(eph.secret)]), format: 'der', type: 'pkcs8' }), publicKey: x25519Public(peerPublic) });
  return Buffer.concat([eph.publicKey, digest, aesCtr(secret, digest, plain)]);
}

/** Decrypts `eph pub | digest | ciphertext` with our seed; null when too short, a bad key or a digest mismatch. */
export function openWithKey(seed: Uint8Array, data: Uint8Array): Buffer | null {
  if (data.length < 64) return null;
  let secret: Buffer;
  try {
    // the sender's key is ephemeral: converted without the memo
    const theirs = createPublicKey({ key: Buffer.concat([SPKI_X25519, ed25519.utils.toMontgomery(data.subarray(0, 32))]), format: 'der', type: 'spki' });
    secret = diffieHellman({ privateKey: x25519Private(seed), publicKey: theirs });
  } catch {
    return null;
  }
  return checked(aesCtr(secret, data.subarray(32, 64), data.subarray(64)), data.subarray(32, 64));
}

/** Encrypts under a channel's AES key: `digest | ciphertext`. */
export function sealAes(key: Uint8Array, plain: Uint8Array): Buffer {
  const digest = sha256(plain);
  return Buffer.concat([digest, aesCtr(key, digest, plain)]);
}

export function openAes(key: Uint8Array, data: Uint8Array): Buffer | null {
  if (data.length < 32) return null;
  return checked(aesCtr(key, data.subarray(0, 32), data.subarray(32)), data.subarray(0, 32));
}

const checked = (plain: Buffer, digest: Uint8Array): Buffer | null => (timingSafeEqual(sha256(plain), digest) ? plain : null);

/** Short id of a channel key: sha256 of pub.aes{key}. */
export const aesKeyId = (key: Buffer): Buffer => sha256(publicKeyBytes({ kind: 'aes', key }));

export interface ChannelKeys {
  inKey: Buffer;
  outKey: Buffer;
  inId: Buffer;
  outId: Buffer;
}

/**
 * Directional keys of a channel: the x25519 secret of the two channel keys, reversed for one direction;
 * the side with the smaller short id decrypts with the secret as is (adnl-channel.cpp AdnlChannel::create).
 */
export function channelKeys(ourChannelSeed: Uint8Array, peerChannelPublic: Uint8Array, localId: Buffer, peerId: Buffer): ChannelKeys {
  const secret = sharedSecret(ourChannelSeed, peerChannelPublic);
  const reversed = Buffer.from(secret).reverse();
  const cmp = Buffer.compare(localId, peerId);
  const inKey = cmp <= 0 ? secret : reversed;
  const outKey = cmp < 0 ? reversed : secret;
  return { inKey, outKey, inId: aesKeyId(inKey), outId: aesKeyId(outKey) };
}

/** ed25519 signature with a 32-byte seed (node:crypto, wrapped in its PKCS#8 form). */
export function signEd25519(seed: Uint8Array, data: Uint8Array): Buffer {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  return sign(null, data, key);
}

/** Whether `signature` is an ed25519 signature of `data` by `publicKey`; false for malformed input. */
export function verifyEd25519(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKey]), format: 'der', type: 'spki' });
    return verify(null, data, key, signature);
  } catch {
    return false;
  }
}

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_X25519 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519 = Buffer.from('302a300506032b656e032100', 'hex');

export { sha256, keyId };
