// What every delivery carries to prove where it came from: the webhook's bearer token, an
// Idempotency-Key (sha256 hex of the body, as the original), and Standard Webhooks headers —
// `webhook-signature: v1,<base64 HMAC-SHA256(secret, "id.timestamp.body")>`, one signature per
// active secret while a rotated secret overlaps.
import { createHmac, hash, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** A new bearer token for the Authorization header of deliveries. */
export function newDeliveryToken(): string {
  return randomBytes(24).toString('base64url');
}

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** Keys decoded once per secret: HMAC keys are reused for every delivery of an endpoint. */
const keyCache = new Map<string, Buffer>();

function cachedKey(secret: string): Buffer {
  let key = keyCache.get(secret);
  if (!key) {
    if (keyCache.size > 10_000) keyCache.clear();
    key = secretKey(secret);
    keyCache.set(secret, key);
  }
  return key;
}

/** One `v1,<base64>` signature of `id.timestamp.body`. */
export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', cachedKey(secret)).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header value: space-separated signatures, newest secret first. */
export function signatureHeader(secrets: readonly string[], messageId: string, timestampSeconds: number, body: string): string {
  return secrets.length === 1 ? sign(secrets[0]!, messageId, timestampSeconds, body) : secrets.map((s) => sign(s, messageId, timestampSeconds, body)).join(' ');
}

/** One-shot hashing (no Hash object per call: it runs for every delivery). */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * The `webhook-id` of a new delivery: 12 hex digits of the event's time in ms, then 20 characters
 * of a digest of endpoint, event type and body — the same event to the same endpoint gets the same
 * id (replays included), and the time prefix makes the outbox's message index grow at its end
 * (fully random ids rewrote a page of it per row, about a tenth of a delivery's CPU).
 */
export function deriveMessageId(endpointId: number, eventType: string, body: string, nowMs: number): string {
  const digest = hash('sha256', `${endpointId}\n${eventType}\n${body}`, 'base64url');
  return timePrefix(nowMs) + digest.slice(0, 20);
}

/** `msg_` and 12 hex digits of the time, kept for the last time asked (a batch shares one). */
let lastPrefix = { ms: -1, prefix: '' };

function timePrefix(nowMs: number): string {
  const ms = Math.max(0, Math.floor(nowMs));
  if (ms !== lastPrefix.ms) lastPrefix = { ms, prefix: `msg_${ms.toString(16).padStart(12, '0').slice(-12)}` };
  return lastPrefix.prefix;
}
