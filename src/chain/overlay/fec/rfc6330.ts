// RaptorQ's code construction (RFC 6330 section 5.3) as TON's tdfec implements it: parameters from
// Table 2, the tuple generator, and the constraint matrix rows (LDPC, HDPC, encoding rows). TON's one
// departure from the RFC, which makes RFC-exact decoders (the `raptorq` npm package) fail on TON symbols:
// P1 is the smallest prime *above* P (tdfec Rfc.cpp: P1 = P + 1, then up to a prime), where the RFC takes
// the smallest prime ≥ P — the two differ whenever P is prime (K' = 49, 55, 69, …).
import { alphaPow, mul as gfMul } from './gf256.js';
import { DEGREE_DISTRIBUTION, SYSTEMATIC_INDICES, V0, V1, V2, V3 } from './rfc6330-tables.js';

export interface CodeParams {
  /** Source symbols. */
  K: number;
  /** K': the padded source block (Table 2). */
  Kp: number;
  J: number;
  S: number;
  H: number;
  W: number;
  L: number;
  P: number;
  P1: number;
  B: number;
}

/** The largest K' our table carries. */
export const MAX_K_PADDED = SYSTEMATIC_INDICES[SYSTEMATIC_INDICES.length - 5]!;

const isPrime = (n: number): boolean => {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
};

export function codeParams(K: number): CodeParams {
  for (let i = 0; i < SYSTEMATIC_INDICES.length; i += 5) {
    const Kp = SYSTEMATIC_INDICES[i]!;
    if (Kp < K) continue;
    const [J, S, H, W] = [SYSTEMATIC_INDICES[i + 1]!, SYSTEMATIC_INDICES[i + 2]!, SYSTEMATIC_INDICES[i + 3]!, SYSTEMATIC_INDICES[i + 4]!];
    const L = Kp + S + H;
    const P = L - W;
    let P1 = P + 1;
    while (!isPrime(P1)) P1++;
    return { K, Kp, J, S, H, W, L, P, P1, B: W - S };
  }
  throw new RangeError(`RaptorQ: K = ${K} is above the supported ${MAX_K_PADDED}`);
}

/** Rand[y, i, m] of section 5.3.5.1 (y taken as an unsigned 32-bit number). */
export function rand(y: number, i: number, m: number): number {
  const x0 = (y + i) & 0xff;
  const x1 = ((y >>> 8) + i) & 0xff;
  const x2 = ((y >>> 16) + i) & 0xff;
  const x3 = ((y >>> 24) + i) & 0xff;
  return ((V0[x0]! ^ V1[x1]! ^ V2[x2]! ^ V3[x3]!) >>> 0) % m;
}

function degree(v: number, W: number): number {
  for (let d = 0; d < DEGREE_DISTRIBUTION.length; d++) if (v < DEGREE_DISTRIBUTION[d]!) return Math.min(W - 2, d);
  throw new RangeError('RaptorQ: degree out of range');
}

/** The intermediate-symbol columns an encoding symbol of internal id X sums (Tuple + Enc, 5.3.5.3-4). */
export function encodingColumns(p: CodeParams, X: number): number[] {
  let A = 53591 + p.J * 997;
  if (A % 2 === 0) A++;
  const y = (10267 * (p.J + 1) + Math.imul(X, A)) >>> 0;
  const d = degree(rand(y, 0, 1 << 20), p.W);
  const a = 1 + rand(y, 1, p.W - 1);
  let b = rand(y, 2, p.W);
  const d1 = d < 4 ? 2 + rand(X, 3, 2) : 2;
  const a1 = 1 + rand(X, 4, p.P1 - 1);
  let b1 = rand(X, 5, p.P1);
  const cols = [b];
  for (let j = 1; j < d; j++) {
    b = (b + a) % p.W;
    cols.push(b);
  }
  while (b1 >= p.P) b1 = (b1 + a1) % p.P1;
  cols.push(p.W + b1);
  for (let j = 1; j < d1; j++) {
    b1 = (b1 + a1) % p.P1;
    while (b1 >= p.P) b1 = (b1 + a1) % p.P1;
    cols.push(p.W + b1);
  }
  return cols;
}

/** The S LDPC rows and H HDPC rows of the constraint matrix (5.3.3.3), dense, L columns each. */
export function precodeRows(p: CodeParams): Uint8Array[] {
  const rows: Uint8Array[] = [];
  for (let i = 0; i < p.S; i++) rows.push(new Uint8Array(p.L));
  for (let col = 0; col < p.B; col++) {
    const i = Math.floor(col / p.S);
    const shift = col % p.S;
    for (const r of [shift, (i + 1 + shift) % p.S, (2 * (i + 1) + shift) % p.S]) rows[r]![col] = 1;
  }
  for (let i = 0; i < p.S; i++) {
    const row = rows[i]!;
    row[p.B + i] = 1;
    row[p.W + (i % p.P)] = row[p.W + (i % p.P)]! ^ 1;
    row[p.W + ((i + 1) % p.P)] = row[p.W + ((i + 1) % p.P)]! ^ 1;
  }
  // HDPC: G = MT · GAMMA, GAMMA[i][j] = alpha^(i-j) (i ≥ j), so G[h][j] = MT[h][j] + alpha · G[h][j+1].
  const n = p.Kp + p.S;
  const mt: Uint8Array[] = [];
  for (let h = 0; h < p.H; h++) mt.push(new Uint8Array(n));
  for (let j = 0; j < n - 1; j++) {
    const a = rand(j + 1, 6, p.H);
    const b = (a + rand(j + 1, 7, p.H - 1) + 1) % p.H;
    mt[a]![j] = 1;
    mt[b]![j] = 1;
  }
  for (let h = 0; h < p.H; h++) mt[h]![n - 1] = alphaPow(h);
  const alpha = alphaPow(1);
  for (let h = 0; h < p.H; h++) {
    const row = new Uint8Array(p.L);
    let acc = 0;
    for (let j = n - 1; j >= 0; j--) {
      acc = mt[h]![j]! ^ gfMul(alpha, acc);
      row[j] = acc;
    }
    row[n + h] = 1;
    rows.push(row);
  }
  return rows;
}

