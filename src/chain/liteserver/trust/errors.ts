// The one error every proof check throws: which link of the chain from a trusted hash to the data broke.
import { PrunedCellError } from '../../cell/errors.js';

/**
 * `mismatch`: a hash or value disagrees with the one it must equal (a forged or wrong reply).
 * `not-proven`: the proof stops (a pruned cell) where the check needs data.
 * `malformed`: the proof is not the structure the check expects (wrong roots, tags, layout).
 */
export type ProofFailure = 'mismatch' | 'not-proven' | 'malformed';

export class ProofError extends Error {
  constructor(
    /** The link that broke, e.g. `account.last_trans_hash`, `shard.state_update`. */
    readonly check: string,
    readonly failure: ProofFailure,
    detail: string,
  ) {
    super(`proof check ${check} failed (${failure}): ${detail}`);
    this.name = 'ProofError';
  }
}

/** Runs `read` over proof cells, turning layout errors (pruned cells included) into a ProofError for `check`. */
export function proofRead<T>(check: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ProofError) throw err;
    const failure: ProofFailure = err instanceof PrunedCellError ? 'not-proven' : 'malformed';
    throw new ProofError(check, failure, (err as Error).message);
  }
}

/** Throws a `mismatch` for `check` unless the two lowercase hex hashes are equal. */
export function expectHash(check: string, actual: string, expected: string, what = 'hash'): void {
  if (actual !== expected.toLowerCase()) {
    throw new ProofError(check, 'mismatch', `${what} ${actual} is not the expected ${expected.toLowerCase()}`);
  }
}
