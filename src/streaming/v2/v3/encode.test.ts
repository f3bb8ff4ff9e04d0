// The API v3 scalar encoders against their definitions (ton-index-go's types.go): the scratch-buffer
// hash encoding gives Buffer.from(hex, 'hex')'s bytes for any input, shards are `%X` of the u64 whatever
// was seen before.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { v3Hash, v3Shard } from './encode.js';

const hexChar = fc.constantFrom(...'0123456789abcdefABCDEF');

describe('v3Hash', () => {
  it('is standard base64 of the hash bytes, as Buffer.from(hex) reads them, for any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: hexChar, minLength: 64, maxLength: 64 }), fc.string({ unit: hexChar, maxLength: 70 }), fc.string({ maxLength: 80 })), (hex) => {
        expect(v3Hash(hex)).toBe(Buffer.from(hex, 'hex').toString('base64'));
      }),
      { numRuns: 2_000 },
    );
    // one after another: nothing of a longer hash is left in the shared buffer
    expect(v3Hash('ff'.repeat(32))).toBe(Buffer.alloc(32, 0xff).toString('base64'));
    expect(v3Hash('00')).toBe('AA==');
  });
});

describe('v3Shard', () => {
  it('is the upper-case hex of the u64 without leading zeros, also when asked again', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: (1n << 64n) - 1n }), (id) => {
        const hex = id.toString(16).padStart(16, '0');
        for (let i = 0; i < 2; i++) expect(v3Shard(hex)).toBe(id.toString(16).toUpperCase());
      }),
      { numRuns: 2_000 },
    );
    expect(v3Shard('8000000000000000')).toBe('8000000000000000');
    expect(v3Shard('0d83800000000000')).toBe('D83800000000000');
  });
});
