// RaptorQ for fec.raptorQ{data_size, symbol_size, symbols_count} as TON speaks it (tdfec): the data cut
// in K = symbols_count pieces of symbol_size bytes, zero-padded; symbol id < K is source piece id, a
// larger id is repair symbol ISI = id + K' - K of RFC 6330 with TON's P1 (see rfc6330.ts). Checked
// byte for byte against TON's encoder built from source (ton-raptorq-vectors.json). The npm package
// `raptorq` (cberner, RFC-exact) was measured first: it agrees with TON only when P is not prime.
import { type CodeParams, MAX_K_PADDED, codeParams } from './rfc6330.js';
import { type KnownSymbol, encodingSymbol, solveIntermediate } from './solver.js';

export interface RaptorQParams {
  dataSize: number;
  symbolSize: number;
  symbolsCount: number;
}

export interface FecSymbol {
  id: number;
  data: Buffer;
}

/** Largest object decoded by default: external messages are ≤ 64 KiB (the solver is cubic in K). */
export const MAX_FEC_DATA_SIZE = 1 << 17;
/** TON's overlay FEC symbol size (overlay/broadcast-fec.hpp). */
export const TON_SYMBOL_SIZE = 768;
/** Symbols beyond K we hold before giving up on an object (TON accepts ids below 2K + 4). */
const EXTRA_SYMBOLS = 64;

export class FecError extends Error {
  override readonly name = 'FecError';
}

/** Why parameters cannot be decoded here, or null when they can. */
export function checkParams(p: RaptorQParams, maxDataSize = MAX_FEC_DATA_SIZE): string | null {
  const { dataSize, symbolSize, symbolsCount } = p;
  if (!Number.isInteger(dataSize) || dataSize <= 0 || dataSize > maxDataSize) return `data size ${dataSize} out of range (1..${maxDataSize})`;
  if (!Number.isInteger(symbolSize) || symbolSize <= 0 || symbolSize > 1024) return `symbol size ${symbolSize} out of range (1..1024)`;
  if (symbolsCount !== Math.ceil(dataSize / symbolSize)) return `symbols count ${symbolsCount} does not match ${dataSize}/${symbolSize}`;
  // the solver is cubic in K: small symbols must not buy a huge K
  const maxSymbols = Math.min(MAX_K_PADDED, Math.ceil(maxDataSize / 512));
  if (symbolsCount > maxSymbols) return `${symbolsCount} symbols, more than ${maxSymbols}`;
  return null;
}

/** K' for K source symbols. */
export const paddedSymbols = (k: number): number => codeParams(k).Kp;

/** Collects the symbols of one object until it decodes. Memory: at most K + 64 symbols. */
export class RaptorQDecoder {
  private readonly code: CodeParams;
  private readonly symbols = new Map<number, Buffer>();
  private sourceCount = 0;
  result?: Buffer;

  constructor(
    readonly params: RaptorQParams,
    maxDataSize = MAX_FEC_DATA_SIZE,
  ) {
    const bad = checkParams(params, maxDataSize);
    if (bad) throw new FecError(`RaptorQ: ${bad}`);
    this.code = codeParams(params.symbolsCount);
  }

  /** Adds symbol `id` (TON numbering); returns the data once decodable. Throws FecError on a malformed symbol. */
  add(id: number, data: Uint8Array): Buffer | undefined {
    if (this.result) return this.result;
    const { symbolSize, symbolsCount: K } = this.params;
    if (data.length !== symbolSize) throw new FecError(`RaptorQ: symbol of ${data.length} bytes, expected ${symbolSize}`);
    if (!Number.isInteger(id) || id < 0 || id >= (1 << 24) - (this.code.Kp - K)) throw new FecError(`RaptorQ: symbol id ${id} out of range`);
    if (this.symbols.has(id)) return undefined;
    if (this.symbols.size >= K + EXTRA_SYMBOLS) throw new FecError(`RaptorQ: ${this.symbols.size} symbols and still not decodable`);
    this.symbols.set(id, Buffer.from(data));
    if (id < K) this.sourceCount++;
    if (this.sourceCount === K) return this.finish(this.symbols);
    // try at K symbols, then at K+1, K+2, K+4, … (failure odds fall fast with each extra symbol), so a
    // sender of useless symbols buys at most eight solver runs per object
    const extra = this.symbols.size - K;
    if (extra < 0 || (extra > 1 && (extra & (extra - 1)) !== 0)) return undefined;
    const known: KnownSymbol[] = [];
    for (const [sid, s] of this.symbols) known.push({ isi: sid < K ? sid : sid + this.code.Kp - K, data: s });
    for (let isi = K; isi < this.code.Kp; isi++) known.push({ isi, data: new Uint8Array(symbolSize) });
    const intermediate = solveIntermediate(this.code, symbolSize, known);
    if (!intermediate) return undefined;
    const source = new Map<number, Buffer>();
    for (let i = 0; i < K; i++) source.set(i, this.symbols.get(i) ?? encodingSymbol(this.code, intermediate, i));
    return this.finish(source);
  }

  private finish(source: Map<number, Buffer>): Buffer {
    const { dataSize, symbolSize, symbolsCount } = this.params;
    const out = Buffer.alloc(symbolsCount * symbolSize);
    for (let i = 0; i < symbolsCount; i++) source.get(i)!.copy(out, i * symbolSize);
    this.result = out.subarray(0, dataSize);
    this.symbols.clear();
    return this.result;
  }

  /** Drops the collected symbols (an abandoned object). */
  free(): void {
    this.symbols.clear();
  }
}

/** Decodes from a list of symbols; undefined when they do not suffice. */
export function raptorqDecode(params: RaptorQParams, symbols: Iterable<FecSymbol>, maxDataSize = MAX_FEC_DATA_SIZE): Buffer | undefined {
  const d = new RaptorQDecoder(params, maxDataSize);
  for (const s of symbols) {
    const out = d.add(s.id, s.data);
    if (out) return out;
  }
  return undefined;
}

/** The parameters TON uses for `data` (K = ceil(size / symbolSize)). */
export const raptorqParams = (dataSize: number, symbolSize = TON_SYMBOL_SIZE): RaptorQParams => ({
  dataSize, symbolSize, symbolsCount: Math.ceil(dataSize / symbolSize),
});

/** The K source symbols and `repair` repair symbols of `data`, numbered as TON numbers them. */
export function raptorqEncode(data: Uint8Array, symbolSize = TON_SYMBOL_SIZE, repair = 0, maxDataSize = MAX_FEC_DATA_SIZE): FecSymbol[] {
  const params = raptorqParams(data.length, symbolSize);
  const bad = checkParams(params, maxDataSize);
  if (bad) throw new FecError(`RaptorQ: ${bad}`);
  const K = params.symbolsCount;
  const code = codeParams(K);
  const source: FecSymbol[] = [];
  for (let i = 0; i < K; i++) {
    const piece = Buffer.alloc(symbolSize);
    piece.set(data.subarray(i * symbolSize, (i + 1) * symbolSize));
    source.push({ id: i, data: piece });
  }
  if (repair === 0) return source;
  const known: KnownSymbol[] = source.map((s) => ({ isi: s.id, data: s.data }));
  for (let isi = K; isi < code.Kp; isi++) known.push({ isi, data: new Uint8Array(symbolSize) });
  const intermediate = solveIntermediate(code, symbolSize, known);
  if (!intermediate) throw new FecError('RaptorQ: source symbols do not determine the code (a table error)');
  for (let j = 0; j < repair; j++) source.push({ id: K + j, data: encodingSymbol(code, intermediate, code.Kp + j) });
  return source;
}
