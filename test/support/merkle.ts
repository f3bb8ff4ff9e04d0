// Test helpers that build proofs and tampered proofs out of real cells: prune what a proof leaves out,
// rebuild a cell with one part replaced. A rebuilt cell gets its new hash, as a forger's would.
import { beginCell, Cell, convertToMerkleProof, CellType } from '@ton/core';

/** A pruned branch standing for `c` inside one Merkle layer (level mask 1). */
export function prunedBranch(c: Cell): Cell {
  return beginCell().storeUint(1, 8).storeUint(1, 8).storeBuffer(c.hash(0)).storeUint(c.depth(0), 16).endCell({ exotic: true });
}

/** `cell` with reference `index` replaced by `ref` (exotic cells keep their type; MERKLE_UPDATE bits follow). */
export function withRef(cell: Cell, index: number, ref: Cell): Cell {
  const refs = cell.refs.map((r, i) => (i === index ? ref : r));
  return rebuild(cell, cell.bits, refs);
}

/** `cell` with its data bits replaced (same references). */
export function withBits(cell: Cell, bits: Cell['bits']): Cell {
  return rebuild(cell, bits, cell.refs);
}

/** A cell of `cell`'s type with these bits and references (for changes that touch both at once). */
export function rebuild(cell: Cell, bits: Cell['bits'], refs: Cell[]): Cell {
  const b = beginCell().storeBits(bits);
  for (const r of refs) b.storeRef(r);
  return b.endCell({ exotic: cell.isExotic && cell.type !== CellType.Ordinary });
}

/** Replaces the cell at `path` (reference indexes from `root`) by `replace(old)`, rebuilding every ancestor. */
export function replaceAt(root: Cell, path: number[], replace: (old: Cell) => Cell): Cell {
  if (path.length === 0) return replace(root);
  const [i, ...rest] = path;
  const child = root.refs[i!];
  if (!child) throw new Error(`no reference ${i} on the path`);
  return withRef(root, i!, replaceAt(child, rest, replace));
}

/** The cell at `path` from `root`. */
export function cellAt(root: Cell, path: number[]): Cell {
  let c = root;
  for (const i of path) {
    const next = c.refs[i];
    if (!next) throw new Error(`no reference ${i} on the path`);
    c = next;
  }
  return c;
}

/** `cell`'s data bits with bit `bit` flipped. */
export function flippedBits(cell: Cell, bit: number): Cell['bits'] {
  const b = beginCell();
  for (let i = 0; i < cell.bits.length; i++) b.storeBit(i === bit ? !cell.bits.at(i) : cell.bits.at(i));
  return b.endCell().bits;
}

/** Flips bit `bit` of `cell`'s data (a pruned branch's stored hash, a stored value). */
export function flipBit(cell: Cell, bit: number): Cell {
  return rebuild(cell, flippedBits(cell, bit), cell.refs);
}

/** Proof of `cell` keeping only the cells `keep` accepts (and their ancestors); every other reference is pruned. */
export function proveOnly(cell: Cell, keep: (c: Cell) => boolean): Cell {
  return convertToMerkleProof(pruneExcept(cell, keep) ?? prunedBranch(cell));
}

/** The cell with every subtree that holds no kept cell pruned; null when nothing under it is kept. */
function pruneExcept(cell: Cell, keep: (c: Cell) => boolean): Cell | null {
  const refs = cell.refs.map((r) => pruneExcept(r, keep));
  if (!keep(cell) && refs.every((r) => r === null)) return null;
  return rebuild(cell, cell.bits, refs.map((r, i) => r ?? prunedBranch(cell.refs[i]!)));
}

export function merkleProofOf(cell: Cell): Cell {
  return convertToMerkleProof(cell);
}

/** Reference indexes from `root` to the first cell (depth first) that `match` accepts. */
export function findPath(root: Cell, match: (c: Cell) => boolean): number[] {
  const seen = new Set<string>();
  const walk = (c: Cell): number[] | null => {
    if (match(c)) return [];
    const key = c.hash(0).toString('hex');
    if (seen.has(key)) return null;
    seen.add(key);
    for (let i = 0; i < c.refs.length; i++) {
      const rest = walk(c.refs[i]!);
      if (rest) return [i, ...rest];
    }
    return null;
  };
  const path = walk(root);
  if (!path) throw new Error('no matching cell');
  return path;
}
