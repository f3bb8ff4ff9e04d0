// Shared bits of the proof-check tests: the real mainnet fixtures and a helper that captures a ProofError.
import { readFileSync } from 'node:fs';
import { ProofError } from '../../src/chain/liteserver/trust/errors.js';

export function mainnetFixture(name: string): Buffer {
  return readFileSync(new URL(`../fixtures/mainnet/${name}`, import.meta.url));
}

/** The ProofError `fn` throws (any other outcome fails the test). */
export function proofFailure(fn: () => unknown): ProofError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ProofError) return err;
    throw err;
  }
  throw new Error('expected a ProofError, the check passed');
}

/** Masterchain block 31220993 (2023-07-18), the anchor of the header, shard and account proofs. */
export const MC_31220993 = {
  workchain: -1,
  shard: '8000000000000000',
  seqno: 31220993,
  rootHash: '51ed3b9e728e7c548b15a5e5ce988b4a74984c3f8374f3f1a52c7b1f46c26406',
};
