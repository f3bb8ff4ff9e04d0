// The masterchain validator group exactly as the node computes it (mc-config.cpp, compute_validator_set):
// the `main` first validators of param 34 in dictionary-index order, shuffled by the validator-set PRNG
// when param 28 sets shuffle_mc_validators; its hash (crc32c of TL test0.validatorSet) and total weight,
// and each member's node id, by which signature sets name their signers.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { crc32c } from '@ton/core';
import { ProofError } from './errors.js';
import type { CatchainConfig, ValidatorDescr, ValidatorSet } from './config-params.js';
import { nodeIdOf, validatorSetHashPayload } from './payloads.js';
import { shuffledIndices, ValidatorSetPrng } from './prng.js';

/** The masterchain shard id. */
export const MASTERCHAIN_SHARD = 0x8000000000000000n;
const ZERO_ADDR = Buffer.alloc(32);
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

/** crc32c of TL `test0.validatorSet{cc_seqno, [key, weight, adnl_addr]…}`, as an unsigned 32-bit number. */
export function validatorSetHash(ccSeqno: number, members: readonly ValidatorDescr[]): number {
  const payload = validatorSetHashPayload(
    ccSeqno,
    members.map((m) => ({ publicKey: m.publicKey, weight: m.weight, adnlAddr: m.adnlAddr ?? ZERO_ADDR })),
  );
  return crc32c(payload).readUInt32LE(0);
}

/**
 * The masterchain validators of catchain session `ccSeqno`, in the node's order: `main` of the set's list,
 * shuffled (PRNG seeded by the masterchain shard, workchain -1 and cc_seqno) when `shuffle_mc_validators`.
 */
export function mainValidators(set: ValidatorSet, catchain: CatchainConfig, ccSeqno: number): ValidatorDescr[] {
  const list = [...set.list].sort((a, b) => a.index - b.index);
  const count = Math.min(set.main, list.length);
  if (count === 0) throw new ProofError('validators.main', 'malformed', 'the validator set is empty');
  if (!catchain.shuffleMcValidators) return list.slice(0, count);
  const order = shuffledIndices(count, new ValidatorSetPrng(MASTERCHAIN_SHARD, -1, ccSeqno));
  return order.map((i) => list[i]!);
}

/** The signing group of masterchain blocks for `ccSeqno`, from the source key block's params 34 and 28. */
export function masterchainGroup(set: ValidatorSet, catchain: CatchainConfig, ccSeqno: number): ValidatorGroup {
  return groupOf(ccSeqno, mainValidators(set, catchain, ccSeqno));
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
