// The TL byte strings that validators sign or hash (ton_api.tl), built with the project's TL codec:
// the ordinary block signature payload, the simplex finalize vote, the node id of a validator key and
// the validator-set hash. Ids come from their declarations (a test checks them against the known values).
import { createHash } from 'node:crypto';
import { TLError, tlId, TLReader, tlWrite } from '../liteserver/tl/codec.js';
import { readBlockIdExt, writeBlockIdExt, type BlockIdExt } from '../liteserver/tl/lite-types.js';

export const TON_BLOCK_ID = tlId('ton.blockId root_cell_hash:int256 file_hash:int256 = ton.BlockId');
export const PUB_ED25519 = tlId('pub.ed25519 key:int256 = PublicKey');
/**
 * The node writes this literal (block.cpp compute_validator_set_hash: "magic inherited from
 * test0.validatorSet"); it is not the crc32 of today's declaration, so it cannot be recomputed.
 */
export const TEST0_VALIDATOR_SET = 0x901660ed;
export const CANDIDATE_ID = tlId('consensus.candidateId slot:int hash:int256 = consensus.CandidateId');
export const CANDIDATE_PARENT = tlId('consensus.candidateParent id:consensus.CandidateId = consensus.CandidateParent');
export const CANDIDATE_WITHOUT_PARENTS = tlId('consensus.candidateWithoutParents = consensus.CandidateParent');
export const CANDIDATE_HASH_DATA_ORDINARY = tlId(
  'consensus.candidateHashDataOrdinary block:tonNode.blockIdExt collated_file_hash:int256 parent:consensus.CandidateParent = consensus.CandidateHashData',
);
export const CANDIDATE_HASH_DATA_EMPTY = tlId(
  'consensus.candidateHashDataEmpty block:tonNode.blockIdExt parent:consensus.candidateId = consensus.CandidateHashData',
);
export const FINALIZE_VOTE = tlId(
  'consensus.simplex.finalizeVote id:consensus.CandidateId = consensus.simplex.UnsignedVote',
);
export const DATA_TO_SIGN = tlId('consensus.dataToSign session_id:int256 data:bytes = consensus.DataToSign');

/** Ordinary (catchain) signed bytes: boxed `ton.blockId{root_hash, file_hash}`. */
export function blockIdPayload(block: Pick<BlockIdExt, 'rootHash' | 'fileHash'>): Buffer {
  return tlWrite((w) => w.id(TON_BLOCK_ID).int256(block.rootHash).int256(block.fileHash));
}

/** A validator's node id (short id): sha256 of boxed `pub.ed25519{key}`; signatures name signers by it. */
export function nodeIdOf(publicKey: Uint8Array): Buffer {
  return createHash('sha256').update(tlWrite((w) => w.id(PUB_ED25519).int256(publicKey))).digest();
}

/** One member as the set hash sees it: ed25519 key, weight, ADNL address (zero when the descriptor has none). */
export interface HashedValidator {
  publicKey: Uint8Array;
  weight: bigint;
  adnlAddr: Uint8Array;
}

/** Bytes of boxed `test0.validatorSet{cc_seqno, [key, weight, addr]…}`, whose crc32c is the set hash. */
export function validatorSetHashPayload(ccSeqno: number, validators: readonly HashedValidator[]): Buffer {
  return tlWrite((w) =>
    w
      .id(TEST0_VALIDATOR_SET)
      .uint32(ccSeqno >>> 0)
      .vector(validators, (v, m) => v.int256(m.publicKey).int64(BigInt.asIntN(64, m.weight)).int256(m.adnlAddr)),
  );
}

/** A simplex candidate id: the slot and sha256 of the serialized (boxed) candidate hash data. */
export interface CandidateId {
  slot: number;
  hash: Buffer;
}

/** `consensus.CandidateHashData`: what a simplex vote is about. `block` is the block it finalizes. */
export type CandidateHashData =
  | { kind: 'ordinary'; block: BlockIdExt; collatedFileHash: Buffer; parent: CandidateId | null }
  | { kind: 'empty'; block: BlockIdExt; parent: CandidateId };

function readCandidateId(r: TLReader): CandidateId {
  return { slot: r.uint32(), hash: r.int256() };
}

/** Parses the `candidate` bytes of a simplex signature set; trailing bytes are refused. */
export function parseCandidate(bytes: Uint8Array): CandidateHashData {
  const r = new TLReader(bytes);
  const id = r.uint32();
  let out: CandidateHashData;
  if (id === CANDIDATE_HASH_DATA_ORDINARY) {
    const block = readBlockIdExt(r);
    const collatedFileHash = r.int256();
    const parentId = r.uint32();
    let parent: CandidateId | null;
    if (parentId === CANDIDATE_WITHOUT_PARENTS) parent = null;
    else if (parentId === CANDIDATE_PARENT) {
      r.expectId(CANDIDATE_ID, 'consensus.candidateId');
      parent = readCandidateId(r);
    } else throw new TLError(`TL: consensus.CandidateParent has unknown constructor #${parentId.toString(16)}`);
    out = { kind: 'ordinary', block, collatedFileHash, parent };
  } else if (id === CANDIDATE_HASH_DATA_EMPTY) {
    out = { kind: 'empty', block: readBlockIdExt(r), parent: readCandidateId(r) };
  } else {
    throw new TLError(`TL: candidate is not consensus.CandidateHashData (constructor #${id.toString(16)})`);
  }
  r.end('consensus.CandidateHashData');
  return out;
}

/** Boxed serialization of candidate hash data (the bytes a simplex signature set carries). */
export function serializeCandidate(c: CandidateHashData): Buffer {
  return tlWrite((w) => {
    if (c.kind === 'ordinary') {
      w.id(CANDIDATE_HASH_DATA_ORDINARY);
      writeBlockIdExt(w, c.block);
      w.int256(c.collatedFileHash);
      if (c.parent === null) w.id(CANDIDATE_WITHOUT_PARENTS);
      else w.id(CANDIDATE_PARENT).id(CANDIDATE_ID).uint32(c.parent.slot >>> 0).int256(c.parent.hash);
    } else {
      w.id(CANDIDATE_HASH_DATA_EMPTY);
      writeBlockIdExt(w, c.block);
      w.uint32(c.parent.slot >>> 0).int256(c.parent.hash);
    }
  });
}

/**
 * Simplex signed bytes: boxed `consensus.dataToSign{session_id, data}` where data is the boxed
 * `consensus.simplex.finalizeVote{consensus.candidateId{slot, sha256(candidate)}}`.
 */
export function finalizeVotePayload(sessionId: Uint8Array, slot: number, candidate: Uint8Array): Buffer {
  const hash = createHash('sha256').update(candidate).digest();
  const vote = tlWrite((w) => w.id(FINALIZE_VOTE).id(CANDIDATE_ID).uint32(slot >>> 0).int256(hash));
  return tlWrite((w) => w.id(DATA_TO_SIGN).int256(sessionId).bytes(vote));
}
