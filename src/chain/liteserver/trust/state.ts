// Proven shard states: a block proof and a state proof linked by the block's MERKLE_UPDATE, and strict
// readers of the state parts the checks need (ShardStateUnsplit, McStateExtra, ConfigParams).
import type { Cell } from '@ton/core';
import { readShardIdent } from '../../decode/block-info.js';
import { CellRef } from '../../cell/cell.js';
import type { CellReader } from '../../cell/core-reader.js';
import type { Reader } from '../../cell/reader.js';
import { ProofError, proofRead } from './errors.js';
import { hashHex, lookupHashmap, merkleUpdateHashes, proofRoots, provenReader, provenValue, signedKey, unwrapMerkleProof, type HashLike } from './merkle.js';
import { BLOCK_TAG } from '../../tlb/block.js';
import { loadMcStateExtraParts, loadMcStateInfo } from '../../tlb/mc-state-extra.js';

export const SHARD_STATE_TAG = 0x9023afe2;

/** A `ShardStateUnsplit` as far as the checks read it; the referenced parts stay cells (maybe pruned). */
export interface ProvenShardState<C = Cell> {
  globalId: number;
  workchain: number;
  shard: string;
  seqno: number;
  genUtime: number;
  genLt: bigint;
  /** `ShardAccounts` = `HashmapAugE 256 ShardAccount DepthBalanceInfo`. */
  accounts: C;
  /** `McStateExtra` of a masterchain state, null for a shard state. */
  custom: C | null;
}

/**
 * Unwraps a block proof against the block's root hash and the state proof against the block's
 * MERKLE_UPDATE new hash: the state is the one right after this block. `check` prefixes the link names.
 */
export function provenStateOfBlock(blockProof: Cell, stateProof: Cell, blockRootHash: string, check: string): { block: Cell; state: Cell } {
  const block = unwrapMerkleProof(blockProof, `${check}.block_root_hash`, blockRootHash);
  const update = provenReader(block, `${check}.block`);
  const stateUpdate = proofRead(`${check}.block`, () => {
    if (update.uint(32) !== BLOCK_TAG) throw new ProofError(`${check}.block`, 'malformed', 'proven cell is not a Block');
    return block.refs[2];
  });
  if (!stateUpdate) throw new ProofError(`${check}.block`, 'malformed', 'Block has no state_update');
  const { newHash } = merkleUpdateHashes(stateUpdate, `${check}.state_update`);
  const state = unwrapMerkleProof(stateProof, `${check}.state_root`, newHash);
  return { block, state };
}

// shard_state#9023afe2 global_id:int32 shard_id:ShardIdent seq_no:uint32 vert_seq_no:# gen_utime:uint32
//   gen_lt:uint64 min_ref_mc_seqno:uint32 out_msg_queue_info:^OutMsgQueueInfo before_split:(## 1)
//   accounts:^ShardAccounts ^[ … ] custom:(Maybe ^McStateExtra)
export function readShardState(state: Cell, check: string): ProvenShardState;
export function readShardState(state: CellRef, check: string): ProvenShardState<CellRef>;
export function readShardState(state: Cell | CellRef, check: string): ProvenShardState<Cell | CellRef> {
  const r: Reader<Cell | CellRef> = state instanceof CellRef ? provenReader(state, check) : provenReader(state, check);
  return proofRead(check, () => {
    const tag = r.uint(32);
    if (tag !== SHARD_STATE_TAG) throw new ProofError(check, 'malformed', `ShardStateUnsplit tag 0x${tag.toString(16)} is not 0x9023afe2`);
    const globalId = r.int(32);
    const { workchain, shard } = readShardIdent(r);
    const seqno = r.uint(32);
    r.skip(32); // vert_seq_no
    const genUtime = r.uint(32);
    const genLt = r.bigUint(64);
    r.skip(32); // min_ref_mc_seqno
    r.ref(); // out_msg_queue_info
    r.skip(1); // before_split
    const accounts = r.ref();
    r.ref(); // ^[ overload_history … master_ref ]
    const custom = r.maybeRef();
    return { globalId, workchain, shard, seqno, genUtime, genLt, accounts, custom };
  });
}

/** The parts of `McStateExtra` the checks read. */
export interface McStateExtra {
  /** `ShardHashes` = `HashmapE 32 ^(BinTree ShardDescr)`: null when empty. */
  shardHashes: Cell | null;
  configAddress: string;
  /** `Hashmap 32 ^Cell` of config params. */
  configParams: Cell;
  /** `^[ flags validator_info prev_blocks after_key_block last_key_block … ]` (maybe pruned). */
  info: Cell;
}

// masterchain_state_extra#cc26 shard_hashes:ShardHashes config:ConfigParams ^[ … ] global_balance:CurrencyCollection
// _ config_addr:bits256 config:^(Hashmap 32 ^Cell) = ConfigParams;  (read by tlb/mc-state-extra.ts)
export function readMcStateExtra(custom: Cell, check: string): McStateExtra {
  const r = provenReader(custom, check);
  return proofRead(check, () => {
    const { shardHashes, config, info } = loadMcStateExtraParts(r);
    return { shardHashes, configAddress: config.configAddress.toString('hex'), configParams: config.config, info };
  });
}

/** The masterchain state's McStateExtra; a shard state (no `custom`) is `malformed` for `check`. */
export function mcStateExtraOf(state: ProvenShardState, check: string): McStateExtra {
  if (!state.custom) throw new ProofError(check, 'malformed', 'the state has no McStateExtra (not a masterchain state)');
  return readMcStateExtra(state.custom, check);
}

/**
 * Config param `index` (int32 keys: negative ones exist) from a proven `Hashmap 32 ^Cell`: its cell, null when the proof shows it absent;
 * a param under a pruned branch is `not-proven` (`config.param<index>`). The returned cell may still hold
 * pruned parts: read it with provenReader / the strict lookups.
 */
export function provenConfigParam(configParams: Cell, index: number): Cell | null {
  const check = `config.param${index}`;
  const value: CellReader | null = provenValue(lookupHashmap(configParams, 32, signedKey(index, 32), check), check, `config param ${index}`);
  return value ? proofRead(check, () => value.ref()) : null;
}

/**
 * A `getConfigParams`/`getConfigAll` reply: `state_proof` proves block `block` (its root hash) and its
 * MERKLE_UPDATE, `config_proof` the state after it; returns each asked param (null when proven absent).
 */
export function checkConfigProof(stateProof: Buffer, configProof: Buffer, blockRootHash: HashLike, params: number[], check = 'config'): Map<number, Cell | null> {
  const [blockProof] = proofRoots(stateProof, `${check}.block`, 1);
  const [stateRoot] = proofRoots(configProof, `${check}.state`, 1);
  const { state } = provenStateOfBlock(blockProof!, stateRoot!, hashHex(blockRootHash), check);
  const extra = mcStateExtraOf(readShardState(state, `${check}.state`), `${check}.state`);
  return new Map(params.map((index) => [index, provenConfigParam(extra.configParams, index)]));
}

/** `validator_info$_ validator_list_hash_short:uint32 catchain_seqno:uint32 nx_cc_updated:Bool` and the last key block seqno. */
export function readMcStateInfo(info: Cell, check: string): { validatorListHashShort: number; catchainSeqno: number; lastKeyBlockSeqno: number | null } {
  const r = provenReader(info, check);
  return proofRead(check, () => {
    const { validatorInfo, lastKeyBlock } = loadMcStateInfo(r);
    return { validatorListHashShort: validatorInfo.validatorListHashShort, catchainSeqno: validatorInfo.catchainSeqno, lastKeyBlockSeqno: lastKeyBlock?.seqno ?? null };
  });
}
