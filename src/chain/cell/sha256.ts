// SHA-256 (FIPS 180-4) for cell hashes, as a small WebAssembly module assembled here at load time, with the
// arena's whole hashing loop beside it (hash-cells.ts): one call per BoC builds each cell's representation
// in the module's memory and compresses it, so no JavaScript runs between two cell hashes. A cell's hash
// input is at most 266 bytes: node:crypto spends microseconds per call in setup alone, and SHA-256 in plain
// JS pays two shifts and an or for every rotation; WebAssembly has i32.rotr.
// Measured in bench/decode.ts; tests: cell.test.ts compares it with node:crypto and the hashes with @ton/core.
import { CELLS_PARAMS, hashCellsCode, HashError } from './hash-cells.js';
import { op, section, sleb, uleb } from './wasm-asm.js';

export { HashError };

const K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];
const IV = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

// Memory layout of the module: the digest, the padded input, an error slot; the arena's arrays from ARENA_AT.
const OUT_AT = 544;
const INPUT_AT = 1024;
const ERR_AT = 2048;
const ARENA_AT = 4096;
/** Inputs of up to this many bytes (a cell's is at most 266). */
const MAX_INPUT = 512;
const PAGE = 65536;

/**
 * The body of `run(blocks)`: compresses `blocks` 64-byte blocks at INPUT_AT, writes the digest at OUT_AT. The
 * message schedule lives in 16 locals, each word computed in the round that uses it (no memory round trip).
 */
function compressorCode(): number[] {
  const c: number[] = [];
  const N = 0, PTR = 1, X = 2, T1 = 3, V = 4, HS = 12, W = 20; // locals: a..h at V.., the state at HS.., w[16] at W..
  const get = (l: number) => c.push(op.get, l);
  const set = (l: number) => c.push(op.set, l);
  const i32 = (v: number) => c.push(op.const, ...sleb(v));
  const load = (offset: number) => c.push(op.load, 2, ...uleb(offset));
  const store = (offset: number) => c.push(op.store, 2, ...uleb(offset));
  const rotr = (l: number, r: number) => (get(l), i32(r), c.push(op.rotr));
  // bswap of the value in local X: the words are big-endian, the memory little-endian
  const bswapX = () => (get(X), i32(8), c.push(op.rotl), i32(0x00ff00ff), c.push(op.and), get(X), i32(8), c.push(op.rotr), i32(0xff00ff00), c.push(op.and, op.or));
  const w = (i: number) => W + (i & 15);
  for (let k = 0; k < 8; k++) (i32(IV[k]!), set(HS + k));
  i32(INPUT_AT), set(PTR);
  c.push(op.block, 0x40, op.loop, 0x40);
  get(N), c.push(op.eqz, op.brIf, 1);
  for (let k = 0; k < 8; k++) (get(HS + k), set(V + k));
  for (let i = 0; i < 64; i++) {
    if (i < 16) {
      get(PTR), load(4 * i), set(X), bswapX(), set(w(i));
    } else {
      // w[i] = σ1(w[i-2]) + w[i-7] + σ0(w[i-15]) + w[i-16], in place of w[i-16]
      get(w(i - 16));
      rotr(w(i - 15), 7), rotr(w(i - 15), 18), c.push(op.xor), get(w(i - 15)), i32(3), c.push(op.shrU, op.xor, op.add);
      get(w(i - 7)), c.push(op.add);
      rotr(w(i - 2), 17), rotr(w(i - 2), 19), c.push(op.xor), get(w(i - 2)), i32(10), c.push(op.shrU, op.xor, op.add);
      set(w(i));
    }
    // a..h renamed each round instead of moved
    const [a, b, cc, d, e, f, g, h] = [0, 1, 2, 3, 4, 5, 6, 7].map((j) => V + ((j - i + 64) % 8));
    get(h!), rotr(e!, 6), rotr(e!, 11), c.push(op.xor), rotr(e!, 25), c.push(op.xor, op.add);
    get(g!), get(e!), get(f!), get(g!), c.push(op.xor, op.and, op.xor, op.add);
    i32(K[i]!), c.push(op.add), get(w(i)), c.push(op.add), set(T1);
    get(d!), get(T1), c.push(op.add), set(d!);
    get(T1), rotr(a!, 2), rotr(a!, 13), c.push(op.xor), rotr(a!, 22), c.push(op.xor, op.add);
    get(a!), get(b!), c.push(op.and), get(cc!), get(a!), get(b!), c.push(op.or, op.and, op.or, op.add), set(h!);
  }
  for (let k = 0; k < 8; k++) (get(HS + k), get(V + k), c.push(op.add), set(HS + k));
  get(PTR), i32(64), c.push(op.add), set(PTR);
  get(N), i32(1), c.push(op.sub), set(N);
  c.push(op.br, 0, op.end, op.end);
  for (let k = 0; k < 8; k++) (i32(0), get(HS + k), set(X), bswapX(), store(OUT_AT + 4 * k));
  c.push(op.end);
  return [...uleb(1), ...uleb(W + 16 - 1), 0x7f, ...c]; // one group of i32 locals after the parameter
}

function assemble(): Uint8Array {
  const run = compressorCode();
  const cells = hashCellsCode({ inputAt: INPUT_AT, outAt: OUT_AT, errAt: ERR_AT, runIndex: 0 });
  const name = (s: string) => [...uleb(s.length), ...Buffer.from(s)];
  const body = (code: number[]) => [...uleb(code.length), ...code];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    // types: run (i32) -> (), cells (i32 × 9) -> i32
    ...section(1, [2, 0x60, 1, 0x7f, 0, 0x60, CELLS_PARAMS, ...Array<number>(CELLS_PARAMS).fill(0x7f), 1, 0x7f]),
    ...section(3, [2, 0, 1]),
    ...section(5, [1, 0x00, 1]), // one memory of one page, grown for large arenas
    ...section(7, [3, ...name('mem'), 0x02, 0, ...name('run'), 0x00, 0, ...name('cells'), 0x00, 1]),
    ...section(10, [2, ...body(run), ...body(cells)]),
  ]);
}

// The project's TypeScript lib has no WebAssembly types (no DOM): the three it needs, declared here.
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
const instance = new wasm.Instance(new wasm.Module(assemble()), {});
const memory = instance.exports.mem as { buffer: ArrayBuffer; grow(pages: number): number };
const run = instance.exports.run as (blocks: number) => void;
const cells = instance.exports.cells as (...args: number[]) => number;
/** Views of the memory, made again when it grows (growing detaches the old buffer). */
let heap = new Uint8Array(memory.buffer);

function reserve(bytes: number): void {
  if (bytes > memory.buffer.byteLength) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / PAGE));
  if (heap.buffer !== memory.buffer) heap = new Uint8Array(memory.buffer);
}

/** sha256 of `data[0..length)` into `out[at..at+32)`. */
export function sha256Into(data: Uint8Array, length: number, out: Uint8Array, at: number): void {
  if (length > MAX_INPUT) throw new RangeError(`sha256Into takes at most ${MAX_INPUT} bytes`);
  reserve(0);
  heap.set(data.subarray(0, length), INPUT_AT);
  heap[INPUT_AT + length] = 0x80;
  const total = (length + 9 + 63) & ~63;
  heap.fill(0, INPUT_AT + length + 1, INPUT_AT + total - 4);
  const bits = length * 8;
  heap[INPUT_AT + total - 4] = bits >>> 24;
  heap[INPUT_AT + total - 3] = (bits >>> 16) & 0xff;
  heap[INPUT_AT + total - 2] = (bits >>> 8) & 0xff;
  heap[INPUT_AT + total - 1] = bits & 0xff;
  run(total >> 6);
  out.set(heap.subarray(OUT_AT, OUT_AT + 32), at);
}

/** The arrays of a CellArena that hashing reads, and where its hashes and depths go (hash slots). */
export interface ArenaArrays {
  bytes: Uint8Array;
  count: number;
  d1s: Uint8Array;
  bits: Uint16Array;
  dataAt: Uint32Array;
  refs: Uint32Array;
  slots: Uint32Array;
  hashes: Uint8Array;
  depths: Uint16Array;
}

/**
 * Hashes every cell of an arena at each of its significant levels, children first, into `hashes` and
 * `depths`: the arrays are copied into the module's memory, one call does the work, the results are copied
 * back. Returns 0, or a HashError kind and the index of the cell refused.
 */
export function hashArena(a: ArenaArrays): { error: number; cell: number } {
  const align = (n: number) => (n + 7) & ~7;
  const bytesAt = ARENA_AT;
  const d1At = align(bytesAt + a.bytes.length);
  const bitsAt = align(d1At + a.count);
  const dataAtAt = align(bitsAt + 2 * a.count);
  const refsAt = align(dataAtAt + 4 * a.count);
  const slotsAt = align(refsAt + 16 * a.count);
  const hashesAt = align(slotsAt + 4 * a.count);
  const depthsAt = align(hashesAt + a.hashes.length);
  reserve(depthsAt + 2 * a.depths.length);
  heap.set(a.bytes, bytesAt);
  heap.set(a.d1s, d1At);
  heap.set(new Uint8Array(a.bits.buffer, a.bits.byteOffset, 2 * a.count), bitsAt);
  heap.set(new Uint8Array(a.dataAt.buffer, a.dataAt.byteOffset, 4 * a.count), dataAtAt);
  heap.set(new Uint8Array(a.refs.buffer, a.refs.byteOffset, 16 * a.count), refsAt);
  heap.set(new Uint8Array(a.slots.buffer, a.slots.byteOffset, 4 * a.count), slotsAt);
  const error = cells(a.count, bytesAt, d1At, bitsAt, dataAtAt, refsAt, slotsAt, hashesAt, depthsAt);
  if (error !== 0) return { error, cell: new DataView(memory.buffer).getUint32(ERR_AT, true) };
  a.hashes.set(heap.subarray(hashesAt, hashesAt + a.hashes.length));
  new Uint8Array(a.depths.buffer, a.depths.byteOffset, 2 * a.depths.length).set(heap.subarray(depthsAt, depthsAt + 2 * a.depths.length));
  return { error: 0, cell: -1 };
}
