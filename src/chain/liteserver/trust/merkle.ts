// Merkle-proof primitives every proof check builds on: unwrap a proof against a trusted hash, read a
// MERKLE_UPDATE's hashes, read proof cells strictly, and look keys up in dictionaries so that "absent"
// is only said when the proof shows it. @ton/core's Dictionary skips pruned branches silently, so a key
// under a pruned branch would look absent: never use it on proofs.
import { Cell, CellType, exoticMerkleUpdate } from '@ton/core';
import { lookupHashmapAt as lookupHashmapReader } from '../../tlb/hashmap.js';
import { CellRef } from '../../cell/cell.js';
import { CellReader, readerOf } from '../../cell/core-reader.js';
import type { Reader } from '../../cell/reader.js';
import { expectHash, ProofError, proofRead } from './errors.js';

/** A 256-bit hash as lowercase hex or as bytes (TL replies carry bytes, the chain model hex). */
export type HashLike = string | Uint8Array;

export function hashHex(hash: HashLike): string {
  return typeof hash === 'string' ? hash.toLowerCase() : Buffer.from(hash).toString('hex');
}

/** Level-0 hash (the hash of the original, unpruned cell) as lowercase hex. */
export function cellHash(cell: Cell): string {
  return cell.hash(0).toString('hex');
}

export function isPruned(cell: Cell): boolean {
  return cell.type === CellType.PrunedBranch;
}

/** Parses a proof BoC; a bad BoC or a Merkle cell whose stored hash disagrees is `malformed`. */
export function proofRoots(boc: Buffer, check: string, count?: number): Cell[] {
  let roots: Cell[];
  try {
    roots = Cell.fromBoc(boc);
  } catch (err) {
    throw new ProofError(check, 'malformed', `not a valid BoC: ${(err as Error).message}`);
  }
  if (count !== undefined && roots.length !== count) {
    throw new ProofError(check, 'malformed', `expected ${count} root(s), got ${roots.length}`);
  }
  return roots;
}

/**
 * The cell a MerkleProof root proves. `Cell.fromBoc` already checked the stored hash against the cell;
 * with `expectedHash` (hex) the proven cell's hash must equal it, which anchors the proof.
 */
export function unwrapMerkleProof(root: Cell, check: string, expectedHash?: HashLike): Cell {
  if (root.type !== CellType.MerkleProof) throw new ProofError(check, 'malformed', `root is not a Merkle proof (cell type ${root.type})`);
  const proven = root.refs[0];
  if (!proven) throw new ProofError(check, 'malformed', 'Merkle proof has no reference');
  if (expectedHash !== undefined) expectHash(check, cellHash(proven), hashHex(expectedHash), 'proven cell hash');
  return proven;
}

/** `!merkle_update#04 old_hash:bits256 new_hash:bits256 old_depth:uint16 new_depth:uint16 old:^X new:^X`, hashes as hex. */
export function merkleUpdateHashes(cell: Cell, check: string): { oldHash: string; newHash: string } {
  if (isPruned(cell)) throw new ProofError(check, 'not-proven', 'the MERKLE_UPDATE cell is pruned');
  if (cell.type !== CellType.MerkleUpdate) throw new ProofError(check, 'malformed', `cell type ${cell.type} is not a MERKLE_UPDATE`);
  const update = proofRead(check, () => exoticMerkleUpdate(cell.bits, cell.refs));
  return { oldHash: update.proofHash1.toString('hex'), newHash: update.proofHash2.toString('hex') };
}

/** A reader over a proof cell that must be present: a pruned cell is `not-proven` for `check`. */
export function provenReader(cell: Cell, check: string): CellReader;
export function provenReader(cell: CellRef, check: string): Reader<CellRef>;
export function provenReader(cell: Cell | CellRef, check: string): Reader<Cell> | Reader<CellRef> {
  const pruned = cell instanceof CellRef ? cell.isPruned : isPruned(cell);
  if (pruned) throw new ProofError(check, 'not-proven', `cell ${(cell instanceof CellRef ? cell.hashHex(0) : cellHash(cell)).slice(0, 16)}… is pruned`);
  return proofRead(check, () => readerOf(cell));
}

/**
 * Result of a lookup in a proof. `absent` only when the key's path leaves the map at a cell the proof holds
 * (an empty map, or a label that diverges); `not-proven` when the path reaches a pruned cell.
 */
export type ProvenLookup =
  | { status: 'found'; value: CellReader }
  | { status: 'absent' }
  | { status: 'not-proven'; prunedHash: string };

/**
 * Looks `key` (n bits, unsigned) up in `Hashmap n X` / `HashmapAug n X Y` whose root edge is `edge`. The found
 * reader sits at the leaf's `value:X` (`extra:Y value:X` for the augmented form); the walk is tlb/hashmap.ts's.
 */
export function lookupHashmap(edge: Cell, n: number, key: bigint, check = 'dictionary'): ProvenLookup {
  if (isPruned(edge)) return { status: 'not-proven', prunedHash: cellHash(edge) };
  return lookupHashmapAt(new CellReader(edge), n, key, check);
}

/** Like lookupHashmap, for a map whose root edge starts at the reader (inline, e.g. `AccountBlock.transactions`). */
export function lookupHashmapAt(at: CellReader, n: number, key: bigint, check = 'dictionary'): ProvenLookup {
  const found = proofRead(check, () => lookupHashmapReader(at, n, key));
  if (found.status === 'pruned') return { status: 'not-proven', prunedHash: found.prunedHash };
  return found.status === 'found' ? { status: 'found', value: found.value as CellReader } : found;
}

/** `HashmapE n X` / `HashmapAugE n X Y` at the reader (one bit, then the root in a reference). Consumes both. */
export function lookupHashmapE(r: CellReader, n: number, key: bigint, check = 'dictionary'): ProvenLookup {
  const root = proofRead(check, () => r.maybeRef());
  return root ? lookupHashmap(root, n, key, check) : { status: 'absent' };
}

/** The found value, or null when proven absent; `not-proven` throws for `check`. */
export function provenValue(lookup: ProvenLookup, check: string, what: string): CellReader | null {
  if (lookup.status === 'not-proven') {
    throw new ProofError(check, 'not-proven', `${what} lies under pruned cell ${lookup.prunedHash.slice(0, 16)}…`);
  }
  return lookup.status === 'found' ? lookup.value : null;
}

/** Key of an n-bit signed dictionary key (workchain ids) as the unsigned value lookups take. */
export function signedKey(value: number, n: number): bigint {
  return BigInt.asUintN(n, BigInt(value));
}
