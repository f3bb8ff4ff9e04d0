// GF(256) as RFC 6330 section 5.7 defines it: polynomial x^8 + x^4 + x^3 + x^2 + 1, generator alpha = 2.
// Tables are computed here, not transcribed.
const EXP = new Uint8Array(510);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    EXP[i + 255] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
}

/** MUL[a * 256 + b] = a·b. */
const MUL = new Uint8Array(65536);
for (let a = 1; a < 256; a++) for (let b = 1; b < 256; b++) MUL[a * 256 + b] = EXP[LOG[a]! + LOG[b]!]!;

/** alpha^i (i ≥ 0). */
export const alphaPow = (i: number): number => EXP[i % 255]!;

export const mul = (a: number, b: number): number => MUL[a * 256 + b]!;

export function inverse(a: number): number {
  if (a === 0) throw new RangeError('GF(256): zero has no inverse');
  return EXP[255 - LOG[a]!]!;
}

/** dst[from..] += f · src[from..] (addition is XOR). */
export function addScaled(dst: Uint8Array, src: Uint8Array, f: number, from = 0): void {
  if (f === 0) return;
  if (f === 1) {
    for (let j = from; j < dst.length; j++) dst[j] = dst[j]! ^ src[j]!;
    return;
  }
  const base = f * 256;
  for (let j = from; j < dst.length; j++) dst[j] = dst[j]! ^ MUL[base + src[j]!]!;
}

/** row[..] = f · row[..]. */
export function scale(row: Uint8Array, f: number): void {
  if (f === 1) return;
  const base = f * 256;
  for (let j = 0; j < row.length; j++) row[j] = MUL[base + row[j]!]!;
}
