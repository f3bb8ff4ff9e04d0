// The masterchain signing group the checker verifies against: the node's group of a session
// (validators/set.ts, shared with the block builder) with each member's node id, by which signature
// sets name their signers, and its key parsed once for node:crypto.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { nodeIdOf } from '../../validators/payloads.js';
import { mainValidators, validatorSetHash, type CatchainConfig, type ValidatorDescr, type ValidatorSet } from '../../validators/set.js';
import { ProofError } from './errors.js';

/** DER prefix of an ed25519 SubjectPublicKeyInfo; node:crypto takes raw keys only in this wrapping. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface GroupMember extends ValidatorDescr {
  /** sha256 of TL `pub.ed25519{key}`, hex. */
  nodeId: string;
  /** The key ready for node:crypto verification. */
  key: KeyObject;
}

/** The validators that sign masterchain blocks of one catchain session. */
export interface ValidatorGroup {
  ccSeqno: number;
  /** crc32c of TL `test0.validatorSet` over the members in order (`gen_validator_list_hash_short`). */
  hash: number;
  totalWeight: bigint;
  members: GroupMember[];
  byNodeId: Map<string, GroupMember>;
}

/** Validators stay across rounds: their parsed keys are kept (bounded) so each new group is cheap. */
const KEY_CACHE_SIZE = 4096;
const keyCache = new Map<string, KeyObject>();

export function ed25519KeyObject(publicKey: Uint8Array): KeyObject {
  const hex = Buffer.from(publicKey).toString('hex');
  let key = keyCache.get(hex);
  if (!key) {
    key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    if (keyCache.size >= KEY_CACHE_SIZE) keyCache.clear();
    keyCache.set(hex, key);
  }
  return key;
}

/** The signing group of masterchain blocks for `ccSeqno`, from the source key block's params 34 and 28. */
export function masterchainGroup(set: ValidatorSet, catchain: CatchainConfig, ccSeqno: number): ValidatorGroup {
  const members = mainValidators(set, catchain, ccSeqno);
  if (members.length === 0) throw new ProofError('validators.main', 'malformed', 'the validator set is empty');
  return groupOf(ccSeqno, members);
}

/** A group from members already in signing order (tests and the synthetic chain build them directly). */
export function groupOf(ccSeqno: number, ordered: readonly ValidatorDescr[]): ValidatorGroup {
  const members: GroupMember[] = [];
  const byNodeId = new Map<string, GroupMember>();
  let totalWeight = 0n;
  for (const v of ordered) {
    const member: GroupMember = { ...v, nodeId: nodeIdOf(v.publicKey).toString('hex'), key: ed25519KeyObject(v.publicKey) };
    members.push(member);
    byNodeId.set(member.nodeId, member);
    totalWeight += v.weight;
  }
  return { ccSeqno, hash: validatorSetHash(ccSeqno, ordered), totalWeight, members, byNodeId };
}
