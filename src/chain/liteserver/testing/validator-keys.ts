// TEST SUPPORT ONLY: deterministic validator keys for tests (the production parts — keys from a label, the
// param 28/34 cells, ordinary signatures — live in chain/blocks/validators.ts) and what tests alone need:
// a new consensus config (param 30), simplex signature sets and the trust module's view of a group.
import { beginCell, Dictionary, type Cell } from '@ton/core';
import { deriveValidators, descriptorsOf, signEach, type ValidatorKey } from '../../blocks/validators.js';
import type { BlockIdExt, SignatureSet } from '../tl/lite-types.js';
import { finalizeVotePayload, serializeCandidate, type CandidateHashData } from '../../validators/payloads.js';
import { groupOf } from '../trust/validators.js';

export {
  catchainConfigCell, configDictCell, descriptorsOf, groupHash, masterchainSigners, signOrdinary, validatorSetCell,
  type KeyBlockValidators, type ValidatorSetOptions,
} from '../../blocks/validators.js';

export type TestValidator = ValidatorKey;

/** `count` validators whose keys derive from `label` (same label, same keys), with the given weights. */
export function testValidators(count: number, label = 'tonwatch-test', weight: (i: number) => bigint = () => 1_000_000n): TestValidator[] {
  return deriveValidators(count, label, weight);
}

/** A `new_consensus_config_all#10` cell for param 30 with `simplex_config_v2#22` for the masterchain and shards. */
export function simplexConsensusConfigCell(slotsPerLeaderWindow = 4, noncritical: Record<number, number> = {}): Cell {
  const params = Dictionary.empty(Dictionary.Keys.Uint(8), Dictionary.Values.Uint(32));
  for (const [k, v] of Object.entries(noncritical)) params.set(Number(k), v);
  const simplex = beginCell().storeUint(0x22, 8).storeUint(0, 5).storeUint(0, 2).storeBit(false).storeUint(slotsPerLeaderWindow, 32).storeDict(params).endCell();
  return beginCell().storeUint(0x10, 8).storeMaybeRef(simplex).storeMaybeRef(simplex).endCell();
}

export interface SimplexVote {
  sessionId: Buffer;
  slot: number;
  /** The candidate voted for (default: an ordinary candidate for `block` with no parent). */
  candidate?: CandidateHashData;
}

/** A simplex signature set: each signer signs the finalize vote for the candidate, in the session. */
export function signSimplex(
  block: BlockIdExt,
  signers: readonly TestValidator[],
  ccSeqno: number,
  setHash: number,
  vote: SimplexVote,
): SignatureSet {
  const candidate = serializeCandidate(
    vote.candidate ?? { kind: 'ordinary', block, collatedFileHash: Buffer.alloc(32, 7), parent: null },
  );
  const data = finalizeVotePayload(vote.sessionId, vote.slot, candidate);
  return {
    kind: 'simplex',
    ccSeqno: ccSeqno | 0,
    validatorSetHash: setHash | 0,
    signatures: signEach(signers, data),
    sessionId: vote.sessionId,
    slot: vote.slot | 0,
    candidate,
  };
}

/** The group the trust module computes for these validators taken in this order (for assertions). */
export function testGroup(ccSeqno: number, ordered: readonly TestValidator[]) {
  return groupOf(ccSeqno, descriptorsOf(ordered));
}
