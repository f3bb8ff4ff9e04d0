// Merkle proofs as a liteserver builds them (the archive server and the fake one): a copy of a cell tree in which only
// the cells a reader walks through stay visible and every other subtree is a pruned branch, wrapped in a
// MerkleProof. Also the paths through dictionaries and shard trees, and multi-root BoCs.
import { beginCell, convertToMerkleProof, type Cell } from '@ton/core';
import { crc32c } from '../../cell/crc32c.js';
import { readLabel } from '../../tlb/hashmap.js';
import { cellBytes } from '../../cell/core.js';
import { CellReader } from '../../cell/core-reader.js';
import { prunedBranch } from '../../blocks/merkle-update.js';

const key = (c: Cell): string => c.hash().toString('hex');

/** Collects the cells a proof must show, then prunes the rest of a tree. */
export class ProofBuilder {
  private readonly open = new Set<string>();
  private readonly whole = new Set<string>();

  /** The cells' data and ref count stay visible; their children are pruned unless opened too. */
  show(...cells: Cell[]): this {
    for (const c of cells) this.open.add(key(c));
    return this;
  }

  /** The cells' whole subtrees stay visible. */
  showWhole(...cells: Cell[]): this {
    for (const c of cells) this.whole.add(key(c));
    return this;
  }

  /** `root` (always shown) with every subtree nobody asked for pruned. */
  prune(root: Cell): Cell {
    const memo = new Map<string, Cell>();
    const visit = (c: Cell, isRoot: boolean): Cell => {
      const h = key(c);
      if (this.whole.has(h)) return c;
      // A subtree that already holds pruned branches (inside a MERKLE_UPDATE) would need a higher level: keep it.
      if (!isRoot && !this.open.has(h)) return c.level() === 0 ? prunedBranch(c) : c;
      if (c.isExotic || c.refs.length === 0) return c;
      const done = memo.get(h);
      if (done) return done;
      const refs = c.refs.map((r) => visit(r, false));
      const b = beginCell().storeBits(c.bits);
      for (const r of refs) b.storeRef(r);
      const out = b.endCell();
      memo.set(h, out);
      return out;
    };
    return visit(root, true);
  }

  /** The MerkleProof cell of `root` as `prune` leaves it. */
  proof(root: Cell): Cell {
    return convertToMerkleProof(this.prune(root));
  }
}

/**
 * The cells a lookup of `key` walks in `Hashmap n X` / `HashmapAug n X Y` from root edge `edge`, and the
 * reader at the leaf's value (null when the path leaves the map: the last cell shows that it does).
 */
export function hashmapPath(edge: Cell, n: number, k: bigint): { cells: Cell[]; value: CellReader | null } {
  const cells: Cell[] = [edge];
  let r = new CellReader(edge);
  let m = n;
  for (;;) {
    const label = readLabel(r, m, true);
    const want = (k >> BigInt(m - label.length)) & ((1n << BigInt(label.length)) - 1n);
    if (want !== label.bits) return { cells, value: null };
    m -= label.length;
    if (m === 0) return { cells, value: r };
    const next = r.cell.refs[Number((k >> BigInt(m - 1)) & 1n)]!;
    cells.push(next);
    r = new CellReader(next);
    m -= 1;
  }
}

/**
 * The nodes of a `BinTree ShardDescr` from its root down to the leaf holding `position` (a shard id, or an
 * account's position), and that leaf's shard id.
 */
export function shardTreePath(root: Cell, position: bigint): { cells: Cell[]; leaf: Cell; shard: bigint } {
  const cells: Cell[] = [];
  let node = root;
  let shard = 1n << 63n;
  for (;;) {
    cells.push(node);
    if (!new CellReader(node).bool()) return { cells, leaf: node, shard };
    const half = (shard & -shard) >> 1n;
    node = position < shard ? node.refs[0]! : node.refs[1]!;
    shard = position < shard ? shard - half : shard + half;
  }
}

/** A standard BoC (no index, CRC32-C) with several roots, each cell once. */
export function multiRootBoc(roots: Cell[]): Buffer {
  const index = new Map<string, number>();
  const order: Cell[] = [];
  const postOrder: Cell[] = [];
  const seen = new Set<string>();
  const visit = (c: Cell): void => {
    const h = key(c);
    if (seen.has(h)) return;
    seen.add(h);
    for (const r of c.refs) visit(r);
    postOrder.push(c);
  };
  for (const r of roots) visit(r);
  // Parents before children: reverse post-order of a depth-first walk from the roots.
  for (let i = postOrder.length - 1; i >= 0; i--) {
    index.set(key(postOrder[i]!), order.length);
    order.push(postOrder[i]!);
  }
  const bytesFor = (n: number) => Math.max(1, Math.ceil((32 - Math.clz32(n)) / 8));
  const sizeBytes = bytesFor(order.length);
  let total = 0;
  for (const c of order) total += 2 + ((c.bits.length + 7) >> 3) + c.refs.length * sizeBytes;
  const offsetBytes = bytesFor(total);
  const out = Buffer.alloc(4 + 2 + 3 * sizeBytes + offsetBytes + roots.length * sizeBytes + total + 4);
  let p = 0;
  const writeN = (v: number, n: number) => {
    for (let i = n - 1; i >= 0; i--) out[p + i] = Math.floor(v / 2 ** (8 * (n - 1 - i))) & 0xff;
    p += n;
  };
  out.writeUInt32BE(0xb5ee9c72, 0);
  p = 4;
  out[p++] = 0x40 | sizeBytes; // crc32c, no index
  out[p++] = offsetBytes;
  writeN(order.length, sizeBytes);
  writeN(roots.length, sizeBytes);
  writeN(0, sizeBytes);
  writeN(total, offsetBytes);
  for (const r of roots) writeN(index.get(key(r))!, sizeBytes);
  for (const c of order) {
    const len = (c.bits.length + 7) >> 3;
    out[p++] = c.refs.length + (c.isExotic ? 8 : 0) + c.mask.value * 32;
    out[p++] = len + (c.bits.length >> 3);
    out.set(cellBytes(c).subarray(0, len), p);
    if (c.bits.length & 7) out[p + len - 1]! |= 0x80 >> (c.bits.length & 7);
    p += len;
    for (const r of c.refs) writeN(index.get(key(r))!, sizeBytes);
  }
  out.writeUInt32LE(crc32c(out.subarray(0, p)), p);
  return out;
}
