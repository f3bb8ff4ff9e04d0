// Verifies the validator signatures of a masterchain block (crypto/block/signature-set.cpp, check-proof.cpp):
// the signature set must name the header's catchain session and validator-set hash, every signer must be a
// distinct member of the group, every signature must verify over the signed bytes, and the signed weight
// must be a supermajority (×3 > total ×2). Ordinary sets sign `ton.blockId`; simplex sets sign a finalize
// vote over a candidate whose block must be the one the link claims.
import { verify } from 'node:crypto';
import { TLError } from '../tl/codec.js';
import type { BlockIdExt, SignatureSet } from '../tl/lite-types.js';
import { describeBlockId, sameBlockId } from './block-ref.js';
import type { TrustConfig } from './config-params.js';
import { ProofError } from './errors.js';
import { blockIdPayload, finalizeVotePayload, parseCandidate } from '../../validators/payloads.js';
import { masterchainGroup, type GroupMember, type ValidatorGroup } from './validators.js';

export type { SignatureSet } from '../tl/lite-types.js';

/** The catchain session a signature set names (the two TL constructors spell the field differently). */
export function ccSeqnoOf(set: SignatureSet): number {
  return (set.kind === 'ordinary' ? set.catchainSeqno : set.ccSeqno) >>> 0;
}

/** What the target block's proven header says about who signed it. */
export interface SignedHeader {
  genCatchainSeqno: number;
  genValidatorListHashShort: number;
}

export interface SignatureReport {
  signers: number;
  signedWeight: bigint;
  totalWeight: bigint;
}

function fail(check: string, detail: string): never {
  throw new ProofError(`signatures.${check}`, 'mismatch', detail);
}

/** The bytes every signature of `set` must sign for `target`; a simplex candidate must name `target`. */
export function signedBytes(target: BlockIdExt, set: SignatureSet): Buffer {
  if (set.kind === 'ordinary') return blockIdPayload(target);
  let candidate;
  try {
    candidate = parseCandidate(set.candidate);
  } catch (err) {
    if (err instanceof TLError) throw new ProofError('signatures.candidate', 'malformed', err.message);
    throw err;
  }
  if (!sameBlockId(candidate.block, target)) {
    fail('candidate', `the simplex vote is for block ${describeBlockId(candidate.block)}, not the link's ${describeBlockId(target)}`);
  }
  return finalizeVotePayload(set.sessionId, set.slot, set.candidate);
}

/**
 * Checks `set` as the signatures of `target`, whose proven header is `header`, against `group` (the
 * masterchain validators computed from the previous key block's config for the header's cc_seqno).
 * Throws a ProofError whose check names what failed: `signatures.cc_seqno`, `signatures.set_hash`,
 * `signatures.candidate`, `signatures.duplicate`, `signatures.signer`, `signatures.signature`, `signatures.weight`.
 */
export function verifySignatureSet(
  target: BlockIdExt,
  header: SignedHeader,
  set: SignatureSet,
  group: ValidatorGroup,
): SignatureReport {
  const ccSeqno = ccSeqnoOf(set);
  if (ccSeqno !== header.genCatchainSeqno >>> 0 || group.ccSeqno >>> 0 !== header.genCatchainSeqno >>> 0) {
    fail('cc_seqno', `signature set cc_seqno ${ccSeqno}, header ${header.genCatchainSeqno}, validator group ${group.ccSeqno}`);
  }
  if (set.validatorSetHash >>> 0 !== header.genValidatorListHashShort >>> 0 || group.hash !== header.genValidatorListHashShort >>> 0) {
    fail(
      'set_hash',
      `signature set hash ${set.validatorSetHash >>> 0}, header ${header.genValidatorListHashShort >>> 0}, computed ${group.hash}`,
    );
  }
  const data = signedBytes(target, set);
  const seen = new Set<string>();
  let signedWeight = 0n;
  for (const sig of set.signatures) {
    const nodeId = sig.nodeIdShort.toString('hex');
    if (seen.has(nodeId)) fail('duplicate', `validator ${nodeId} signed twice`);
    seen.add(nodeId);
    const member: GroupMember | undefined = group.byNodeId.get(nodeId);
    if (!member) fail('signer', `signer ${nodeId} is not in the validator group`);
    if (sig.signature.length !== 64 || !verify(null, data, member.key, sig.signature)) {
      fail('signature', `the signature of validator ${nodeId} does not verify`);
    }
    signedWeight += member.weight;
  }
  if (signedWeight * 3n <= group.totalWeight * 2n) {
    fail('weight', `signed weight ${signedWeight} of ${group.totalWeight} is not more than 2/3`);
  }
  return { signers: seen.size, signedWeight, totalWeight: group.totalWeight };
}

/**
 * The signature check of a forward link: the group is computed from the source key block's params 34 and
 * 28 for the cc_seqno the target's proven header names, then `set` is verified against it.
 */
export function verifyBlockSignatures(
  target: BlockIdExt,
  header: SignedHeader,
  config: Pick<TrustConfig, 'validators' | 'catchain'>,
  set: SignatureSet,
): SignatureReport {
  const group = masterchainGroup(config.validators, config.catchain, header.genCatchainSeqno);
  return verifySignatureSet(target, header, set, group);
}
