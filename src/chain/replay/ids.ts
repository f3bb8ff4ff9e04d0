// Cheap deterministic randomness for the replay source: a seeded PRNG for choices, and unique
// hash-looking ids made from a counter through a bijective 32-bit mix (no crypto per id, so
// generation stays far cheaper than consumption).
import type { AccountId, HashHex } from '../model.js';

/** The 32-bit finaliser of MurmurHash3: a bijection on 32-bit integers that scatters bits. */
export function mix32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

const HEX_BYTE: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function hex32(x: number): string {
  return HEX_BYTE[x >>> 24]! + HEX_BYTE[(x >>> 16) & 255]! + HEX_BYTE[(x >>> 8) & 255]! + HEX_BYTE[x & 255]!;
}

/** A seeded PRNG (a Weyl sequence through mix32): fast, reproducible, good enough for load shapes. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = mix32(seed ^ 0x9e3779b9);
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    return mix32(this.state) / 4294967296;
  }

  /** Uniform integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
}

/**
 * Unique 64-hex hashes from a counter: the first two words are a bijection of the counter (so
 * no two ids are equal), the next two scatter it further, the rest is a salt of this generator.
 */
export class HashSequence {
  private counter = 0;
  private readonly k: number[];
  private readonly salt: string;

  constructor(seed: number, purpose: number) {
    this.k = [1, 2, 3, 4].map((i) => mix32(seed * 31 + purpose * 7919 + i));
    this.salt = hex32(mix32(this.k[0]! ^ 0xa5a5a5a5)) + hex32(mix32(this.k[1]! ^ 0x5a5a5a5a)) + hex32(mix32(this.k[2]! + 17)) + hex32(mix32(this.k[3]! + 29));
  }

  next(): HashHex {
    const c = this.counter++;
    const lo = c >>> 0;
    const hi = Math.floor(c / 4294967296);
    const a = mix32(lo ^ this.k[0]!);
    const b = mix32(((hi ^ this.k[1]!) + a) >>> 0);
    return hex32(a) + hex32(b) + hex32(mix32(a ^ this.k[2]!)) + hex32(mix32(b ^ this.k[3]!)) + this.salt;
  }

  /** How many ids were handed out. */
  get count(): number {
    return this.counter;
  }
}

/**
 * `count` distinct basechain account ids derived from the seed. Distinct because the first word
 * is a bijection of the index; take every pool from one call (later words follow the first).
 */
export function accountIds(seed: number, count: number): AccountId[] {
  const out: AccountId[] = new Array(count);
  const k = mix32(seed * 131 + 104729);
  for (let i = 0; i < count; i++) {
    let w = mix32((i ^ k) >>> 0);
    let id = '0:' + hex32(w);
    for (let j = 1; j < 8; j++) {
      w = mix32((w + j * 0x9e3779b9) >>> 0);
      id += hex32(w);
    }
    out[i] = id;
  }
  return out;
}
