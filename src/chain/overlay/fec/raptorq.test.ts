// RaptorQ as TON speaks it (our encoder and decoder). Vectors: symbols TON's own encoder (ton-blockchain/ton ca7d6e4, tdfec
// td::fec::RaptorQEncoder::create(data, symbol_size)->gen_symbol(id), built from source for this test)
// produced for a known input, in ton-raptorq-vectors.json; the input is regenerated here from its LCG.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FecError, RaptorQDecoder, paddedSymbols, raptorqDecode, raptorqEncode, raptorqParams } from './raptorq.js';
import { codeParams } from './rfc6330.js';

interface Vectors {
  source: string;
  cases: { dataSize: number; symbolSize: number; symbolsCount: number; symbols: { id: number; hex: string }[] }[];
  /** Larger objects: sha256 of TON's symbols K-2 … K+21 (the symbols themselves would be 100s of KiB). */
  digestCases: { dataSize: number; symbolSize: number; symbolsCount: number; sha256: { id: number; sha256: string }[] }[];
}
const vectors = JSON.parse(readFileSync(new URL('./ton-raptorq-vectors.json', import.meta.url), 'utf8')) as Vectors;

/** The vectors' input: bytes of x = x * 1103515245 + 12345 (mod 2^32) shifted right 16, x starting at 1. */
function lcgData(size: number): Buffer {
  const out = Buffer.alloc(size);
  let x = 1;
  for (let i = 0; i < size; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = (x >>> 16) & 0xff;
  }
  return out;
}

describe("RaptorQ against TON's encoder", () => {
  for (const c of vectors.cases) {
    const data = lcgData(c.dataSize);
    const symbols = c.symbols.map((s) => ({ id: s.id, data: Buffer.from(s.hex, 'hex') }));
    const params = { dataSize: c.dataSize, symbolSize: c.symbolSize, symbolsCount: c.symbolsCount };

    it(`${c.dataSize} bytes in ${c.symbolSize}-byte symbols: source symbols are the padded data`, () => {
      for (const s of symbols.filter((s) => s.id < c.symbolsCount)) {
        const piece = Buffer.alloc(c.symbolSize);
        data.copy(piece, 0, s.id * c.symbolSize, (s.id + 1) * c.symbolSize);
        expect(s.data.equals(piece)).toBe(true);
      }
    });

    it(`${c.dataSize} bytes in ${c.symbolSize}-byte symbols: decodes TON's repair symbols alone`, () => {
      const repair = symbols.filter((s) => s.id >= c.symbolsCount);
      expect(raptorqDecode(params, repair)?.equals(data)).toBe(true);
      // with every other repair symbol lost, as long as K + 2 remain
      const sparse = repair.filter((_, i) => i % 2 === 0);
      if (sparse.length >= c.symbolsCount + 2) expect(raptorqDecode(params, sparse)?.equals(data)).toBe(true);
    });

    it(`${c.dataSize} bytes in ${c.symbolSize}-byte symbols: our encoder writes TON's symbols byte for byte`, () => {
      const maxId = Math.max(...symbols.map((s) => s.id));
      const ours = new Map(raptorqEncode(data, c.symbolSize, maxId + 1 - c.symbolsCount).map((s) => [s.id, s.data.toString('hex')]));
      for (const s of c.symbols) expect(ours.get(s.id)).toBe(s.hex);
    });
  }

  for (const c of vectors.digestCases) {
    it(`${c.dataSize} bytes (K = ${c.symbolsCount}): our symbols hash like TON's, and TON's repair symbols decode`, () => {
      const data = lcgData(c.dataSize);
      const ours = raptorqEncode(data, c.symbolSize, 24, 1 << 20);
      const byId = new Map(ours.map((s) => [s.id, s.data]));
      for (const want of c.sha256) expect(createHash('sha256').update(byId.get(want.id)!).digest('hex')).toBe(want.sha256);
      const repairOnly = ours.filter((s) => s.id >= c.symbolsCount - 2).concat(ours.filter((s) => s.id < c.symbolsCount - 2).slice(0, c.symbolsCount - 24));
      expect(raptorqDecode(c, repairOnly, 1 << 20)?.equals(data)).toBe(true);
    });
  }

  it('pads K to the RFC 6330 source block sizes', () => {
    expect([1, 3, 10, 11, 16, 100].map(paddedSymbols)).toEqual([10, 10, 10, 12, 18, 101]);
  });

  it("takes P1 as TON does: the smallest prime above P (the RFC's is ≥ P)", () => {
    // K' = 69: L = 69 + 13 + 10 = 92, W = 79, P = 13 (prime): RFC P1 = 13, TON's 17 — the 50000-byte vector proves it.
    expect(codeParams(66)).toMatchObject({ Kp: 69, L: 92, W: 79, P: 13, P1: 17 });
    expect(codeParams(60)).toMatchObject({ Kp: 60, P: 12, P1: 13 });
  });
});

describe('RaptorQ round trips', () => {
  for (const size of [1, 767, 768, 769, 5000, 65536]) {
    it(`${size} bytes survive a 30% loss`, () => {
      const data = randomBytes(size);
      const params = raptorqParams(size);
      const symbols = raptorqEncode(data, 768, params.symbolsCount + 8);
      const kept = symbols.filter((_, i) => i % 10 >= 3);
      expect(kept.length).toBeGreaterThanOrEqual(params.symbolsCount);
      expect(raptorqDecode(params, kept)?.equals(data)).toBe(true);
    });
  }

  it('needs at least K symbols', () => {
    const data = randomBytes(4000);
    const params = raptorqParams(4000);
    const symbols = raptorqEncode(data, 768, 10).slice(params.symbolsCount);
    expect(raptorqDecode(params, symbols.slice(0, params.symbolsCount - 1))).toBeUndefined();
  });

  it('refuses bad parameters and malformed symbols without breaking later decodes', () => {
    expect(() => new RaptorQDecoder({ dataSize: 1000, symbolSize: 768, symbolsCount: 5 })).toThrow(FecError);
    expect(() => new RaptorQDecoder({ dataSize: 4000, symbolSize: 2000, symbolsCount: 2 })).toThrow(FecError);
    // tiny symbols may not buy a K the cubic solver would choke on
    expect(() => new RaptorQDecoder({ dataSize: 100_000, symbolSize: 1, symbolsCount: 100_000 })).toThrow(/more than/);
    expect(() => new RaptorQDecoder({ dataSize: 1 << 30, symbolSize: 768, symbolsCount: (1 << 30) / 768 })).toThrow(FecError);
    const d = new RaptorQDecoder(raptorqParams(2000));
    expect(() => d.add(0, Buffer.alloc(767))).toThrow(FecError);
    expect(() => d.add(1 << 24, Buffer.alloc(768))).toThrow(FecError);
    expect(() => d.add(-1, Buffer.alloc(768))).toThrow(FecError);
    // a repeated id counts once: two copies of one symbol do not make K = 3 symbols
    expect(d.add(5, Buffer.alloc(768, 1))).toBeUndefined();
    expect(d.add(5, Buffer.alloc(768, 1))).toBeUndefined();
    expect(d.add(5, Buffer.alloc(768, 2))).toBeUndefined();
    d.free();
    const data = randomBytes(2000);
    expect(raptorqDecode(raptorqParams(2000), raptorqEncode(data, 768, 2).slice(2))?.equals(data)).toBe(true);
  });
});
