import { readFileSync } from 'node:fs';
import { beginCell } from '@ton/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CellRef } from './cell.js';
import { crc32c } from './crc32c.js';
import { BocError, type BocErrorCode } from './errors.js';
import { parseBoc } from './parse.js';

const block = readFileSync(new URL('../../../test/fixtures/mainnet/blocks/tongo-block-6.boc', import.meta.url));
const proof = readFileSync(new URL('../../../test/fixtures/mainnet/proofs/account_proof_EQBvW8.boc', import.meta.url));

/** Parses and hashes every root: what a caller does with a BoC. */
function use(bytes: Uint8Array): void {
  const arena = parseBoc(bytes);
  for (const r of arena.roots) new CellRef(arena, r).hash();
}

function codeOf(bytes: Uint8Array): BocErrorCode | 'ok' {
  try {
    use(bytes);
    return 'ok';
  } catch (err) {
    if (err instanceof BocError) return err.code;
    throw err;
  }
}

/** A BoC without CRC or index, written by hand: header, cells as [d1, d2, ...data, ...refs]. */
function handBoc(cells: number[][], roots = [0]): Buffer {
  const body = cells.flat();
  return Buffer.from([0xb5, 0xee, 0x9c, 0x72, 0x01, 0x02, cells.length, roots.length, 0, body.length >> 8, body.length & 0xff, ...roots, ...body]);
}

/** `bytes` with its CRC32-C recomputed, so a change gets past the checksum to the parser proper. */
function withCrc(bytes: Uint8Array): Buffer {
  const out = Buffer.from(bytes);
  out.writeUInt32LE(crc32c(out.subarray(0, out.length - 4)), out.length - 4);
  return out;
}

describe('malformed BoCs are refused with a named error', () => {
  it('a real block and proof parse', () => {
    expect(codeOf(block)).toBe('ok');
    expect(codeOf(proof)).toBe('ok');
  });

  it('every truncation of a real BoC', () => {
    for (let n = 0; n < proof.length; n++) expect(codeOf(proof.subarray(0, n)), `first ${n} bytes`).not.toBe('ok');
    for (let n = 0; n < block.length; n += 97) expect(codeOf(block.subarray(0, n)), `first ${n} bytes`).not.toBe('ok');
  });

  it('a wrong CRC', () => {
    const bad = Buffer.from(block);
    bad[100]! ^= 0x10;
    expect(codeOf(bad)).toBe('bad-crc');
  });

  it('a bad magic, flags or sizes', () => {
    expect(codeOf(Buffer.from('00112233445566778899', 'hex'))).toBe('bad-magic');
    const flags = Buffer.from(block);
    flags[4] = flags[4]! | 0x08;
    expect(codeOf(flags)).toBe('bad-header');
    // a header that claims 2^24 cells in a few hundred bytes
    expect(codeOf(Buffer.from([0xb5, 0xee, 0x9c, 0x72, 0x03, 0x02, 0xff, 0xff, 0xff, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]))).toBe('absurd-size');
  });

  it('a reference out of range, to itself, or back to a parent (a cycle)', () => {
    expect(codeOf(handBoc([[0x01, 0x00, 5], [0x00, 0x00]]))).toBe('bad-ref'); // cell 0 → 5 of 2
    expect(codeOf(handBoc([[0x01, 0x00, 0]]))).toBe('bad-ref'); // cell 0 → itself
    expect(codeOf(handBoc([[0x01, 0x00, 1], [0x01, 0x00, 0]]))).toBe('bad-ref'); // 0 → 1 → 0
    expect(codeOf(handBoc([[0x00, 0x00]], [3]))).toBe('bad-ref'); // root out of range
    expect(codeOf(handBoc([[0x00, 0x00], [0x00, 0x00]]))).toBe('ok');
  });

  it('cells that are not cells: five references, no completion tag, exotic cells of the wrong shape', () => {
    expect(codeOf(handBoc([[0x05, 0x00, 1, 1, 1, 1, 1], [0x00, 0x00]]))).toBe('bad-cell');
    expect(codeOf(handBoc([[0x00, 0x01, 0x00]]))).toBe('bad-cell');
    expect(codeOf(handBoc([[0x08, 0x02, 0x01]]))).toBe('bad-exotic'); // pruned branch of 8 bits
    expect(codeOf(handBoc([[0x08, 0x02, 0x09]]))).toBe('bad-exotic'); // exotic type 9
    // a Merkle proof whose stated hash is not its child's
    const child = beginCell().storeUint(7, 8).endCell();
    const honest = beginCell().storeUint(3, 8).storeBuffer(child.hash(0)).storeUint(0, 16).storeRef(child).endCell({ exotic: true }).toBoc();
    expect(codeOf(honest)).toBe('ok');
    const liar = Buffer.from(honest);
    liar[liar.indexOf(child.hash(0))]! ^= 1;
    expect(codeOf(withCrc(liar))).toBe('bad-exotic');
  });

  it('a chain of cells deeper than 1024 is refused when hashed, without a stack overflow', () => {
    const n = 5000;
    const cells = Array.from({ length: n }, (_, i) => (i < n - 1 ? [0x01, 0x00, (i + 1) >> 8, (i + 1) & 0xff] : [0x00, 0x00]));
    const body = cells.flat();
    const boc = Buffer.from([0xb5, 0xee, 0x9c, 0x72, 0x02, 0x02, n >> 8, n & 0xff, 0, 1, 0, 0, body.length >> 8, body.length & 0xff, 0, 0, ...body]);
    expect(codeOf(boc)).toBe('absurd-size');
  });

  it('fuzz: random bytes and random changes to real BoCs never crash, hang or pass silently as something else', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        codeOf(bytes);
      }),
      { numRuns: 3000 },
    );
    const prefix = (b: Uint8Array) => Buffer.concat([Buffer.from('b5ee9c72', 'hex'), b]);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 2, maxLength: 200 }), (bytes) => {
        codeOf(prefix(bytes));
      }),
      { numRuns: 3000 },
    );
    for (const base of [proof, block]) {
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.nat(base.length - 5), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }), (changes) => {
          const bad = Buffer.from(base);
          for (const [at, x] of changes) bad[at]! ^= x;
          codeOf(withCrc(bad)); // past the CRC: the parser proper must refuse or accept, never throw anything else
        }),
        { numRuns: base === proof ? 2000 : 300 },
      );
    }
  });
});
