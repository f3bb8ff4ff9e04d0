// Solves RaptorQ's constraint system for the L intermediate symbols (RFC 6330 section 5.4): the S + H
// precode rows equal zero, each known encoding symbol its encoding row. Plain Gauss-Jordan elimination
// over GF(256) on dense rows — cubic in L, fine for the object sizes the overlay decodes (K' ≤ ~200).
import { addScaled, inverse, scale } from './gf256.js';
import { type CodeParams, encodingColumns, precodeRows } from './rfc6330.js';

export interface KnownSymbol {
  /** Internal symbol id (ISI): source ids as is, padding K..K'-1, repair ids shifted by K' - K. */
  isi: number;
  data: Uint8Array;
}

/** The intermediate symbols, or null when the known symbols do not determine them. */
export function solveIntermediate(p: CodeParams, symbolSize: number, known: readonly KnownSymbol[]): Uint8Array[] | null {
  const rows = precodeRows(p);
  const rhs: Uint8Array[] = rows.map(() => new Uint8Array(symbolSize));
  for (const s of known) {
    const row = new Uint8Array(p.L);
    for (const c of encodingColumns(p, s.isi)) row[c] = row[c]! ^ 1;
    rows.push(row);
    rhs.push(Uint8Array.from(s.data));
  }
  const m = rows.length;
  if (m < p.L) return null;
  for (let col = 0; col < p.L; col++) {
    let pivot = col;
    while (pivot < m && rows[pivot]![col] === 0) pivot++;
    if (pivot === m) return null;
    [rows[col], rows[pivot]] = [rows[pivot]!, rows[col]!];
    [rhs[col], rhs[pivot]] = [rhs[pivot]!, rhs[col]!];
    const prow = rows[col]!;
    const inv = inverse(prow[col]!);
    scale(prow, inv);
    scale(rhs[col]!, inv);
    for (let r = 0; r < m; r++) {
      if (r === col) continue;
      const f = rows[r]![col]!;
      if (f === 0) continue;
      addScaled(rows[r]!, prow, f, col);
      addScaled(rhs[r]!, rhs[col]!, f);
    }
  }
  return rhs.slice(0, p.L);
}

/** The encoding symbol of internal id `isi`: the sum of the intermediate symbols its row names. */
export function encodingSymbol(p: CodeParams, intermediate: readonly Uint8Array[], isi: number): Buffer {
  const out = Buffer.alloc(intermediate[0]!.length);
  for (const c of encodingColumns(p, isi)) addScaled(out, intermediate[c]!, 1);
  return out;
}
