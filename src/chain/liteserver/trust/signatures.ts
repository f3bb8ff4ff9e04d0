// Verifies the validator signatures of a masterchain block (crypto/block/signature-set.cpp, check-proof.cpp):
// the signature set must name the header's catchain session and validator-set hash, every signer must be a
// distinct member of the group, every signature must verify over the signed bytes, and the signed weight
// must be a supermajority (×3 > total ×2). Ordinary sets sign `ton.blockId`; simplex sets sign a finalize
// vote over a candidate whose block must be the one the link claims.
import { verify } from 'node:crypto';
import type { BlockId } from '../../model.js';
import { TLError } from '../tl/codec.js';
import { ProofError } from './errors.js';
import { blockIdPayload, finalizeVotePayload, parseCandidate } from './payloads.js';
import type { GroupMember, ValidatorGroup } from './validators.js';

/** `liteServer.signature node_id_short:int256 signature:bytes`. */
export interface BlockSignature {
  /** Signer's node id (sha256 of its `pub.ed25519` key), hex. */
  nodeId: string;
  signature: Buffer;
}

/** `liteServer.signatureSet.ordinary` / `liteServer.signatureSet.simplex`. */
export type SignatureSet =
  | { kind: 'ordinary'; ccSeqno: number; validatorSetHash: number; signatures: BlockSignature[] }
  | {
      kind: 'simplex';
      ccSeqno: number;
      validatorSetHash: number;
      signatures: BlockSignature[];
      sessionId: Buffer;
      slot: number;
      /** Serialized boxed `consensus.CandidateHashData`. */
      candidate: Buffer;
    };

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

function sameBlock(a: BlockId, b: BlockId): boolean {
  return (
    a.workchain === b.workchain &&
    a.shard === b.shard &&
    a.seqno === b.seqno &&
    a.rootHash === b.rootHash.toLowerCase() &&
    a.fileHash === b.fileHash.toLowerCase()
  );
}

const describe = (id: BlockId): string => `(${id.workchain},${id.shard},${id.seqno}):${id.rootHash.slice(0, 16)}…`;

/** The bytes every signature of `set` must sign for `target`; a simplex candidate must name `target`. */
export function signedBytes(target: BlockId, set: SignatureSet): Buffer {
  if (set.kind === 'ordinary') return blockIdPayload(target);
  let candidate;
  try {
    candidate = parseCandidate(set.candidate);
  } catch (err) {
    if (err instanceof TLError) throw new ProofError('signatures.candidate', 'malformed', err.message);
    throw err;
  }
  if (!sameBlock(candidate.block, target)) {
    fail('candidate', `the simplex vote is for block ${describe(candidate.block)}, not the link's ${describe(target)}`);
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
  target: BlockId,
  header: SignedHeader,
  set: SignatureSet,
  group: ValidatorGroup,
): SignatureReport {
  if (set.ccSeqno !== header.genCatchainSeqno || group.ccSeqno !== header.genCatchainSeqno) {
    fail('cc_seqno', `signature set cc_seqno ${set.ccSeqno}, header ${header.genCatchainSeqno}, validator group ${group.ccSeqno}`);
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
    const nodeId = sig.nodeId.toLowerCase();
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
