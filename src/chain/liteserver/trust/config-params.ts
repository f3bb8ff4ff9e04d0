// Config params the chain of trust needs (block.tlb), read strictly from proof cells: 34 (the current
// validator set), 28 (catchain config: masterchain shuffle, lifetimes) and 30 (the new consensus config,
// simplex since mainnet's 2026 upgrade). Any pruned cell on the way is "not proven", never "absent".
import type { Cell } from '@ton/core';
import { forEachKeyedLeaf } from '../../tlb/hashmap.js';
import type { Reader } from '../../cell/reader.js';
import type { CellReader } from '../../cell/core-reader.js';
import { ProofError, proofRead } from './errors.js';
import { lookupHashmap, provenReader } from './merkle.js';
import { mcStateExtraOf, provenConfigParam, readShardState } from './state.js';
import type { CatchainConfig, ValidatorDescr, ValidatorSet } from '../../validators/set.js';
import { BLOCK_TAG } from '../../tlb/block.js';

/** One `NewConsensusConfig` of ConfigParam 30. */
export type NewConsensusConfig =
  | {
      kind: 'simplex_config';
      flags: number;
      useQuic: boolean;
      targetRateMs: number;
      slotsPerLeaderWindow: number;
      firstBlockTimeoutMs: number;
      maxLeaderWindowDesync: number;
    }
  | {
      kind: 'simplex_config_v2';
      flags: number;
      protocolVersion: number;
      useQuic: boolean;
      slotsPerLeaderWindow: number;
      /** `HashmapE 8 uint32`: tuning values a node may override (target rate, timeouts). */
      noncriticalParams: Map<number, number>;
    };

/** ConfigParam 30: `new_consensus_config_all#10 mc:(Maybe ^NewConsensusConfig) shard:(Maybe ^NewConsensusConfig)`. */
export interface NewConsensusConfigAll {
  mc: NewConsensusConfig | null;
  shard: NewConsensusConfig | null;
}

/**
 * The config dictionary (`Hashmap 32 ^Cell`) from `config_params$_ config_addr:bits256 config:^(Hashmap 32 ^Cell)`
 * at the reader.
 */
function readConfigParams(r: CellReader): Cell {
  r.skip(256);
  return r.ref();
}

/** `ShardFeeCreated` root extra of `shard_fees`: two CurrencyCollections. */
function skipCurrencyCollection(r: CellReader): void {
  r.coins();
  r.skipMaybeRef();
}

/**
 * The config dictionary of a key block: `Block.extra → BlockExtra.custom → McBlockExtra.config`. `block` is
 * the proven Block cell (already checked against its root hash). Throws for a non-key block.
 */
export function configOfKeyBlock(block: Cell): Cell {
  const check = 'config.block';
  return proofRead(check, () => {
    const b = provenReader(block, check);
    if (b.uint(32) !== BLOCK_TAG) throw new ProofError(check, 'malformed', 'not a Block (tag 11ef55aa)');
    b.skip(32);
    b.ref();
    b.ref();
    b.ref();
    const extra = provenReader(b.ref(), check);
    if (extra.uint(32) !== 0x4a33f6fd) throw new ProofError(check, 'malformed', 'not a BlockExtra (tag 4a33f6fd)');
    extra.skip(512);
    extra.ref();
    extra.ref();
    extra.ref();
    const custom = extra.maybeRef();
    if (!custom) throw new ProofError(check, 'malformed', 'block has no McBlockExtra (not a masterchain block)');
    const mc = provenReader(custom, check);
    if (mc.uint(16) !== 0xcca5) throw new ProofError(check, 'malformed', 'not a McBlockExtra (tag cca5)');
    if (!mc.bool()) throw new ProofError(check, 'malformed', 'not a key block: McBlockExtra carries no config');
    mc.skipMaybeRef(); // shard_hashes
    mc.skipMaybeRef(); // shard_fees root
    skipCurrencyCollection(mc); // shard_fees extra: fees
    skipCurrencyCollection(mc); // and create
    mc.ref(); // ^[ prev_blk_signatures recover_create_msg mint_msg ]
    return readConfigParams(mc);
  });
}

/** The config dictionary of a proven masterchain state: `ShardStateUnsplit.custom → McStateExtra.config`. */
export function configOfMasterchainState(state: Cell): Cell {
  const check = 'config.state';
  return mcStateExtraOf(readShardState(state, check), check).configParams;
}

/** The cell of config param `index`, or null when the proof shows it absent; pruned is `not-proven`. */
export const configParam = provenConfigParam;

function requireParam(config: Cell, index: number): Cell {
  const cell = configParam(config, index);
  if (!cell) throw new ProofError(`config.param${index}`, 'malformed', `config param ${index} is absent`);
  return cell;
}

// ed25519_pubkey#8e81278a pubkey:bits256 = SigPubKey;
// validator#53 public_key:SigPubKey weight:uint64 = ValidatorDescr;
// validator_addr#73 public_key:SigPubKey weight:uint64 adnl_addr:bits256 = ValidatorDescr;
function readValidatorDescr(r: Reader, index: number, check: string): ValidatorDescr {
  const tag = r.uint(8);
  if (tag !== 0x53 && tag !== 0x73) throw new ProofError(check, 'malformed', `validator ${index}: ValidatorDescr tag 0x${tag.toString(16)}`);
  if (r.uint(32) !== 0x8e81278a) throw new ProofError(check, 'malformed', `validator ${index}: key is not ed25519_pubkey`);
  const publicKey = Buffer.from(r.bytesOf(32));
  const weight = r.bigUint(64);
  const adnlAddr = tag === 0x73 ? Buffer.from(r.bytesOf(32)) : null;
  return { index, publicKey, weight, adnlAddr };
}

// validators#11 utime_since:uint32 utime_until:uint32 total:(## 16) main:(## 16) { main <= total } { main >= 1 }
//   list:(Hashmap 16 ValidatorDescr) = ValidatorSet;
// validators_ext#12 utime_since:uint32 utime_until:uint32 total:(## 16) main:(## 16) { main <= total }
//   { main >= 1 } total_weight:uint64 list:(HashmapE 16 ValidatorDescr) = ValidatorSet;
/** Parses a `ValidatorSet` cell (param 32, 34 or 36); every list entry must be in the proof. */
export function parseValidatorSet(cell: Cell, check = 'config.param34'): ValidatorSet {
  return proofRead(check, () => {
    const r = provenReader(cell, check);
    const tag = r.uint(8);
    if (tag !== 0x11 && tag !== 0x12) throw new ProofError(check, 'malformed', `ValidatorSet tag 0x${tag.toString(16)}`);
    const utimeSince = r.uint(32);
    const utimeUntil = r.uint(32);
    const total = r.uint(16);
    const main = r.uint(16);
    if (main < 1 || main > total) throw new ProofError(check, 'malformed', `main ${main} is not within 1..total ${total}`);
    const declared = tag === 0x12 ? r.bigUint(64) : null;
    const list: ValidatorDescr[] = [];
    const leaf = (key: bigint, v: Reader<Cell>) => list.push(readValidatorDescr(v, Number(key), check));
    if (tag === 0x11) {
      forEachKeyedLeaf(r, 16, leaf); // Hashmap (not E): the root edge is inline
    } else {
      const root = r.maybeRef();
      if (root) forEachKeyedLeaf(provenReader(root, check), 16, leaf);
    }
    if (list.length !== total) throw new ProofError(check, 'malformed', `list holds ${list.length} validators, total says ${total}`);
    const sum = list.reduce((s, v) => s + v.weight, 0n);
    if (declared !== null && declared !== sum) {
      throw new ProofError(check, 'malformed', `total_weight ${declared} is not the sum of weights ${sum}`);
    }
    return { kind: tag === 0x12 ? 'validators_ext' : 'validators', utimeSince, utimeUntil, total, main, totalWeight: sum, list };
  });
}

// catchain_config#c1 mc_catchain_lifetime:uint32 shard_catchain_lifetime:uint32
//   shard_validators_lifetime:uint32 shard_validators_num:uint32 = CatchainConfig;
// catchain_config_new#c2 flags:(## 7) { flags = 0 } shuffle_mc_validators:Bool
//   mc_catchain_lifetime:uint32 shard_catchain_lifetime:uint32 shard_validators_lifetime:uint32 shard_validators_num:uint32 = CatchainConfig;
export function parseCatchainConfig(cell: Cell): CatchainConfig {
  const check = 'config.param28';
  return proofRead(check, () => {
    const r = provenReader(cell, check);
    const tag = r.uint(8);
    let shuffleMcValidators = false;
    if (tag === 0xc2) {
      const flags = r.uint(7);
      if (flags !== 0) throw new ProofError(check, 'malformed', `catchain_config_new flags ${flags} (must be 0)`);
      shuffleMcValidators = r.bool();
    } else if (tag !== 0xc1) throw new ProofError(check, 'malformed', `CatchainConfig tag 0x${tag.toString(16)}`);
    return {
      kind: tag === 0xc2 ? 'catchain_config_new' : 'catchain_config',
      shuffleMcValidators,
      mcCatchainLifetime: r.uint(32),
      shardCatchainLifetime: r.uint(32),
      shardValidatorsLifetime: r.uint(32),
      shardValidatorsNum: r.uint(32),
    };
  });
}

// simplex_config#21 flags:(## 7) use_quic:Bool target_rate_ms:uint32 slots_per_leader_window:uint32
//   first_block_timeout_ms:uint32 max_leader_window_desync:uint32 = NewConsensusConfig;
// simplex_config_v2#22 flags:(## 5) protocol_version:(## 2) use_quic:Bool slots_per_leader_window:uint32
//   noncritical_params:(HashmapE 8 uint32) = NewConsensusConfig;
function parseNewConsensusConfig(cell: Cell, check: string): NewConsensusConfig {
  const r = provenReader(cell, check);
  const tag = r.uint(8);
  if (tag === 0x21) {
    return {
      kind: 'simplex_config',
      flags: r.uint(7),
      useQuic: r.bool(),
      targetRateMs: r.uint(32),
      slotsPerLeaderWindow: r.uint(32),
      firstBlockTimeoutMs: r.uint(32),
      maxLeaderWindowDesync: r.uint(32),
    };
  }
  if (tag === 0x22) {
    const flags = r.uint(5);
    const protocolVersion = r.uint(2);
    const useQuic = r.bool();
    const slotsPerLeaderWindow = r.uint(32);
    const noncriticalParams = new Map<number, number>();
    const root = r.maybeRef();
    if (root) forEachKeyedLeaf(provenReader(root, check), 8, (key, v) => noncriticalParams.set(Number(key), v.uint(32)));
    return { kind: 'simplex_config_v2', flags, protocolVersion, useQuic, slotsPerLeaderWindow, noncriticalParams };
  }
  throw new ProofError(check, 'malformed', `NewConsensusConfig tag 0x${tag.toString(16)}`);
}

export function parseNewConsensusConfigAll(cell: Cell): NewConsensusConfigAll {
  const check = 'config.param30';
  return proofRead(check, () => {
    const r = provenReader(cell, check);
    const tag = r.uint(8);
    if (tag !== 0x10) throw new ProofError(check, 'malformed', `NewConsensusConfigAll tag 0x${tag.toString(16)}`);
    const mc = r.maybeRef();
    const shard = r.maybeRef();
    return {
      mc: mc ? parseNewConsensusConfig(mc, check) : null,
      shard: shard ? parseNewConsensusConfig(shard, check) : null,
    };
  });
}

/** What a forward link needs from the source block's config, plus param 30 when the proof carries it. */
export interface TrustConfig {
  validators: ValidatorSet;
  catchain: CatchainConfig;
  /** Param 30, or why not: a liteserver's link proof need not carry it (only 28 and 34 are required). */
  consensus: NewConsensusConfigAll | 'absent' | 'not-proven';
}

/** Reads params 34 and 28 (required, and proven) and 30 (parsed when the proof holds it) from a config dictionary. */
export function readTrustConfig(config: Cell): TrustConfig {
  const p30 = lookupHashmap(config, 32, 30n, 'config.param30');
  let consensus: TrustConfig['consensus'] = p30.status === 'found' ? 'absent' : p30.status;
  if (p30.status === 'found') consensus = parseNewConsensusConfigAll(proofRead('config.param30', () => p30.value.ref()));
  return {
    validators: parseValidatorSet(requireParam(config, 34)),
    catchain: parseCatchainConfig(requireParam(config, 28)),
    consensus,
  };
}
