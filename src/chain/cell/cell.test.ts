import { hash as nodeHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { beginCell, Cell, convertToMerkleProof } from '@ton/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CellRef } from './cell.js';
import { fromCore, toCore } from './core.js';
import { bocRoots, parseBoc } from './parse.js';
import { sha256Into } from './sha256.js';
import { Slice } from './slice.js';

const FIXTURES = new URL('../../../test/fixtures/mainnet/', import.meta.url);
const fixtureBocs = (): { name: string; bytes: Buffer }[] =>
  ['blocks', 'proofs', 'config'].flatMap((dir) =>
    readdirSync(new URL(dir, FIXTURES)).filter((f) => f.endsWith('.boc')).map((f) => ({ name: `${dir}/${f}`, bytes: readFileSync(new URL(`${dir}/${f}`, FIXTURES)) })),
  );

/** Every cell under `core` against the same cell of the arena (hashes and depths at every level, bits,
 * references): the differences, as lines (none when they agree), and how many cells were compared. */
function compareTrees(core: Cell, ours: CellRef): { diffs: string[]; cells: number } {
  const diffs: string[] = [];
  const seen = new Set<number>();
  const walk = (c: Cell, r: CellRef, path: string): void => {
    if (seen.has(r.index)) return;
    seen.add(r.index);
    for (let level = 0; level < 4; level++) {
      if (!Buffer.from(r.hashBytes(level)).equals(c.hash(level))) diffs.push(`${path}: hash at level ${level}`);
      if (r.depth(level) !== c.depth(level)) diffs.push(`${path}: depth at level ${level}`);
    }
    if (r.bitLength !== c.bits.length || r.refCount !== c.refs.length || r.isExotic !== c.isExotic || r.levelMask !== c.mask.value) {
      diffs.push(`${path}: shape`);
    }
    const data = Buffer.from(r.dataBytes());
    if (r.bitLength & 7) data[data.length - 1]! &= (0xff << (8 - (r.bitLength & 7))) & 0xff; // drop the completion tag
    const expected = Buffer.alloc(data.length);
    for (let i = 0; i < c.bits.length; i++) if (c.bits.at(i)) expected[i >> 3]! |= 0x80 >> (i & 7);
    if (!data.equals(expected)) diffs.push(`${path}: bits`);
    c.refs.forEach((ref, k) => walk(ref, r.ref(k), `${path}/${k}`));
  };
  walk(core, ours, '');
  return { diffs, cells: seen.size };
}

/** A deterministic random tree of ordinary cells from `seed`. */
function randomTree(seed: number, depth = 4): Cell {
  let s = seed >>> 0 || 1;
  const next = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0), s >>> 8);
  const build = (d: number): Cell => {
    const b = beginCell();
    const bits = next() % 5 === 0 ? next() % 1024 : next() % 300;
    for (let i = 0; i < bits; i++) b.storeBit((next() & 1) === 1);
    const refs = d === 0 ? 0 : next() % 5;
    for (let i = 0; i < refs; i++) b.storeRef(build(d - 1));
    return b.endCell();
  };
  return build(depth);
}

/** A pruned branch standing for `cell` (level 0 → mask 1). */
function pruned(cell: Cell): Cell {
  return beginCell().storeUint(1, 8).storeUint(1, 8).storeBuffer(cell.hash(0)).storeUint(cell.depth(0), 16).endCell({ exotic: true });
}

/** `cell` with every subtree `keep` says no to replaced by its pruned branch. */
function prune(cell: Cell, keep: (c: Cell, at: number) => boolean, at = 0): Cell {
  const b = beginCell().storeBits(cell.bits);
  cell.refs.forEach((ref, k) => b.storeRef(keep(ref, at * 4 + k + 1) ? prune(ref, keep, at * 4 + k + 1) : pruned(ref)));
  return b.endCell();
}

function merkleUpdate(from: Cell, to: Cell): Cell {
  return beginCell().storeUint(4, 8).storeBuffer(from.hash(0)).storeBuffer(to.hash(0)).storeUint(from.depth(0), 16).storeUint(to.depth(0), 16)
    .storeRef(from).storeRef(to).endCell({ exotic: true });
}

describe('cell layer against @ton/core', () => {
  it('every real fixture BoC: the same hashes and depths at every level, bits, references, and a BoC that writes back', () => {
    for (const { name, bytes } of fixtureBocs()) {
      const core = Cell.fromBoc(bytes);
      const ours = bocRoots(bytes);
      expect(ours.length, name).toBe(core.length);
      const compared = core.map((c, k) => compareTrees(c, ours[k]!));
      expect(compared.flatMap((x) => x.diffs), name).toEqual([]);
      expect(compared.reduce((n, x) => n + x.cells, 0), name).toBeGreaterThan(0);
      const back = Cell.fromBoc(ours[0]!.toBoc())[0]!;
      expect(back.hash().equals(core[0]!.hash()), name).toBe(true);
    }
  });

  it('the real Merkle proofs hold pruned branches at level 1 and proofs above them', () => {
    const arena = parseBoc(readFileSync(new URL('proofs/account_proof_EQBvW8.boc', FIXTURES)));
    let prunedCells = 0;
    for (let i = 0; i < arena.count; i++) if (arena.exoticType(i) === 1) prunedCells++;
    expect(prunedCells).toBeGreaterThan(0);
    const root = new CellRef(arena, arena.roots[0]!);
    expect(root.exoticType).toBe(3);
    expect(root.ref(0).hashHex(0)).toBe('39e5cbca5bf69750b5d9897872c3a0d7a3e614e521c53e4de728fafed38dce27');
  });

  it('random trees, pruned into Merkle proofs and updates, hash like @ton/core at every level', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 0, max: 2 ** 31 }), (seed, cut) => {
        const tree = randomTree(seed);
        const keep = (_: Cell, at: number) => ((cut >>> (at % 31)) & 1) === 1;
        const proof = convertToMerkleProof(prune(tree, keep));
        const other = randomTree(seed ^ 0x5a5a5a5a);
        const update = merkleUpdate(prune(tree, keep), prune(other, (c, at) => !keep(c, at)));
        const root = beginCell().storeUint(seed, 32).storeRef(tree).storeRef(proof).storeRef(update).endCell();
        const back = fromCore(root);
        expect(compareTrees(root, back).diffs).toEqual([]);
        expect(toCore(back).hash().equals(root.hash())).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('reads integers at unaligned offsets as @ton/core wrote them', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 48 }), fc.double({ min: 0, max: 1, noNaN: true })), { maxLength: 20 }), (fields) => {
        const b = beginCell();
        const values = fields.map(([n, f]) => Math.floor(f * (2 ** n - 1)));
        fields.forEach(([n], i) => b.storeUint(values[i]!, n));
        const total = fields.reduce((t, [n]) => t + n, 0);
        if (total > 1023) return;
        const s = new Slice(fromCore(b.endCell()));
        fields.forEach(([n], i) => expect(s.uint(n)).toBe(values[i]));
        expect(s.remainingBits).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('reads wide unsigned integers (up to 64 bits and beyond) at unaligned offsets as @ton/core wrote them', () => {
    fc.assert(
      fc.property(fc.nat({ max: 7 }), fc.array(fc.tuple(fc.integer({ min: 1, max: 128 }), fc.bigInt({ min: 0n, max: (1n << 128n) - 1n })), { maxLength: 7 }), (lead, fields) => {
        const b = beginCell().storeUint(0, lead);
        const values = fields.map(([n, v]) => v & ((1n << BigInt(n)) - 1n));
        fields.forEach(([n], i) => b.storeUint(values[i]!, n));
        const s = new Slice(fromCore(b.endCell()));
        s.skip(lead);
        fields.forEach(([n], i) => expect(s.bigUint(n)).toBe(values[i]));
      }),
      { numRuns: 300 },
    );
  });

  it('SHA-256 matches node:crypto for every input length a cell can have', () => {
    const out = new Uint8Array(32);
    for (let n = 0; n <= 512; n++) {
      const data = new Uint8Array(n).map((_, i) => (i * 7 + n * 13) & 0xff);
      sha256Into(data, n, out, 0);
      expect(Buffer.from(out).toString('hex')).toBe(nodeHash('sha256', data));
    }
  });
});
