// The reading side of hashmap.ts under its former name (the one hashmap module is hashmap.ts).
export {
  forEachKeyedLeaf, forEachLeaf, forEachLeafE, forEachLeafInCell, lookupHashmapAt, readLabel,
  type HashmapLookup, type Label,
} from './hashmap.js';
