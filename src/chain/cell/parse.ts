// Reads the bag-of-cells format (crypto/tl/boc.tlb) into a CellArena: one pass over the bytes fills typed
// arrays (where each cell's data starts, its bit length, descriptor, references); nothing is copied and no
// object is made per cell. A second pass, children first, computes and checks each cell's level mask and
// exotic layout. Hashes wait until somebody asks (CellArena.hash).
//   serialized_boc#b5ee9c72 has_idx:(## 1) has_crc32c:(## 1) has_cache_bits:(## 1) flags:(## 2) { flags = 0 }
//     size:(## 3) { size <= 4 } off_bytes:(## 8) { off_bytes <= 8 } cells:(##(size * 8)) roots:(##(size * 8))
//     { roots >= 1 } absent:(##(size * 8)) { roots + absent <= cells } tot_cells_size:(##(off_bytes * 8))
//     root_list:(roots * ##(size * 8)) index:has_idx?(cells * ##(off_bytes * 8))
//     cell_data:(tot_cells_size * [ uint8 ]) crc32c:has_crc32c?uint32
import { CellArena, ExoticType, LEGACY_PRUNED_BITS } from './arena.js';
import { CellRef } from './cell.js';
import { crc32c } from './crc32c.js';
import { BocError } from './errors.js';

const MAGIC = 0xb5ee9c72;
/** The two older magics (with an index; the second with a CRC) that @ton/core and the node still read. */
const MAGIC_IDX = 0x68ff65f3;
const MAGIC_IDX_CRC = 0xacc3a728;

/** The smallest cell is two descriptor bytes: a count of cells beyond bytes/2 is a lie. */
const MIN_CELL_BYTES = 2;

function readN(bytes: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 256 + bytes[at + i]!;
  return v;
}

/** Parses a BoC. Throws BocError naming what is wrong; never reads past the bytes or loops on them. */
export function parseBoc(bytes: Uint8Array): CellArena {
  if (bytes.length < 6) throw new BocError('truncated', `${bytes.length} bytes`);
  const magic = ((bytes[0]! << 24) | (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!) >>> 0;
  let hasIdx: boolean;
  let hasCrc: boolean;
  let size: number;
  if (magic === MAGIC) {
    const b = bytes[4]!;
    hasIdx = (b & 0x80) !== 0;
    hasCrc = (b & 0x40) !== 0;
    if ((b & 0x18) !== 0) throw new BocError('bad-header', `flags ${(b >> 3) & 3} are not 0`);
    size = b & 7;
  } else if (magic === MAGIC_IDX || magic === MAGIC_IDX_CRC) {
    hasIdx = true;
    hasCrc = magic === MAGIC_IDX_CRC;
    size = bytes[4]!;
  } else {
    throw new BocError('bad-magic', `magic 0x${magic.toString(16).padStart(8, '0')}`);
  }
  const offBytes = bytes[5]!;
  if (size < 1 || size > 4) throw new BocError('bad-header', `reference size ${size} is not 1..4`);
  if (offBytes < 1 || offBytes > 6) throw new BocError('bad-header', `offset size ${offBytes} is not 1..6`);
  let p = 6;
  const need = (n: number, what: string): void => {
    if (p + n > bytes.length) throw new BocError('truncated', `${what} needs ${n} bytes at ${p}, ${bytes.length - p} left`);
  };
  need(3 * size + offBytes, 'header');
  const count = readN(bytes, p, size);
  const rootCount = readN(bytes, p + size, size);
  const absent = readN(bytes, p + 2 * size, size);
  const totalSize = readN(bytes, p + 3 * size, offBytes);
  p += 3 * size + offBytes;
  if (rootCount < 1 || rootCount + absent > count) throw new BocError('bad-header', `${rootCount} roots, ${absent} absent of ${count} cells`);
  if (count * MIN_CELL_BYTES > bytes.length || totalSize > bytes.length) {
    throw new BocError('absurd-size', `${count} cells of ${totalSize} bytes in a BoC of ${bytes.length}`);
  }
  if (hasCrc) {
    if (bytes.length < 4) throw new BocError('truncated', 'no room for the CRC');
    const end = bytes.length - 4;
    const stored = (bytes[end]! | (bytes[end + 1]! << 8) | (bytes[end + 2]! << 16) | (bytes[end + 3]! << 24)) >>> 0;
    if (crc32c(bytes.subarray(0, end)) !== stored) throw new BocError('bad-crc', 'CRC32-C does not match');
  }
  need(rootCount * size, 'root list');
  const roots: number[] = [];
  for (let i = 0; i < rootCount; i++, p += size) {
    const r = readN(bytes, p, size);
    if (r >= count) throw new BocError('bad-ref', `root ${r} of ${count} cells`);
    roots.push(r);
  }
  if (hasIdx) {
    need(count * offBytes, 'index');
    p += count * offBytes; // offsets of cells we read in order anyway
  }
  need(totalSize, 'cell data');
  const end = p + totalSize;
  const arena = new CellArena(bytes, count, roots);
  readCells(arena, bytes, p, end, size);
  resolveLevels(arena);
  return arena;
}

/** The roots of a BoC as cells. */
export function bocRoots(bytes: Uint8Array): CellRef[] {
  const arena = parseBoc(bytes);
  return arena.roots.map((r) => new CellRef(arena, r));
}

/** The one root of a BoC that must have exactly one. */
export function bocRoot(bytes: Uint8Array): CellRef {
  const arena = parseBoc(bytes);
  if (arena.roots.length !== 1) throw new BocError('bad-header', `${arena.roots.length} roots where one is expected`);
  return new CellRef(arena, arena.roots[0]!);
}

function readCells(arena: CellArena, bytes: Uint8Array, start: number, end: number, size: number): void {
  const { dataAt, bits, d1s, refs, count } = arena;
  let p = start;
  for (let i = 0; i < count; i++) {
    if (p + 2 > end) throw new BocError('truncated', `cell ${i} of ${count} starts past the cell data`);
    const d1 = bytes[p]!;
    const d2 = bytes[p + 1]!;
    p += 2;
    const refCount = d1 & 7;
    if (refCount > 4) throw new BocError('bad-cell', `cell ${i} has ${refCount} references`);
    const exotic = d1 & 8;
    const mask = d1 >> 5;
    // Stored hashes and depths (with_hashes): skipped, every hash here is computed from the data.
    if (d1 & 16) p += (bitCount(mask) + 1) * (32 + 2);
    const dataLength = (d2 >> 1) + (d2 & 1);
    if (p + dataLength + refCount * size > end) throw new BocError('truncated', `cell ${i} runs past the cell data`);
    let bitLength = (d2 >> 1) * 8;
    if (d2 & 1) {
      // Not byte-aligned: the last byte ends with a completion tag, a 1 followed by zeros.
      const last = bytes[p + dataLength - 1]!;
      if (last === 0) throw new BocError('bad-cell', `cell ${i} has no completion tag`);
      bitLength += 7 - (31 - Math.clz32(last & -last));
    }
    dataAt[i] = p;
    bits[i] = bitLength;
    d1s[i] = refCount | exotic | (mask << 5);
    p += dataLength;
    for (let k = 0; k < refCount; k++, p += size) {
      const r = readN(bytes, p, size);
      // Children come after their parents: this also rules out cycles.
      if (r <= i || r >= count) throw new BocError('bad-ref', `cell ${i} refers to ${r} (of ${count})`);
      refs[i * 4 + k] = r;
    }
  }
}

export function bitCount(mask: number): number {
  return (mask & 1) + ((mask >> 1) & 1) + ((mask >> 2) & 1);
}

/** Children first: each cell's level mask from its children (and for exotic cells, its layout). */
function resolveLevels(arena: CellArena): void {
  const { bytes, dataAt, bits, d1s, refs } = arena;
  for (let i = arena.count - 1; i >= 0; i--) {
    const d1 = d1s[i]!;
    const refCount = d1 & 7;
    let childMask = 0;
    for (let k = 0; k < refCount; k++) childMask |= d1s[refs[i * 4 + k]!]! >> 5;
    let mask = childMask;
    if (d1 & 8) {
      const length = bits[i]!;
      if (length < 8) throw new BocError('bad-exotic', `exotic cell ${i} has ${length} bits`);
      const type = bytes[dataAt[i]!]!;
      if (type === ExoticType.PrunedBranch) {
        // 280 bits: the legacy layout without a mask byte (level 1), still found in real proofs.
        mask = length === LEGACY_PRUNED_BITS ? 1 : length >= 16 ? bytes[dataAt[i]! + 1]! : 0;
        if (length === LEGACY_PRUNED_BITS) {
          if (refCount !== 0) throw new BocError('bad-exotic', `pruned branch ${i} has ${refCount} refs`);
        } else if (refCount !== 0 || mask < 1 || mask > 7 || length !== 16 + bitCount(mask) * (256 + 16)) {
          throw new BocError('bad-exotic', `pruned branch ${i}: mask ${mask}, ${length} bits, ${refCount} refs`);
        }
      } else if (type === ExoticType.Library) {
        if (refCount !== 0 || length !== 8 + 256) throw new BocError('bad-exotic', `library cell ${i}: ${length} bits, ${refCount} refs`);
        mask = 0;
      } else if (type === ExoticType.MerkleProof) {
        if (refCount !== 1 || length !== 8 + 256 + 16) throw new BocError('bad-exotic', `Merkle proof ${i}: ${length} bits, ${refCount} refs`);
        mask = childMask >> 1;
      } else if (type === ExoticType.MerkleUpdate) {
        if (refCount !== 2 || length !== 8 + 2 * (256 + 16)) throw new BocError('bad-exotic', `Merkle update ${i}: ${length} bits, ${refCount} refs`);
        mask = childMask >> 1;
      } else {
        throw new BocError('bad-exotic', `cell ${i} has unknown exotic type ${type}`);
      }
    }
    // The mask the contents give wins over the declared one, as in @ton/core: real proofs carry legacy
    // pruned branches declared at level 0.
    d1s[i] = (d1 & 0x1f) | (mask << 5);
  }
}
