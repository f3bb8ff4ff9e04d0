// The readers decoders use, from the cell layer: CellReader over @ton/core cells, Slice over arena cells
// (readerOf picks), and the layout errors both throw.
export { CellReader, readerOf } from '../cell/core-reader.js';
export { cellBytes } from '../cell/core.js';
export { CellLayoutError, PrunedCellError } from '../cell/errors.js';
export { bitsForMax } from '../cell/reader.js';
