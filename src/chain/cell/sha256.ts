// SHA-256 (FIPS 180-4) for cell hashes, as a small WebAssembly module assembled here at load time. A cell's
// hash input is at most 266 bytes: node:crypto spends several microseconds per call in setup alone, and
// SHA-256 in plain JS pays two shifts and an or for every rotation. WebAssembly has i32.rotr, and the
// caller writes its input straight into the module's memory (SHA_INPUT), so nothing is copied to hash.
// Measured in bench/decode.ts; test: sha256.test.ts compares it with node:crypto.

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

// Memory layout of the module (one 64 KiB page): the message schedule, the digest, the padded input.
const W_AT = 256;
const OUT_AT = 544;
const INPUT_AT = 1024;
/** Inputs of up to this many bytes (a cell's is at most 266). */
const MAX_INPUT = 512;

// The few WebAssembly opcodes the compressor uses.
const op = { block: 0x02, loop: 0x03, br: 0x0c, brIf: 0x0d, end: 0x0b, get: 0x20, set: 0x21, tee: 0x22, load: 0x28, store: 0x36, const: 0x41, eqz: 0x45, add: 0x6a, sub: 0x6b, and: 0x71, or: 0x72, xor: 0x73, shrU: 0x76, rotl: 0x77, rotr: 0x78 };

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  n |= 0;
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return (out.push(b), out);
    out.push(b | 0x80);
  }
}

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

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function assemble(): Uint8Array {
  const code = compressorCode();
  const name = (s: string) => [...uleb(s.length), ...Buffer.from(s)];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 1, 0x7f, 0]), // type (i32) -> ()
    ...section(3, [1, 0]), // one function of that type
    ...section(5, [1, 0x00, 1]), // one memory of one page
    ...section(7, [2, ...name('mem'), 0x02, 0, ...name('run'), 0x00, 0]),
    ...section(10, [1, ...uleb(code.length), ...code]),
  ]);
}

// The project's TypeScript lib has no WebAssembly types (no DOM): the three it needs, declared here.
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
const instance = new wasm.Instance(new wasm.Module(assemble()), {});
const memory = instance.exports.mem as { buffer: ArrayBuffer };
const run = instance.exports.run as (blocks: number) => void;
const input = new Uint8Array(memory.buffer, INPUT_AT, MAX_INPUT + 72);
const digest = new Uint8Array(memory.buffer, OUT_AT, 32);

/** Where a caller writes its input (up to 512 bytes) for sha256Input, saving a copy. */
export const SHA_INPUT: Uint8Array = input;

/** sha256 of `data[0..length)` into `out[at..at+32)`. */
export function sha256Into(data: Uint8Array, length: number, out: Uint8Array, at: number): void {
  if (length > MAX_INPUT) throw new RangeError(`sha256Into takes at most ${MAX_INPUT} bytes`);
  input.set(data.subarray(0, length));
  sha256Input(length, out, at);
}

/** sha256 of `SHA_INPUT[0..length)` into `out[at..at+32)`; SHA_INPUT is overwritten. */
export function sha256Input(length: number, out: Uint8Array, at: number): void {
  if (length > MAX_INPUT) throw new RangeError(`sha256Input takes at most ${MAX_INPUT} bytes`);
  input[length] = 0x80;
  const total = (length + 9 + 63) & ~63;
  input.fill(0, length + 1, total - 4);
  const bits = length * 8;
  input[total - 4] = bits >>> 24;
  input[total - 3] = (bits >>> 16) & 0xff;
  input[total - 2] = (bits >>> 8) & 0xff;
  input[total - 1] = bits & 0xff;
  run(total >> 6);
  for (let i = 0; i < 32; i++) out[at + i] = digest[i]!;
}
