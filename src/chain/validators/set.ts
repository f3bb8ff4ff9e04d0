// The node's rules for a validator set that both sides of tonwatch follow: the block builder (blocks/,
// the devnet) signs by them and the checker (liteserver/trust/) verifies by them. The set as config
// param 34 lists it, the catchain config of param 28, the masterchain group of a session (mc-config.cpp,
// compute_validator_set: the `main` first validators in dictionary-index order, shuffled by the
// validator-set PRNG when shuffle_mc_validators) and its hash (crc32c of TL test0.validatorSet).
import { crc32c } from '@ton/core';
import { validatorSetHashPayload } from './payloads.js';
import { shuffledIndices, ValidatorSetPrng } from './prng.js';

/** The masterchain shard id. */
export const MASTERCHAIN_SHARD = 0x8000000000000000n;
const ZERO_ADDR = Buffer.alloc(32);

/** One `ValidatorDescr`, with its key in the `list` dictionary. */
export interface ValidatorDescr {
  /** Key of the entry in `list` (HashmapE 16): the node's order. */
  index: number;
  publicKey: Buffer;
  weight: bigint;
  /** `validator_addr#73` only; null for `validator#53`. */
  adnlAddr: Buffer | null;
}

/** ConfigParam 34 (also 32, 36): `validators#11` or `validators_ext#12`. */
export interface ValidatorSet {
  kind: 'validators' | 'validators_ext';
  utimeSince: number;
  utimeUntil: number;
  total: number;
  /** How many of the first validators (after the masterchain shuffle) sign masterchain blocks. */
  main: number;
  /** Declared by `validators_ext`, the sum of the list's weights for `validators`. */
  totalWeight: bigint;
  /** In dictionary-index order. */
  list: ValidatorDescr[];
}

/** ConfigParam 28: `catchain_config#c1` (no shuffle flag: false) or `catchain_config_new#c2`. */
export interface CatchainConfig {
  kind: 'catchain_config' | 'catchain_config_new';
  shuffleMcValidators: boolean;
  mcCatchainLifetime: number;
  shardCatchainLifetime: number;
  shardValidatorsLifetime: number;
  shardValidatorsNum: number;
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
 * Empty for an empty set: the checker refuses that, the builder never makes one.
 */
export function mainValidators(set: ValidatorSet, catchain: CatchainConfig, ccSeqno: number): ValidatorDescr[] {
  const list = [...set.list].sort((a, b) => a.index - b.index);
  const count = Math.min(set.main, list.length);
  if (!catchain.shuffleMcValidators || count === 0) return list.slice(0, count);
  const order = shuffledIndices(count, new ValidatorSetPrng(MASTERCHAIN_SHARD, -1, ccSeqno));
  return order.map((i) => list[i]!);
}
