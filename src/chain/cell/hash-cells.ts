// The per-cell hashing loop of CellArena, as a WebAssembly function beside the SHA-256 compressor
// (sha256.ts): one call hashes every cell of an arena, children first (from the last cell back: children
// come after their parents), over the arena's arrays copied into the module's memory. For each cell and each
// significant level it writes the TVM's representation (crypto/vm/cells/DataCell.cpp: d1 d2, the data or
// the previous level's hash, the children's depths, the children's hashes) and hashes it; a pruned branch's
// lower hashes and depths are copied from its data; a Merkle cell's stated hashes are checked.
// Returns 0, or an error kind (HashError) with the cell's index at errAt.
import { Code, op } from './wasm-asm.js';

/** What `cells` returns when a cell is refused. */
export const HashError = { MerkleMismatch: 1, TooDeep: 2 } as const;

/** Depth beyond which a cell is refused (the TVM's max_depth). */
const MAX_DEPTH = 1024;
const LEGACY_PRUNED_BITS = 8 + 256 + 16;

// Parameters (0..8), then locals; all i32.
const COUNT = 0, BYTES = 1, D1S = 2, BITS = 3, DATAAT = 4, REFS = 5, SLOTS = 6, HASHES = 7, DEPTHS = 8;
const I = 9, D1 = 10, MASK = 11, N = 12, BITLEN = 13, DATA = 14, FIRST = 15, TYPE = 16, LEVEL = 17, H = 18;
const P = 19, PREV = 20, BELOW = 21, OUT = 22, LM = 23, DEPTH = 24, K = 25, C = 26, SLOT = 27, D = 28, LEN = 29;
const HP = 30, PAD = 31, SHIFT = 32;
export const CELLS_PARAMS = 9;
const LOCALS = SHIFT + 1 - CELLS_PARAMS;

/** Where the compressor (sha256.ts) takes its input and leaves its digest, and where errors name a cell. */
export interface HasherMemory {
  inputAt: number;
  outAt: number;
  errAt: number;
  /** Function index of `run(blocks)`. */
  runIndex: number;
}

/** The body of `cells(count, bytes, d1s, bits, dataAt, refs, slots, hashes, depths) -> error`. */
export function hashCellsCode(m: HasherMemory): number[] {
  const c = new Code();
  const addShl = (base: number, index: number, shift: number) => c.get(base).get(index).i32(shift).emit(op.shl, op.add);
  const fail = (kind: number) => c.i32(0).get(I).store(m.errAt).i32(kind).emit(op.return);

  /** Hashes cell I at one level: descriptor mask LM, previous hash slot PREV (-1: the data), children's level mask BELOW, into slot OUT. */
  const hashLevel = (): void => {
    c.i32(m.inputAt).set(P);
    c.get(P).get(N).get(D1).i32(8).emit(op.and, op.or).get(LM).i32(5).emit(op.shl, op.or).store8();
    c.get(P).get(BITLEN).i32(3).emit(op.shrU).get(BITLEN).i32(7).emit(op.add).i32(3).emit(op.shrU, op.add).store8(1);
    c.get(P).i32(2).emit(op.add).set(P);
    c.get(PREV).i32(-1).emit(op.ne, op.if, 0x40);
    c.get(P), addShl(HASHES, PREV, 5), c.i32(32).copy();
    c.get(P).i32(32).emit(op.add).set(P);
    c.emit(op.else);
    // The BoC holds the data already padded with its completion tag, as the hash wants it.
    c.get(BITLEN).i32(7).emit(op.add).i32(3).emit(op.shrU).set(LEN);
    c.get(P).get(DATA).get(LEN).copy();
    c.get(P).get(LEN).emit(op.add).set(P);
    c.emit(op.end);
    // the children: depths from P, hashes from HP
    c.i32(0).set(DEPTH).i32(0).set(K);
    c.get(P).get(N).i32(1).emit(op.shl, op.add).set(HP);
    c.emit(op.block, 0x40, op.loop, 0x40);
    c.get(K).get(N).emit(op.geU, op.brIf, 1);
    addShl(REFS, I, 4), c.get(K).i32(2).emit(op.shl, op.add).load().set(C);
    addShl(SLOTS, C, 2), c.load().get(D1S).get(C).emit(op.add).load8().i32(5).emit(op.shrU).get(BELOW).emit(op.and, op.popcnt, op.add).set(SLOT);
    addShl(DEPTHS, SLOT, 1), c.load16().set(D);
    c.get(D).get(DEPTH).emit(op.geU, op.if, 0x40).get(D).i32(1).emit(op.add).set(DEPTH).emit(op.end);
    c.get(P).get(D).i32(8).emit(op.shrU).store8();
    c.get(P).get(D).store8(1);
    c.get(P).i32(2).emit(op.add).set(P);
    addShl(HP, K, 5), addShl(HASHES, SLOT, 5), c.i32(32).copy();
    c.get(K).i32(1).emit(op.add).set(K);
    c.emit(op.br, 0, op.end, op.end);
    c.get(P).get(N).i32(5).emit(op.shl, op.add).set(P);
    c.get(DEPTH).i32(MAX_DEPTH).emit(op.gtU, op.if, 0x40), fail(HashError.TooDeep), c.emit(op.end);
    // SHA-256 padding: 0x80, zeros, the length in bits (< 2^16) in the last two bytes of the last block
    c.get(P).i32(m.inputAt).emit(op.sub).set(LEN);
    c.get(P).i32(0x80).store8();
    c.get(LEN).i32(72).emit(op.add).i32(~63).emit(op.and).set(PAD);
    c.get(P).i32(1).emit(op.add).i32(0).get(PAD).get(LEN).emit(op.sub).i32(3).emit(op.sub).fill();
    c.i32(m.inputAt - 2).get(PAD).emit(op.add).set(P);
    c.get(P).get(LEN).i32(5).emit(op.shrU).store8();
    c.get(P).get(LEN).i32(3).emit(op.shl).store8(1);
    c.get(PAD).i32(6).emit(op.shrU, op.call, m.runIndex);
    addShl(HASHES, OUT, 5), c.i32(m.outAt).i32(32).copy();
    addShl(DEPTHS, OUT, 1), c.get(DEPTH).store16();
  };

  /** A Merkle cell names its reference K's level-0 hash at DATA + SHIFT: compare the 32 bytes as 8 words. */
  const checkMerkle = (k: number, at: number): void => {
    addShl(REFS, I, 4), c.load(4 * k).set(C);
    addShl(SLOTS, C, 2), c.load().set(SLOT); // level 0 is a cell's first slot
    addShl(HASHES, SLOT, 5), c.set(HP);
    c.i32(0).set(D);
    for (let w = 0; w < 8; w++) c.get(D).get(DATA).load(at + 4 * w).get(HP).load(4 * w).emit(op.xor, op.or).set(D);
    c.get(D).emit(op.if, 0x40), fail(HashError.MerkleMismatch), c.emit(op.end);
  };

  c.get(COUNT).set(I);
  c.emit(op.block, 0x40, op.loop, 0x40);
  c.get(I).emit(op.eqz, op.brIf, 1);
  c.get(I).i32(1).emit(op.sub).set(I);
  c.get(D1S).get(I).emit(op.add).load8().set(D1);
  c.get(D1).i32(5).emit(op.shrU).set(MASK);
  c.get(D1).i32(7).emit(op.and).set(N);
  addShl(BITS, I, 1), c.load16().set(BITLEN);
  c.get(BYTES), addShl(DATAAT, I, 2), c.load().emit(op.add).set(DATA);
  addShl(SLOTS, I, 2), c.load().set(FIRST);
  c.i32(0).set(TYPE);
  c.get(D1).i32(8).emit(op.and, op.if, 0x40).get(DATA).load8().set(TYPE).emit(op.end);
  c.get(TYPE).i32(1).emit(op.eq, op.if, 0x40);
  {
    // A pruned branch: its top hash from its own data (no references); the lower ones are written in it.
    c.get(MASK).emit(op.popcnt).set(K);
    c.get(MASK).set(LM).i32(-1).set(PREV).i32(0).set(BELOW);
    c.get(FIRST).get(K).emit(op.add).set(OUT);
    c.get(K).set(H); // hashLevel reuses K
    hashLevel();
    c.get(DATA).i32(1).i32(2).get(BITLEN).i32(LEGACY_PRUNED_BITS).emit(op.eq, 0x1b, op.add).set(LEN);
    addShl(HASHES, FIRST, 5), c.get(LEN).get(H).i32(5).emit(op.shl).copy();
    c.get(LEN).get(H).i32(5).emit(op.shl, op.add).set(LEN); // the depths follow the hashes
    c.i32(0).set(K);
    c.emit(op.block, 0x40, op.loop, 0x40);
    c.get(K).get(H).emit(op.geU, op.brIf, 1);
    c.get(DEPTHS).get(FIRST).get(K).emit(op.add).i32(1).emit(op.shl, op.add);
    c.get(LEN).load8().i32(8).emit(op.shl).get(LEN).load8(1).emit(op.or).store16();
    c.get(LEN).i32(2).emit(op.add).set(LEN);
    c.get(K).i32(1).emit(op.add).set(K);
    c.emit(op.br, 0, op.end, op.end);
  }
  c.emit(op.else);
  {
    // Level 0 and each level in the mask has its own hash; Merkle cells take their children one level up.
    c.i32(0).set(H).i32(0).set(LEVEL);
    c.emit(op.loop, 0x40);
    c.get(LEVEL).emit(op.eqz).get(MASK).get(LEVEL).i32(1).emit(op.sub, op.shrU).i32(1).emit(op.and, op.or, op.if, 0x40);
    c.get(MASK).i32(1).get(LEVEL).emit(op.shl).i32(1).emit(op.sub, op.and).set(LM);
    c.get(FIRST).get(H).emit(op.add).i32(1).emit(op.sub).i32(-1).get(H).emit(0x1b).set(PREV);
    c.get(LEVEL).get(TYPE).i32(3).emit(op.geU, op.add).set(SHIFT); // the child level
    c.i32(7).i32(1).get(SHIFT).emit(op.shl).i32(1).emit(op.sub).get(SHIFT).i32(3).emit(op.geU, 0x1b).set(BELOW);
    c.get(FIRST).get(H).emit(op.add).set(OUT);
    hashLevel();
    c.get(H).i32(1).emit(op.add).set(H);
    c.emit(op.end);
    c.get(LEVEL).i32(1).emit(op.add).tee(LEVEL).i32(4).emit(op.ltU, op.brIf, 0, op.end);
    c.get(TYPE).i32(3).emit(op.geU, op.if, 0x40);
    checkMerkle(0, 1);
    c.get(TYPE).i32(4).emit(op.eq, op.if, 0x40);
    checkMerkle(1, 1 + 32);
    c.emit(op.end, op.end);
  }
  c.emit(op.end);
  c.emit(op.br, 0, op.end, op.end);
  c.i32(0);
  c.emit(op.end);
  return [1, LOCALS, 0x7f, ...c.c];
}
