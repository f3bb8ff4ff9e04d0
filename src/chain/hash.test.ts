import { describe, expect, it } from 'vitest';
import { InvalidHashError, parseHash, tryParseHash } from './hash.js';

const HEX = '04c2c26fa7f6f84255d142ff2c4f98666db56879911fc2e83b3a284f20ca48ec';

describe('parseHash', () => {
  it('accepts hex in any case', () => {
    expect(parseHash(HEX)).toBe(HEX);
    expect(parseHash(HEX.toUpperCase())).toBe(HEX);
  });

  it('accepts base64 and base64url, padded or not', () => {
    const bytes = Buffer.from(HEX, 'hex');
    for (const text of [bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('base64').replace(/=$/, '')]) {
      expect(parseHash(text)).toBe(HEX);
    }
  });

  it('accepts base64 whose + arrived as a space', () => {
    const bytes = Buffer.alloc(32, 0xfb); // base64 of 0xfb… is full of '+'
    const b64 = bytes.toString('base64');
    expect(b64).toContain('+');
    expect(parseHash(b64.replace(/\+/g, ' '))).toBe(bytes.toString('hex'));
  });

  it('rejects wrong lengths and garbage with a clear error', () => {
    for (const bad of ['', 'abc', HEX.slice(1), HEX + '0', 'z'.repeat(64), Buffer.alloc(31).toString('base64'), Buffer.alloc(33).toString('base64')]) {
      expect(() => parseHash(bad), bad).toThrow(InvalidHashError);
      expect(tryParseHash(bad)).toBeNull();
    }
    expect(() => parseHash('nope')).toThrow(/invalid hash "nope": expected 64 hex digits/);
  });

  it('rejects non-canonical base64 (non-zero padding bits)', () => {
    const canonical = Buffer.alloc(32).toString('base64'); // AAAA…A=
    const tweaked = canonical.slice(0, 42) + 'B=';
    expect(() => parseHash(tweaked)).toThrow(InvalidHashError);
  });
});
