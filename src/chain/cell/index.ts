// The cell layer: bags of cells parsed into typed arrays (CellArena), cells as (arena, index) (CellRef),
// a reader (Slice), BoC writing, and the edge to @ton/core. Imports nothing from the rest of chain/.
export { CellArena, ExoticType, ORDINARY } from './arena.js';
export { CellRef } from './cell.js';
export { coreCellToBoc, cellBytes, fromCore, toCore } from './core.js';
export { crc32c } from './crc32c.js';
export { BocError, CellLayoutError, PrunedCellError, type BocErrorCode } from './errors.js';
export { bocRoot, bocRoots, parseBoc } from './parse.js';
export type { Reader } from './reader.js';
export { Slice } from './slice.js';
