// The proof builder moved to the production server (server/proof-builder.ts); tests keep importing it here.
export { hashmapPath, multiRootBoc, ProofBuilder, shardTreePath } from '../server/proof-builder.js';
