// Hashes on input (tx, block root/file, trace, message): hex or base64/base64url (compat.md §1),
// normalised to 64 lowercase hex.
import type { HashHex } from './model.js';

export class InvalidHashError extends Error {
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super(`invalid hash ${JSON.stringify(input.length > 80 ? `${input.slice(0, 80)}…` : input)}: ${reason}`);
    this.name = 'InvalidHashError';
  }
}

const HEX = /^[0-9a-fA-F]{64}$/;
// 32 bytes are 43 base64 characters plus one `=` of padding (optional here).
const BASE64 = /^[A-Za-z0-9+/]{43}=?$/;
const BASE64URL = /^[A-Za-z0-9_-]{43}=?$/;

/** 64 hex (any case) or base64/base64url of 32 bytes → 64 lowercase hex. Throws InvalidHashError. */
export function parseHash(input: string): HashHex {
  if (typeof input !== 'string') throw new InvalidHashError(String(input), 'not a string');
  const trimmed = input.trim();
  if (HEX.test(trimmed)) return trimmed.toLowerCase();
  // A `+` of standard base64 arrives as a space when it sat unescaped in a query string (even a leading one).
  const text = BASE64.test(trimmed) || BASE64URL.test(trimmed) ? trimmed : input.replace(/ /g, '+').trim();
  if (BASE64.test(text) || BASE64URL.test(text)) {
    const standard = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=$/, '');
    const bytes = Buffer.from(standard, 'base64');
    // The last character carries 2 spare bits; a canonical encoding has them zero.
    if (bytes.length === 32 && bytes.toString('base64').replace(/=$/, '') === standard) return bytes.toString('hex');
    throw new InvalidHashError(input, 'base64 with non-zero padding bits');
  }
  throw new InvalidHashError(input, 'expected 64 hex digits or 32 bytes in base64/base64url');
}

/** Like parseHash, null instead of throwing. */
export function tryParseHash(input: string): HashHex | null {
  try {
    return parseHash(input);
  } catch {
    return null;
  }
}
